"""The hubs of a vault that lacks them: `wikic init` in a vault an earlier version made (or a new one).

Only what is missing is written: overview.md, and a source page for every source that is compiled or that a
subject page is built on; index.md gains their entries and the line leading to the overview. Nothing that
exists is rewritten, so running it twice changes nothing, and a person's notes are never touched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from wikic.hubs.plan import plan_hubs
from wikic.pages import journal
from wikic.pages.lock import writer
from wikic.vault.init import InitReport, init_vault
from wikic.vault.layout import is_vault
from wikic.vault.schema_md import load as load_schema


def add_hubs(root: Path, *, today: dt.date | None = None) -> list[str]:
    """Write the hubs the vault at `root` lacks (through the journal, under the vault lock); the paths
    written. A SCHEMA.md that cannot be read as meant writes none (ingest and lint say why)."""
    root = Path(root)
    schema = load_schema(root)
    if not is_vault(root) or schema.errors:
        return []
    types = list(schema.page_folders)
    with writer(root, types):
        hubs = plan_hubs(root, schema, today or dt.date.today(), create_only=True)
        plan = journal.Journal()
        for path, (before, text) in hubs.pages.items():
            if before is None:
                plan.add_page(path, None, text)
        if not plan.pages:
            return []
        plan.add_index([e for e in hubs.entries if e.link not in hubs.was])
        plan.commit(root, types)
    return sorted(plan.pages)


def init_with_hubs(root: Path, *, today: dt.date | None = None) -> InitReport:
    """`wikic init`: the vault's skeleton (`wikic/vault/init.py`), then its hubs."""
    report = init_vault(root)
    report.created.extend(add_hubs(report.root, today=today))
    return report
