"""The environment's server: ``server.app:app``."""
