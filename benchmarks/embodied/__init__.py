"""The Household-v1 suite (``bench embodied``): its config and presets, data, run, statistics, report and scripts."""
