"""The Shop-R1 suite (``bench shop``): its config and presets, data, run, report and scripts."""
