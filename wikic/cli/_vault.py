"""The vault a command works on, from `--vault DIR` or the current folder: without Typer, so the command
line's fast paths (`search_fast.py`) find it as every command does."""

from __future__ import annotations

from pathlib import Path

from wikic.errors import UsageError
from wikic.vault.layout import find_vault_root


def resolve_vault(vault: Path | None) -> Path:
    """`--vault DIR`, or the nearest parent of the current directory holding SCHEMA.md, or the cwd."""
    if vault is None:
        return find_vault_root(Path.cwd())
    if not vault.exists():
        raise UsageError(
            f"vault folder does not exist: {vault}",
            hint="give the folder of a vault with --vault DIR (or run the command inside it); `wikic init DIR` "
            "makes a new one",
        )
    if not vault.is_dir():
        raise UsageError(
            f"vault is not a folder: {vault}",
            hint="give the vault's folder, not a file in it, with --vault DIR",
        )
    return vault.resolve()
