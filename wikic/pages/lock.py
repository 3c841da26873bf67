"""One writer at a time per vault: ingest, query write-back and lint --fix take this lock to write."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from wikic.errors import LockTimeout
from wikic.vault.state import VAULT_LOCK, state_dir, state_path


@contextmanager
def vault_lock(root: Path, timeout: float = 300.0) -> Iterator[None]:
    state_dir(root).mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(state_path(root, VAULT_LOCK)))
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise LockTimeout(
            f"{root}: another wikic process has held the vault lock for {timeout:.0f} s",
            hint="wait for the other ingest to finish, or remove .wikic/vault.lock if no wikic process is running",
        ) from None
    try:
        yield
    finally:
        lock.release()
