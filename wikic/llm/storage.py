"""Small state files under `.wikic/`: written atomically so a crash or a parallel reader never sees half a file.

Shared by the reply cache, the endpoint memory and the source ledger, which all keep JSON state there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wikic.vault.write import write_bytes_atomic


def write_json(path: Path, value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))


def read_json(path: Path) -> Any | None:
    """The JSON value in `path`, or None when the file is missing or unreadable (state is rebuildable)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
