"""Benchmark suites and performance scripts that compare agents side by side."""
