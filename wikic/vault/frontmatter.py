"""Frontmatter: find the YAML block on line 1, parse it, and know which line each key is on.

The one reader of page frontmatter: lint, the compiler, query write-back and the palace all read pages
through it (`parse`, or `read_page` for frontmatter and body together), so a block lint rejects is one
no other part of wikic trusts either.

Most frontmatter written by tools (and by wikic) is a flat map of plain scalars and lists. Parsing that
with PyYAML costs ~50 µs a page, a third of the lint budget on a 10,000-page vault, so a strict subset
parser handles those shapes and returns exactly what `yaml.safe_load` would (a property test holds it
to that); anything outside the subset goes to python-frontmatter's YAML handler (PyYAML's safe loader, the
C one when PyYAML has libyaml). Finding the block stays here: python-frontmatter strips the text first
(so line numbers move and a block after blank lines counts, which Obsidian ignores), takes `----` as a
fence and keeps the last of two equal keys silently.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any, NamedTuple

from wikic.text.extract import source_title
from wikic.vault.model import Problem

FENCE = "---"
RULE = "frontmatter"
MAX_FRONTMATTER_CHARS = 256 * 1024  # PyYAML on a huge block (or one with 100,000 duplicate keys) takes seconds
# Lists and mappings nested in one another, the block's own mapping the first: Obsidian's properties are flat,
# and every reader of a note's frontmatter (the parse cache's JSON among them) may walk it by recursion.
MAX_FRONTMATTER_DEPTH = 100


@lru_cache(maxsize=1)  # PyYAML is imported when a block first needs it: most blocks are read by `_parse_simple`
def _full_yaml() -> tuple[Any, Any]:
    """python-frontmatter's YAML handler, and the loader it uses (libyaml's when PyYAML has it) to read events."""
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    return YAMLHandler(), getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_ahead() -> None:
    """Import PyYAML now: a lint started next on another thread then imports nothing (`lint.run.import_ahead`)."""
    _full_yaml()


class RefusedYAML(Exception):
    """Frontmatter YAML that parses but is not read: an anchor or alias (`written`: "&name" or "*name"; a
    "billion laughs" of nine times nine aliases in 1 KB expands to 387 million values, and `&t [a, *t]` is a
    list inside itself), or values nested deeper than MAX_FRONTMATTER_DEPTH. `line` and `column` are 0-based in
    the block."""

    def __init__(self, problem: str, line: int = 0, column: int = 0, written: str = "") -> None:
        super().__init__(problem)
        self.problem, self.line, self.column, self.written = problem, line, column, written


def load_yaml(yaml_text: str) -> Any:
    """Full YAML, safe loader: what the subset parser declines. Raises RefusedYAML for an anchor or alias, and
    for values nested deeper than MAX_FRONTMATTER_DEPTH."""
    if "&" in yaml_text or "*" in yaml_text:  # what every anchor and alias is written with
        _refuse_anchors(yaml_text)
    data = _full_yaml()[0].load(yaml_text)
    _refuse_deep(data)
    return data


def _refuse_anchors(yaml_text: str) -> None:
    """RefusedYAML at the first anchor (`&name`) or alias (`*name`) of the block. Obsidian writes and reads
    neither, so no page needs one. Read from the parser's events, before anything is built from them: the
    loader itself would share one object between every alias of an anchor, for the code reading it to expand."""
    import yaml

    loader = _full_yaml()[1](yaml_text)
    try:
        while loader.check_event():
            event = loader.get_event()
            name = getattr(event, "anchor", None)
            if name is not None:
                mark = event.start_mark
                written = ("*" if isinstance(event, yaml.AliasEvent) else "&") + str(name)
                raise RefusedYAML("YAML anchors and aliases are not allowed", mark.line, mark.column, written)
    finally:
        loader.dispose()


def _refuse_deep(data: Any) -> None:
    """RefusedYAML when lists and mappings nest deeper than MAX_FRONTMATTER_DEPTH (walked with a stack: the
    data holds no alias, so it is a tree no bigger than its text)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        for child in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
            if isinstance(child, dict | list):
                if depth >= MAX_FRONTMATTER_DEPTH:
                    raise RefusedYAML(f"values nested deeper than {MAX_FRONTMATTER_DEPTH} levels")
                stack.append((child, depth + 1))


