"""Torch's CPU thread count, bounded for one block and then restored."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the body with ``n`` torch CPU threads, then restore the previous count."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


__all__ = ["torch_threads"]
