"""One writer at a time per vault: ingest, query write-back and lint --fix take this lock to write."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from wikic.vault.state import VAULT_LOCK, state_lock


def vault_lock(root: Path, timeout: float = 300.0) -> AbstractContextManager[None]:
    return state_lock(
        root,
        VAULT_LOCK,
        timeout,
        holder=f"{root}: another wikic process has held the vault lock",
        hint="wait for the other ingest to finish, or remove .wikic/vault.lock if no wikic process is running",
    )
