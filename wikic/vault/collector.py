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
    memory did not grow).

    What the pause allocated is handed to the oldest generation when it ends (frozen, then unfrozen: two
    list splices). Left in the youngest, the first collection after the pause would walk every one of those
    objects (~0.2 s for a 10,000-page vault), and each older generation's first collection again; most of them
    are freed by reference counting when the work returns, before the oldest is next collected."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # someone else's frozen objects (a server freezing before it forks) must stay frozen
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
