"""The simulator-fidelity suite (``bench fidelity``): its config and presets, learned simulators, run, report and scripts."""
