"""The composed ledger (`.wikic/composed.json`), read: what the last composing of each page did. Ingest's prose
step writes it (`ingest/prose_step.py`); `wikic eval` counts the sentences it refused.

    {"pages": {page path: {"composed": day, "sentences": written, "refused": {reason: n}}}}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wikic.vault.state import COMPOSED, read_state


def composed_ledger(root: Path) -> dict[str, dict[str, Any]]:
    """page -> what its last composing did: {"composed": day, "sentences": written, "refused": {reason: n}}
    ({} when the ledger is missing or unreadable)."""
    data = read_state(root, COMPOSED)
    pages = data.get("pages") if isinstance(data, dict) else None
    return {str(p): e for p, e in pages.items() if isinstance(e, dict)} if isinstance(pages, dict) else {}