class Split(NamedTuple):
    yaml_text: str | None  # text between the fences, None when there is no frontmatter block
    block_lines: int  # lines taken by the block, fences included (0 if none)
    problems: list[Problem]


# The line that closes a frontmatter block: "---" or "...", then only whitespace (as `str.rstrip` sees it).
_CLOSING_FENCE = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.M)


def split(text: str) -> Split:
    """Find the frontmatter block. Obsidian only reads it when `---` is the very first line."""
    if text.startswith(FENCE):
        first_end = text.find("\n")
        first = text if first_end < 0 else text[:first_end]
        if first.rstrip() == FENCE:
            close = _CLOSING_FENCE.search(text, first_end + 1) if first_end >= 0 else None
            if close is not None:
                yaml_text = text[first_end + 1 : max(first_end + 1, close.start() - 1)]
                return Split(yaml_text, text.count("\n", 0, close.start()) + 1, [])
            return Split(None, 0, [Problem(RULE, 1, "frontmatter is not closed: no '---' line ends it")])
    stripped = text.lstrip()
    if stripped.startswith(FENCE) and stripped[: stripped.find("\n") if "\n" in stripped else None].rstrip() == FENCE:
        lead = text[: len(text) - len(stripped)]
        if lead.strip() == "" and "\n" in lead:
            line = lead.count("\n") + 1
            return Split(None, 0, [Problem(RULE, line, "frontmatter must start on line 1 (Obsidian ignores it here)")])
    return Split(None, 0, [])


# A top-level key: at column 0, not a comment or list item, up to the first ": " (a key may hold colons: "a:b: 1").
# (Possessive, then stripped in Python: a lazy key followed by "[ \t]*:" is quadratic on a line of spaces.)
_KEY_LINE = re.compile(r"^((?:[^\s#:\-]|-[^\s:])(?:[^:\n]|:(?![ \t]|$))*+):(?:[ \t]|$)")


_WIKI = re.compile(r"^\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]$")


def unwrap_link(value: str) -> str:
    """A property value that may be written as a quoted wikilink: '[[raw/x.md]]' -> 'raw/x.md'; plain
    text stays."""
    m = _WIKI.match(value.strip())
    return m.group(1).strip() if m else value.strip()


@lru_cache(maxsize=4)  # a page's block is read for its duplicates, then for its key lines: once
def _keys(yaml_text: str, first_line: int) -> tuple[tuple[str, int], ...]:
    """Every top-level key with its 1-based file line, in order (the block starts on file line `first_line`)."""
    out = []
    for i, line in enumerate(yaml_text.split("\n")):
        m = _KEY_LINE.match(line)
        if m:
            out.append((m.group(1).strip().strip("\"'"), first_line + i))
    return tuple(out)


def key_lines(yaml_text: str, first_line: int = 2) -> dict[str, int]:
    """Top-level key -> 1-based file line of its first occurrence."""
    out: dict[str, int] = {}
    for key, line in _keys(yaml_text, first_line):
        out.setdefault(key, line)
    return out


def duplicate_keys(yaml_text: str, first_line: int = 2) -> list[tuple[str, int]]:
    seen: set[str] = set()
    dups = []
    for key, line in _keys(yaml_text, first_line):
        if key in seen:
            dups.append((key, line))
        seen.add(key)
    return dups


class Parsed(NamedTuple):
    data: dict[str, Any] | None
    problems: list[Problem]


def parse(yaml_text: str, first_line: int = 2) -> Parsed:
    """Parse a frontmatter block. Problems carry file line numbers."""
    return parse_with_lines(yaml_text, first_line)[0]


