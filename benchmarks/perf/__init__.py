"""Speed scripts: each times one path of the library (old vs new, batched vs one at a time) and prints the ratio."""
