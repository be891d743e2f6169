"""Offline relabelling of trajectory data sets with COREN's dense rewards, and its ``label`` command."""