def parse_with_lines(yaml_text: str, first_line: int = 2) -> tuple[Parsed, dict[str, int]]:
    """`parse` and `key_lines` of a block in one reading where the subset parser takes it: such a block has no
    duplicate key (the subset declines those), and each key sits on the line it was read from."""
    simple = _parse_simple(yaml_text, first_line)
    if simple is not None:
        return Parsed(simple[0], []), simple[1]
    return _parse_full(yaml_text, first_line), key_lines(yaml_text, first_line)


def _parse_full(yaml_text: str, first_line: int) -> Parsed:
    import yaml

    problems = [
        Problem(RULE, line, f"duplicate frontmatter key '{key}' (Obsidian requires unique keys)")
        for key, line in duplicate_keys(yaml_text, first_line)
    ]
    try:
        data = load_yaml(yaml_text)
    except RefusedYAML as exc:
        line = first_line + exc.line
        message = f"{exc.problem}: line {line} ('{exc.written}')" if exc.written else \
            f"invalid YAML in frontmatter: {exc.problem}"
        return Parsed(None, [*problems, Problem(RULE, line, message, exc.column + 1)])
    except yaml.YAMLError as exc:
        line = first_line + _error_line(exc, yaml_text)
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Parsed(None, [*problems, Problem(RULE, line, f"invalid YAML in frontmatter: {reason}")])
    except ValueError as exc:  # a timestamp YAML recognises but Python cannot build: 2024-02-30
        bad = _impossible_timestamp(yaml_text)
        line = first_line + bad[0] if bad else first_line
        what = f"impossible date '{bad[1]}'" if bad else "a value that cannot be read"
        return Parsed(None, [*problems, Problem(RULE, line, f"invalid YAML in frontmatter: {what} ({exc})")])
    except RecursionError:  # the pure-Python loader on absurdly deep nesting
        return Parsed(None, [*problems, Problem(RULE, first_line, "invalid YAML in frontmatter: nested too deeply")])
    if data is None:
        return Parsed({}, problems)
    if not isinstance(data, dict):
        kind = type(data).__name__
        return Parsed(
            None, [*problems, Problem(RULE, first_line, f"frontmatter must be a mapping of keys, not a {kind}")]
        )
    return Parsed({str(k): v for k, v in data.items()}, problems)


class Page(NamedTuple):
    """A page read as frontmatter and body."""

    data: dict[str, Any] | None  # None: no frontmatter, or one that cannot be read (lint says why)
    body: str  # the text after the frontmatter block; the whole text when `data` is None
    body_line: int  # 1-based file line where `body` starts


def read_page(text: str) -> Page:
    """A page's frontmatter and body, read as lint reads them: the block only on line 1, within the size cap,
    and valid YAML (an impossible date such as 2024-02-30 is not). Frontmatter that cannot be read leaves
    the whole text as the body, so the page's text is still searched and shown."""
    block = split(text)
    if block.yaml_text is None or len(block.yaml_text) > MAX_FRONTMATTER_CHARS:
        return Page(None, text, 1)
    data = parse(block.yaml_text).data
    if data is None:
        return Page(None, text, 1)
    return Page(dict(data), "\n".join(text.split("\n")[block.block_lines :]), block.block_lines + 1)


