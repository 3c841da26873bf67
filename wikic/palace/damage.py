"""A damaged palace: telling it from a failing machine, and setting it aside.

chromadb reports a damaged file (an HNSW segment cut short by a kill, a malformed SQLite page) with the same
exception types as any other failure, so the message decides: a failure of the machine (a full disk, a
missing permission, a busy database) is never damage, everything else chromadb raises on an embedded palace
is. `wikic index` then asks again in a fresh process before it sets anything aside, so a failure that does
not come back is reported as it is.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path

# Failures of the machine, not of the palace's files: a rebuild would fail the same way.
MACHINE = re.compile(
    r"disk is full|no space left|quota|permission denied|read-only file system|readonly database|"
    r"database is locked|busy|too many open files|out of memory|cannot allocate",
    re.IGNORECASE,
)


def is_damage(exc: BaseException) -> bool:
    """Whether a failure of an embedded palace's store may come from its files rather than the machine."""
    return not MACHINE.search(str(exc))


def is_damaged_database(exc: sqlite3.Error) -> bool:
    """Whether SQLite says a database file is damaged (or is no database at all)."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def set_aside(folder: Path) -> Path:
    """Move a damaged palace folder beside itself, as `<name>.broken-<time>`, keeping everything in it."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder.with_name(f"{folder.name}.broken-{stamp}")
    n = 1
    while target.exists() or target.is_symlink():
        n += 1
        target = folder.with_name(f"{folder.name}.broken-{stamp}-{n}")
    os.rename(folder, target)
    return target
