"""One writer at a time per vault: ingest, query write-back, `lint --fix`, the hubs, invalidate and confirm
open the vault as its writer (`writer`): the vault lock, then whatever a killed run left half written is
finished before anything is read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from wikic.pages import journal
from wikic.vault.state import VAULT_LOCK, state_lock


def vault_lock(root: Path, timeout: float = 300.0) -> AbstractContextManager[None]:
    return state_lock(
        root,
        VAULT_LOCK,
        timeout,
        holder=f"{root}: another wikic process has held the vault lock",
        hint="wait for the other ingest to finish, or remove .wikic/vault.lock if no wikic process is running",
    )


@contextmanager
def writer(root: Path, page_types: list[str], *, recover: bool = True, tidy: bool = False) -> Iterator[list[str]]:
    """Be the vault's one writer for the block: hold the vault lock and, first, finish the write a killed run
    left (its journal: `journal.recover`). Yields the sources whose run was finished.

    `recover=False`: the lock alone (a dry run reads under it and writes nothing). `tidy`: recover even when
    no journal is pending, which removes the temporary files a killed write left all the same."""
    with vault_lock(root):
        yield journal.recover(root, page_types) if recover and (tidy or journal.pending(root)) else []
