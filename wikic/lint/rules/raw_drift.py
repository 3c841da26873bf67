"""raw-drift: a raw source changed or vanished after it was captured (raw/ is immutable).

Why: every claim's anchor quotes its raw source: a source edited or removed after capture leaves anchors no one can
check.

Example: `raw/articles/post.md` edited by hand after `wikic ingest` captured it.

Fix: restore the source from version control, or capture the new text as a new source and ingest it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.vault.formats.sources import SourceEntry
from wikic.vault.layout import RAW_DIR


def raw_drift(ctx: LintContext) -> Iterator[Finding]:
    for raw_path, entry in sorted(ctx.ledger.items()):
        yield from drift(ctx, raw_path, entry)


def drift(ctx: LintContext, raw_path: str, entry: SourceEntry) -> Iterator[Finding]:
    """The finding of one entry of the source ledger, if its raw file is gone or changed."""
    expected = entry.sha256
    if expected is None or not raw_path.startswith(RAW_DIR + "/"):
        return
    if raw_path not in ctx.vault.files:
        yield ctx.finding(
            "raw-drift",
            raw_path,
            None,
            "captured source is gone from raw/ (pages citing it lose their ground truth)",
        )
        return
    try:
        digest = hashlib.sha256((ctx.vault.root / raw_path).read_bytes()).hexdigest()
    except OSError:
        return
    if digest != expected:
        yield ctx.finding(
            "raw-drift",
            raw_path,
            None,
            (
                "source changed after it was captured (sha256 differs from the ledger); capture the new version "
                "as a new source instead"
            ),
        )


RULE = Rule(
    "raw-drift",
    "error",
    "a raw source changed or vanished after it was captured (raw/ is immutable)",
    needs_schema=True,
    check=raw_drift,
)
