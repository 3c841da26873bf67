"""What a query page remembers about the pages it cited: a fingerprint of each page's knowledge.

A query page's frontmatter records `cited: {"entities/openai.md": "<fingerprint>"}`; lint's `stale-page`
rule recomputes the fingerprints and reports the query when one differs (a later ingest changed the page).

The fingerprint covers what a reader learns from the page, and nothing that changes without the page
changing: the frontmatter is left out (a new tag or `updated` date is no new knowledge), and so is the
"Asked about" block that query write-back adds to cited pages (filing a second query must not make the
first one stale), the "See also" lines that ingest rewrites when a page built on the same source appears,
and the compiler's block markers (whose hashes follow the blocks' text). Line endings and trailing spaces
are normalised; everything else counts. A fingerprint recorded by an earlier version, which still counted
See also lines and markers, is accepted while the page is unchanged (`fingerprint_matches`).
Lint's `stale-page` rule imports this module: it must stay free of heavy imports.
"""

from __future__ import annotations

import hashlib
import re

from wikic.vault.formats.markers import PREFIX, block
from wikic.vault.frontmatter import split

# The compiler-owned block (see `blocks.py`) that lists the queries citing a page.
ASKED_KEY = "asked"
ASKED_SECTION = "Asked about"
FINGERPRINT_CHARS = 16

_ASKED_BLOCK = block(ASKED_KEY)
_ASKED_HEADING = re.compile(rf"^## {re.escape(ASKED_SECTION)}[ \t]*$", re.MULTILINE)
_NAVIGATION = re.compile(rf"^(?:- See also: .*|{re.escape(PREFIX)}(?:begin|end) [^\n]*-->)$", re.MULTILINE)
_EMPTY_SECTION = re.compile(r"^#{2,6} [^\n]*\n(?=\s*(?:^#{1,6} |\Z))", re.MULTILINE)
_BLANK_RUNS = re.compile(r"\n{3,}")


def knowledge_text(text: str) -> str:
    """The part of a page a fingerprint covers (see the module docstring)."""
    text = _normalised(_NAVIGATION.sub("", _without_asked(text)))
    return _normalised(_EMPTY_SECTION.sub("", text + "\n"))  # a "## Related" that held only See also


def _without_asked(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    block = split(text)
    if block.yaml_text is not None:
        text = "\n".join(text.split("\n")[block.block_lines :])
    return _ASKED_HEADING.sub("", _ASKED_BLOCK.sub("", text))


def _normalised(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:FINGERPRINT_CHARS]


def page_fingerprint(text: str) -> str:
    """A short sha256 of the page's knowledge text."""
    return _digest(knowledge_text(text))


def same_fingerprint(recorded: object, current: str) -> bool:
    """Whether a recorded fingerprint (any prefix of 8+ hex characters) matches the current one."""
    value = str(recorded).strip().lower()
    return len(value) >= 8 and (current.startswith(value) or value.startswith(current))


def fingerprint_matches(recorded: object, text: str) -> bool:
    """Whether the page `text` is unchanged since `recorded` was taken, by this version's fingerprint or by
    the one earlier versions recorded (See also lines and block markers counted)."""
    return same_fingerprint(recorded, page_fingerprint(text)) or same_fingerprint(
        recorded, _digest(_normalised(_without_asked(text)))
    )
