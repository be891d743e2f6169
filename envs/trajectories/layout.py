"""The files of a saved trajectory data set's directory: their names and the format version.

Both storage formats read these names (``dataset.py`` writes the Arrow files and the
metadata, ``minari_io.py`` the Minari copy under ``MINARI_SUBDIR`` and checks it against the
metadata's episode count), so they live here rather than in either one.
"""

from __future__ import annotations

FORMAT_VERSION = 1
"""The ``format_version`` this rewardgym writes into, and reads from, ``METADATA_FILE``."""
METADATA_FILE = "rewardgym_dataset.json"
"""The data set's metadata (env id, action names, schema); written last, so a directory
without it is not a data set."""
DATASET_KIND = "trajectory-dataset"
"""The :data:`rewardgym.outputs.OWNER_FILE` kind of a directory written by ``save``."""
MINARI_SUBDIR = "data"
"""The folder of the Minari copy inside a data set's directory."""

__all__ = ["DATASET_KIND", "FORMAT_VERSION", "METADATA_FILE", "MINARI_SUBDIR"]