def split_page(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter, body) of a page; frontmatter None when it is missing or unreadable."""
    page = read_page(text)
    return page.data, page.body


def titled(text: str, name: str) -> str:
    """What the Markdown file `text`, named `name`, is titled: its frontmatter `title`, else its first
    level-one heading outside code, else its name (`wikic.text.extract.source_title`, read here for the
    units that read no text of their own)."""
    data, body = split_page(text)
    return source_title(data, body, name)


def _error_line(exc: Exception, yaml_text: str) -> int:
    """0-based line of a YAML error inside the block: where an unclosed bracket or quote opened, else where
    the parser gave up."""
    context = getattr(exc, "context", None) or ""
    context_mark = getattr(exc, "context_mark", None)
    problem_mark = getattr(exc, "problem_mark", None)
    if context_mark is not None and ("flow" in context or "quoted" in context):
        return int(context_mark.line)
    if problem_mark is not None:
        return int(problem_mark.line)
    if context_mark is not None:
        return int(context_mark.line)
    position = getattr(exc, "position", None)  # ReaderError: a character YAML does not allow
    if isinstance(position, int):
        return yaml_text.count("\n", 0, position)
    return 0


_TIMESTAMP = re.compile(
    r"(?<![\w-])([0-9]{4}-[0-9]{1,2}-[0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2}))?"
)


def _impossible_timestamp(yaml_text: str) -> tuple[int, str] | None:
    """(0-based line, text) of the first date-like value that is not a real date or time."""
    for i, line in enumerate(yaml_text.split("\n")):
        for m in _TIMESTAMP.finditer(line):
            y, mo, d = (int(x) for x in m.group(1).split("-"))
            try:
                dt.date(y, mo, d)
                if m.group(2) is not None:
                    dt.time(int(m.group(2)), int(m.group(3)), int(m.group(4)))
            except ValueError:
                return i, m.group(0)
    return None


# ---- the strict subset ----------------------------------------------------------------------------

# Values are captured whole and right-stripped in Python ("(.*?)[ ]*$" backtracks quadratically on spaces).
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?$")
_ITEM = re.compile(r"^([ ]*)-[ ]+(.*)$")
# Plain scalars PyYAML reads as plain strings: start with a letter, none of YAML's indicator characters.
_SAFE_PLAIN = re.compile(r"^[^\W\d_][^:#\[\]{},&*!|>'\"%@`\\]*$")
# ... and outside a flow list, where a comma or an apostrophe after the first character is text, and so is a
# first character outside ASCII that is no space (a source page's summary opens with its title in quotes)
_SAFE_PLAIN_BLOCK = re.compile(r"^(?:[^\W\d_]|[^\x00-\x7f\s])[^:#\[\]{}&*!|>\"%@`\\]*$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # ASCII digits only, as YAML
_INT = re.compile(r"^(?:0|[1-9][0-9]*)$")
_DQ = re.compile(r'^"([^"\\]*)"$')
_SQ = re.compile(r"^'([^']*)'$")
# Words YAML 1.1 turns into booleans or null.
_SPECIAL_WORDS = frozenset(
    w
    for base in ("yes", "no", "true", "false", "on", "off", "null")
    for w in (base, base.capitalize(), base.upper())
)

_FAIL = object()
# Characters PyYAML rejects (non-printable) or reads as line breaks (U+0085, U+2028, U+2029), and the BOM: in
# ASCII text, its control characters.
_NOT_SIMPLE_ASCII = re.compile("[^\n\x20-\x7e]")


@lru_cache(maxsize=1)  # compiled when a block beyond ASCII is first read: a class spanning every plane takes 5 ms
def _not_simple_chars() -> re.Pattern[str]:
    """The characters of `_NOT_SIMPLE_ASCII`'s comment, in any text."""
    return re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_MAX_KEY = 1000  # PyYAML refuses implicit keys longer than 1024 characters


def _scalar(text: str, *, block: bool = False) -> Any:
    """The value of a scalar PyYAML reads as `str`, `int`, `datetime.date` or None, else _FAIL; `block`: it
    stands outside a flow list."""
    if text == "" or text == "~":
        return None
    first = text[0]  # each shape below opens with its own kind of character: one pattern to try, not five
    if first == '"' or first == "'":
        m = (_DQ if first == '"' else _SQ).match(text)
        return m.group(1) if m else _FAIL
    if "0" <= first <= "9":
        if _DATE.match(text):
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                return _FAIL
        return int(text) if _INT.match(text) else _FAIL
    if (_SAFE_PLAIN_BLOCK if block else _SAFE_PLAIN).match(text) and text not in _SPECIAL_WORDS \
            and not text.endswith(" "):
        # inner runs of whitespace are kept by YAML only when single spaces; tabs etc. go to PyYAML
        if "  " in text or "\t" in text:
            return _FAIL
        return text
    return _FAIL


