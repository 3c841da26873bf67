"""The cyclic collector paused while a vault is in memory, and what it finds when it is back on."""

from __future__ import annotations

import gc

from wikic.vault.collector import collector_paused


def _tracked(n: int) -> list[list[int]]:
    return [[i] for i in range(n)]  # lists: objects the collector tracks


def _generation(obj: object) -> int | None:
    return next((g for g in range(3) if any(o is obj for o in gc.get_objects(generation=g))), None)


def test_what_the_pause_allocated_goes_to_the_oldest_generation() -> None:
    # left in the youngest, the first collections after the pause walk every object the vault is made of
    assert gc.isenabled()
    gc.collect()  # every generation's count from nothing: one young collection follows the pause, not an older one
    with collector_paused():
        assert not gc.isenabled()
        kept = _tracked(50_000)
    assert gc.isenabled()
    gc.disable()  # no collection moves them while they are looked for
    try:
        assert _generation(kept[0]) == 2 and _generation(kept[-1]) == 2
    finally:
        gc.enable()
    assert gc.get_freeze_count() == 0


def test_objects_someone_else_froze_stay_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with collector_paused():
            _tracked(1_000)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            _tracked(1_000)
        assert not gc.isenabled()
    finally:
        gc.enable()
