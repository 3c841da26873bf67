"""confusable-name: two notes whose file names or titles read the same but are spelled with other letters (a
Cyrillic or Greek letter drawn like a Latin one, a full-width letter, an invisible character): no reader,
and no link typed by hand, tells them apart. Reported on the note spelled with the lookalikes.

Why: a lookalike name is a second page for the same subject that no one will link to on purpose, or a planted one.

Example: a note titled "Orion Labs" with a Cyrillic first letter beside `entities/orion-labs.md`.

Fix: rename the note with the letters it means, or merge it into the other.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.text.confusables import lookalikes, skeleton
from wikic.vault.resolve import fold_name

# Separators read alike too: a file name "orion-labs" is the title "Orion Labs"
_SEPARATORS = re.compile(r"[\s_\-‐-―]+")


def _key(text: str) -> str:
    return _SEPARATORS.sub("-", text).strip("-")


def confusable_names(ctx: LintContext) -> Iterator[Finding]:
    labels: list[tuple[str, str]] = []  # (note, its file name or title)
    for path in sorted(ctx.vault.notes):
        if not path.endswith(".md"):
            continue
        labels.append((path, posixpath.basename(path)[:-3]))
        title = (ctx.vault.notes[path].frontmatter or {}).get("title")
        if isinstance(title, str) and title.strip():
            labels.append((path, title.strip()))
    if all(label.isascii() for _, label in labels):
        return  # every name spelled in ASCII: what reads alike is spelled alike (case-collision, duplicate-page)
    looks: dict[str, list[tuple[str, str]]] = {}  # what a name looks like -> (note, name)
    for path, label in labels:
        looks.setdefault(_key(skeleton(label)), []).append((path, label))
    for alike in looks.values():
        if len({path for path, _ in alike}) < 2:
            continue
        reported: set[tuple[str, str]] = set()
        for path, label in alike:
            odd = lookalikes(label)
            if not odd:
                continue
            for other, other_label in alike:
                if other == path or (path, other) in reported or _key(fold_name(other_label)) == _key(fold_name(label)):
                    continue  # the same note, or spelled alike: what duplicate-page and case-collision report
                reported.add((path, other))
                yield ctx.finding(
                    "confusable-name",
                    path,
                    None,
                    f"'{label}' reads as '{other_label}' ({other}) but is spelled with {', '.join(odd)}: rename one",
                    target=other,
                )


RULE = Rule(
    "confusable-name",
    "warning",
    "two notes whose file names or titles read the same but are spelled with other letters (Cyrillic, Greek, "
    "full-width, invisible)",
    needs_schema=False,
    check=confusable_names,
)