# One item of a one-line flow list and the comma after it: a quoted string without escapes ('it''s' and "\t"
# go to PyYAML), or a plain scalar judged by `_scalar`, its trailing spaces taken with it and stripped in Python
# (a lazy scalar before " *" reads a run of spaces again from each of its characters: quadratic). Possessive:
# giving a space back never lets an item match.
_FLOW_ITEM = re.compile(r""" *+(?:"([^"\\\n]*)"|'([^'\n]*)'|([^,"'\n]*+)) *+(,|$)""")


def _flow_list(inner: str) -> Any:
    inner = inner.strip(" ")  # YAML trims spaces only: a no-break space is text
    if inner == "":
        return []
    if "?" in inner:  # PyYAML ends a plain scalar at "?" inside [...] and then fails: "[x?, y]"
        return _FAIL
    items = []
    pos, end = 0, len(inner)
    while True:
        m = _FLOW_ITEM.match(inner, pos)
        if m is None:
            return _FAIL
        double, single, plain, comma = m.groups()
        if double is not None or single is not None:
            items.append(double if double is not None else single)
        else:
            value = _scalar(plain.rstrip(" "))
            if value is _FAIL or value is None:
                return _FAIL
            items.append(value)
        if not comma:
            return items
        pos = m.end()
        if pos >= end:
            return _FAIL  # "[a,]": left to PyYAML


def parse_simple(yaml_text: str) -> dict[str, Any] | None:
    """Parse the common flat shape, or return None to say "use PyYAML"."""
    simple = _parse_simple(yaml_text, 0)
    return simple[0] if simple is not None else None


def _parse_simple(yaml_text: str, first_line: int) -> tuple[dict[str, Any], dict[str, int]] | None:
    """`parse_simple`, with each key's file line (the block starting on file line `first_line`)."""
    if "#" in yaml_text or "\t" in yaml_text or "\r" in yaml_text or \
            (_NOT_SIMPLE_ASCII if yaml_text.isascii() else _not_simple_chars()).search(yaml_text):
        return None
    data: dict[str, Any] = {}
    lines_of: dict[str, int] = {}
    lines = yaml_text.split("\n")
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.strip(" ") == "":
            i += 1
            continue
        m = _KEY.match(line)
        if not m:
            return None
        key, value = m.group(1), (m.group(2) or "").rstrip(" ")
        if key in data or key in _SPECIAL_WORDS or len(key) > _MAX_KEY:
            return None
        lines_of[key] = first_line + i
        i += 1
        if value == "":
            items: list[Any] = []
            indent: str | None = None
            while i < n:
                im = _ITEM.match(lines[i])
                if not im:
                    break
                if indent is None:
                    indent = im.group(1)
                elif im.group(1) != indent:
                    return None
                text = im.group(2).rstrip(" ")
                item = _scalar(text, block=True)
                if item is _FAIL or item is None or text.startswith("["):
                    return None
                items.append(item)
                i += 1
            data[key] = items if items else None
            continue
        if value.startswith("[") and not value.endswith("]"):
            # a flow list YAML wrapped over indented lines (PyYAML wraps a long one: a page's many sources);
            # within it a line break reads as a space, as long as no line is blank
            wrapped = [value]
            while i < n and not wrapped[-1].endswith("]") and lines[i].startswith(" ") and lines[i].strip(" "):
                wrapped.append(lines[i].strip(" "))
                i += 1
            value = " ".join(wrapped)
        if value.startswith("[") and value.endswith("]"):
            inner = value[1:-1]
            if "[" in inner or "]" in inner:
                return None
            parsed = _flow_list(inner)
        else:
            parsed = _scalar(value, block=True)
        if parsed is _FAIL:
            return None
        data[key] = parsed
    return data, lines_of
