"""What a query page remembers about the pages it cited: a fingerprint of each page's knowledge.

A query page's frontmatter records `cited: {"entities/openai.md": "<fingerprint>"}`; lint's `stale-page`
rule recomputes the fingerprints and reports the query when one differs (a later ingest changed the page).

The fingerprint covers what a reader learns from the page, and nothing that changes without the page
changing: the frontmatter is left out (a new tag or `updated` date is no new knowledge), and so is the
"Asked about" block that query write-back adds to cited pages (filing a second query must not make the
first one stale). Line endings and trailing spaces are normalised; everything else counts.
This module is imported by lint: it must stay free of heavy imports.
"""

from __future__ import annotations

import hashlib
import re

from wikic.vault.frontmatter import split

# The compiler-owned block (see wikic.ingest.blocks) that lists the queries citing a page.
ASKED_KEY = "asked"
ASKED_SECTION = "Asked about"
FINGERPRINT_CHARS = 16

_ASKED_BLOCK = re.compile(
    rf"^<!-- wikic:begin {ASKED_KEY} sha=[0-9a-f]+ -->\n.*?^<!-- wikic:end {ASKED_KEY} -->$", re.MULTILINE | re.DOTALL
)
_ASKED_HEADING = re.compile(rf"^## {re.escape(ASKED_SECTION)}[ \t]*$", re.MULTILINE)
_BLANK_RUNS = re.compile(r"\n{3,}")


def knowledge_text(text: str) -> str:
    """The part of a page a fingerprint covers (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    block = split(text)
    if block.yaml_text is not None:
        text = "\n".join(text.split("\n")[block.block_lines :])
    text = _ASKED_BLOCK.sub("", text)
    text = _ASKED_HEADING.sub("", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def page_fingerprint(text: str) -> str:
    """A short sha256 of the page's knowledge text."""
    return hashlib.sha256(knowledge_text(text).encode("utf-8")).hexdigest()[:FINGERPRINT_CHARS]


def same_fingerprint(recorded: object, current: str) -> bool:
    """Whether a recorded fingerprint (any prefix of 8+ hex characters) matches the current one."""
    value = str(recorded).strip().lower()
    return len(value) >= 8 and (current.startswith(value) or value.startswith(current))
