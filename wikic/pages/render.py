"""Turning model text into safe Markdown, and linking mentions of known pages.

Model output is data: it may hold wikilinks to pages that do not exist, HTML, comment or math markers,
YAML-breaking text or newlines. Every string is flattened and escaped here before it reaches a page.
"""

from __future__ import annotations

import re
import unicodedata

from wikic.text.code_spans import CodeSpans, outside_code
from wikic.text.common_words import common_word, function_word

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_OPEN_RUNS = re.compile(r"\[{2,}|\]{2,}|%{2,}")  # "[[[x]]]" or "%%%" must not leave a "[[" or "%%" behind
MAX_TITLE = 120


def _single(run: re.Match[str]) -> str:
    return run.group(0)[0]


def clean_text(text: str, limit: int = 1000) -> str:
    """One line of plain Markdown text that cannot open a link, comment, code span, math or HTML. A code span
    closed within the text (`` `[[Artificial Intelligence|AI]]` `` quoted from a source) stays code, as
    written: it opens nothing, and its reader sees the code."""
    text = _CONTROL.sub(" ", unicodedata.normalize("NFC", text))
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    text = outside_code(text, _plain)
    return re.sub(r"^[#>\-+*=|~_]+\s*", "", text)  # no heading, quote, list, table, fence or rule first


_BARE_BACKSLASH = re.compile(r"\\(?![!\"#%'()*+,\-./:;=?@\[\]_{|}~])")


def _plain(text: str) -> str:
    """Text outside code spans, escaped so it opens nothing."""
    text = _OPEN_RUNS.sub(_single, text)
    text = text.replace("](", "] (").replace("]:", "] :")  # no Markdown link, nor a reference definition
    # a backslash must not escape the escapes below; one escaping other punctuation (`\[\[` in a source's
    # prose) is the Markdown escape its reader saw, kept so the bracket shows and opens nothing
    text = _BARE_BACKSLASH.sub(r"\\\\", text)
    text = text.replace("<", "&lt;").replace(">", "&gt;").replace("`", "'").replace("$", "\\$")
    return text.replace("^[", "^ [")


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
    link targets used. A name links only where the text names it, as a whole word: never a function word
    ("the", "it"); a name that is also an ordinary word ("Go", "Rust", "Swift") only as written, capitalised,
    where no sentence starts ("…written in Rust", not "Go compiles fast" nor "go through"); never inside an
    existing link or a code span, nor a name joined to more of a token ("qwen3-embedding", "qwen3:8b",
    "config.go").
    """
    used: set[str] = set()
    if not names or not text:
        return text, used
    skip = skip or set()
    names = {n: target for n, target in names.items() if len(n) >= 2 and not _function_words_only(n)}
    candidates = sorted(names, key=len, reverse=True)
    if not candidates:
        return text, used
    alternatives = "|".join(re.escape(n) for n in candidates)
    pattern = re.compile(rf"(?<![\w\[|])(?<!\w-)({alternatives})(?![\w\]]|[-:./]\w)", re.IGNORECASE)
    by_fold = {n.lower(): n for n in candidates}
    code = CodeSpans(text)
    out = []
    last = 0
    for m in pattern.finditer(text):
        if len(used) >= limit:
            break
        if code.around(m.start()) is not None:
            continue  # code shows what it holds: a link there would be its syntax, not a link
        name = next((n for n in (m.group(1), by_fold[m.group(1).lower()]) if n in names), by_fold[m.group(1).lower()])
        target = names[name]
        if target in used or target in skip:
            continue
        if _ordinary(name) and (m.group(1) != name or _opens_sentence(text, m.start())):
            continue  # the ordinary word, not the name
        before = text[last : m.start()]
        if before.count("[[") > before.count("]]"):
            continue
        out.append(before)
        out.append(link(target, m.group(1)))
        used.add(target)
        last = m.end()
    out.append(text[last:])
    return "".join(out), used


def _function_words_only(name: str) -> bool:
    found = re.findall(r"[^\W_]+", name)
    return bool(found) and all(function_word(w) for w in found)


def _ordinary(name: str) -> bool:
    """A one-word name that is also a common word: a link needs it written as a name."""
    found = re.findall(r"[^\W_]+", name)
    return len(found) == 1 and found[0].isalpha() and not found[0].isupper() and common_word(found[0])


def _opens_sentence(text: str, at: int) -> bool:
    """Position `at` opens `text` or a sentence of it (after an end mark, or after an opening quote)."""
    before = text[max(0, at - 4) : at].rstrip(" *_\"'“‘(")
    return not before or before[-1] in ".!?:;。！？：；\n"
