"""Turning model text into safe Markdown, and linking mentions of known pages.

Model output is data: it may hold wikilinks to pages that do not exist, HTML, comment or math markers,
YAML-breaking text or newlines. Every string is flattened and escaped here before it reaches a page.
"""

from __future__ import annotations

import re
import unicodedata

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_OPEN_RUNS = re.compile(r"\[{2,}|\]{2,}|%{2,}")  # "[[[x]]]" or "%%%" must not leave a "[[" or "%%" behind
MAX_TITLE = 120


def _single(run: re.Match[str]) -> str:
    return run.group(0)[0]


def clean_text(text: str, limit: int = 1000) -> str:
    """One line of plain Markdown text that cannot open a link, comment, code span, math or HTML."""
    text = _CONTROL.sub(" ", unicodedata.normalize("NFC", text))
    text = " ".join(text.split())
    text = _OPEN_RUNS.sub(_single, text)
    text = text.replace("](", "] (").replace("]:", "] :")  # no Markdown link, nor a reference definition
    text = text.replace("\\", "\\\\")  # a model's backslash must not escape the escapes below
    text = text.replace("<", "&lt;").replace(">", "&gt;").replace("`", "'").replace("$", "\\$")
    text = text.replace("^[", "^ [")
    text = re.sub(r"^[#>\-+*=|~_]+\s*", "", text)  # no heading, quote, list, table, fence or rule at the start
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def clean_title(text: str) -> str:
    text = _CONTROL.sub(" ", unicodedata.normalize("NFC", text))
    text = _OPEN_RUNS.sub(_single, " ".join(text.split())).strip(" #|[]")
    if len(text) > MAX_TITLE:
        text = text[: MAX_TITLE - 1].rstrip() + "…"
    return text


def table_cell(text: str) -> str:
    return clean_text(text, 300).replace("|", "\\|")


def link(target: str, label: str | None = None, *, in_table: bool = False) -> str:
    pipe = "\\|" if in_table else "|"
    if label is None or label == target:
        return f"[[{target}]]"
    label = label.replace("|", "/").replace("[", "(").replace("]", ")")
    return f"[[{target}{pipe}{label}]]"


def linkify(text: str, names: dict[str, str], *, skip: set[str] | None = None, limit: int = 8) -> tuple[str, set[str]]:
    """Link the first mention of each known name in `text`.

    `names` maps a display name to its link target ("OpenAI" -> "openai"). Returns the text and the set of
    link targets used. Mentions inside an existing link, and a name joined by a hyphen to another word, are
    left alone.
    """
    used: set[str] = set()
    if not names or not text:
        return text, used
    skip = skip or set()
    candidates = sorted((n for n in names if len(n) >= 2), key=len, reverse=True)
    if not candidates:
        return text, used
    # a name joined to another word by a hyphen is part of another name ("qwen3-embedding" is not Qwen3)
    pattern = re.compile(r"(?<![\w\[|])(?<!\w-)(" + "|".join(re.escape(n) for n in candidates) + r")(?![\w\]]|-\w)",
                         re.IGNORECASE)
    lowered = {n.lower(): n for n in candidates}
    out = []
    last = 0
    for m in pattern.finditer(text):
        if len(used) >= limit:
            break
        target = names[lowered[m.group(1).lower()]]
        if target in used or target in skip:
            continue
        before = text[last : m.start()]
        if before.count("[[") > before.count("]]"):
            continue
        out.append(before)
        out.append(link(target, m.group(1)))
        used.add(target)
        last = m.end()
    out.append(text[last:])
    return "".join(out), used
