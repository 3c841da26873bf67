"""What was compiled, read back from the pages when `.wikic/compiled.json` is gone.

The ledgers under `.wikic/` are versioned with the vault (init's `.gitignore` keeps them), but a sync tool
that skips dot-folders, or a clone made with an older `.gitignore`, arrives without them. Then every
source in raw/ would look new: the next ingest would pay for all of them again and log each twice. The
pages say otherwise: a raw file a page cites in its `sources` was compiled, into the pages that cite it.
So the ledger is rebuilt from them, once, before anything is judged new, and costs no model call.

What cannot be read back: the names waiting below their threshold (`mentions.json`: they are on no page
yet) and how far each conversation was brought in (`conversations.json`); both travel with the vault only
when `.wikic/` does.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

from wikic.errors import VaultError
from wikic.ingest.compiled import Compiled
from wikic.vault.formats.sources import read_sources
from wikic.vault.load import load_vault
from wikic.vault.paths import read_inside
from wikic.vault.schema_md import Schema
from wikic.vault.state import COMPILED, state_file


def ledger_missing(root: Path) -> bool:
    path = state_file(root, COMPILED)
    return path is not None and not path.exists()


def rebuilt_compiled(root: Path, today: str, schema: Schema) -> Compiled:
    """The compiled ledger as the pages tell it (when `ledger_missing`): every raw file a page cites, into
    the pages that cite it. Read only; the caller saves it under the vault lock once the run goes ahead."""
    vault = load_vault(root, use_cache=False, schema=schema)  # once, and before the run may write anything
    cited: dict[str, set[str]] = defaultdict(set)
    for path in vault.pages:
        sources = (vault.notes[path].frontmatter or {}).get("sources")
        for source in sources if isinstance(sources, list) else []:
            if isinstance(source, str) and source.startswith("raw/"):
                # a source's own page says it was compiled, into no page of its own
                pages = cited[source]
                if not vault.is_hub(path):
                    pages.add(path)
    ledger = read_sources(root)
    originals = {e.text_path: e for e in ledger.values() if e.text_path}
    compiled = Compiled.load(root)
    for raw, pages in sorted(cited.items()):
        entry = originals.get(raw) or ledger.get(raw)
        sha = entry.sha256 if entry else None
        if sha is None:
            try:
                data = read_inside(root, root / raw)  # a name leading out of the vault ("raw/../..") is never read
            except (OSError, VaultError):
                data = None
            if data is None:
                continue  # cited but gone (or no file of the vault): lint reports the page's source
            sha = hashlib.sha256(data).hexdigest()
        compiled.record(raw, sha, sorted(pages), today, rebuilt=True)
    return compiled
