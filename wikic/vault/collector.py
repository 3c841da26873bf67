"""Python's cyclic garbage collector, paused while a vault is read into memory (by lint, and once a run by ingest)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Reading a vault builds a few million small objects (notes, links, headings) that all live until the
    work ends. The cyclic collector walks every one of them again each time allocations pile up: about a
    third of a lint's time on a 10,000-page vault, for almost no garbage. Reference counting still frees
    what is dropped; the few cycles (markdown-it's parser state) wait for the collector to be back on (peak
    memory did not grow)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
