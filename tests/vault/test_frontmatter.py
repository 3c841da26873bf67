"""Frontmatter: finding the block (`split`), parsing it (`parse`), and the fast subset parser
(`parse_simple`), which must return exactly what `yaml.safe_load` returns, or None."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from wikic.pages.frontmatter import dump_frontmatter
from wikic.vault import frontmatter as fm
from wikic.vault.model import Problem

# ---- split ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "yaml_text", "block_lines", "problems"),
    [
        ("---\ntitle: x\n---\nbody\n", "title: x", 3, []),
        ("---\n---\nbody", "", 2, []),  # an empty block is still a block
        ("---  \ntitle: x\n---\t\n", "title: x", 3, []),  # trailing spaces on the fences
        ("---\na: 1\nb: 2\n---", "a: 1\nb: 2", 4, []),  # no newline after the closing fence
        ("# Title\n---\na: 1\n---\n", None, 0, []),  # not on line 1: just a rule, no problem
        ("no frontmatter\n", None, 0, []),
        ("", None, 0, []),
        ("----\na: 1\n----\n", None, 0, []),  # four dashes are a thematic break
        ("--- a\n", None, 0, []),
        ("\n---\na: 1\n---\n", None, 0, [(2, "must start on line 1")]),
        ("\n\n  \n---\na: 1\n---\n", None, 0, [(4, "must start on line 1")]),
        ("---\na: 1\nbody without a closing fence\n", None, 0, [(1, "not closed")]),
        ("---", None, 0, [(1, "not closed")]),
    ],
)
def test_split(text: str, yaml_text: str | None, block_lines: int, problems: list[tuple[int, str]]) -> None:
    got = fm.split(text)
    assert got.yaml_text == yaml_text
    assert got.block_lines == block_lines
    assert [(p.line, p.rule) for p in got.problems] == [(line, "frontmatter") for line, _ in problems]
    for p, (_, words) in zip(got.problems, problems, strict=True):
        assert words in p.message


# ---- parse ------------------------------------------------------------------------------------------


def one_problem(result: fm.Parsed) -> Problem:
    assert len(result.problems) == 1, result.problems
    return result.problems[0]


def test_parse_simple_mapping() -> None:
    got = fm.parse("title: Hello world\ncreated: 2024-01-31\ntags:\n  - a\n  - b\ncount: 3\nempty:")
    assert got.problems == []
    assert got.data == {
        "title": "Hello world",
        "created": dt.date(2024, 1, 31),
        "tags": ["a", "b"],
        "count": 3,
        "empty": None,
    }


def test_parse_empty_block_is_an_empty_mapping() -> None:
    assert fm.parse("") == fm.Parsed({}, [])
    assert fm.parse("\n\n") == fm.Parsed({}, [])
    assert fm.parse("# only a comment") == fm.Parsed({}, [])


@pytest.mark.parametrize(
    ("yaml_text", "line"),
    [
        ("title: Foo: bar", 2),  # LLM output: a colon inside an unquoted value
        ("title: ok\nsummary: a: b", 3),
        ("a: 1\nb: [unclosed\nc: 3", 3),  # an unclosed bracket or quote: where it opens
        ('a: "unclosed\nb: 1', 2),
        ("a: {b: 1\nc: 2", 2),
        ("a: 1\n  b: 2", 3),  # bad indentation
        ("a:\n- x\n b: 1", 4),
        ("a: @at", 2),  # a reserved indicator
        ("a: \x7f", 2),  # a non-printable character
    ],
)
def test_parse_invalid_yaml_reports_the_file_line(yaml_text: str, line: int) -> None:
    got = fm.parse(yaml_text)
    assert got.data is None
    problem = one_problem(got)
    assert (problem.rule, problem.line) == ("frontmatter", line)
    assert "invalid YAML" in problem.message


def test_parse_line_numbers_follow_first_line() -> None:
    problem = one_problem(fm.parse("a: 1\nb: c: d", first_line=10))
    assert problem.line == 11


@pytest.mark.parametrize(
    ("yaml_text", "line", "kind"),
    [
        ("- a\n- b", 2, "list"),
        ("just a sentence", 2, "str"),
        ("42", 2, "int"),
    ],
)
def test_parse_non_mapping(yaml_text: str, line: int, kind: str) -> None:
    got = fm.parse(yaml_text)
    assert got.data is None
    problem = one_problem(got)
    assert problem.line == line
    assert "mapping" in problem.message and kind in problem.message


def test_parse_duplicate_keys_are_reported_at_the_second_one() -> None:
    got = fm.parse("title: a\ntags: [x]\ntitle: b")
    assert got.data == {"title": "b", "tags": ["x"]}  # what YAML says: the last one wins
    problem = one_problem(got)
    assert problem.line == 4 and "title" in problem.message and "duplicate" in problem.message


def test_parse_duplicate_quoted_key() -> None:
    got = fm.parse('"a b": 1\n\'a b\': 2')
    assert got.data == {"a b": 2}
    assert one_problem(got).line == 3


def test_parse_not_a_duplicate_inside_a_nested_block() -> None:
    got = fm.parse("a: 1\nb:\n  a: 2\nc: |\n  a: 3")
    assert got.problems == []
    assert got.data == {"a": 1, "b": {"a": 2}, "c": "a: 3"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-01-31", dt.date(2024, 1, 31)),
        ("2020-08-21T10:30:00", dt.datetime(2020, 8, 21, 10, 30)),
        ("'2024-01-31'", "2024-01-31"),
        ("2024-1-31", "2024-1-31"),  # not a YAML timestamp
        ("yes", True),
        ("No", False),
        ("on", True),
        ("OFF", False),
        ("y", "y"),  # PyYAML reads only the long forms as booleans
        ("~", None),
        ("null", None),
        ("012", 10),  # YAML 1.1 octal
        ("0o12", "0o12"),
        ("1_000", 1000),
        ("12:30", 750),  # YAML 1.1 base 60
        ("1e3", "1e3"),  # YAML 1.1 floats need a dot
        ("1.5", 1.5),
        ("#tag", None),  # a comment
        ("[On, No]", [True, False]),
        ("[[Target]]", [["Target"]]),  # an unquoted wikilink is a nested list
        ('"[[Target]]"', "[[Target]]"),
    ],
)
def test_parse_yaml_1_1_typing(value: str, expected: Any) -> None:
    got = fm.parse(f"key: {value}")
    assert got.problems == []
    assert same(got.data, {"key": expected})


@pytest.mark.parametrize("value", ["2024-02-30", "2024-13-01", "2023-02-29", "2024-01-01 25:00:00"])
def test_parse_impossible_date_is_a_problem_not_a_crash(value: str) -> None:
    got = fm.parse(f"title: t\ncreated: {value}\nupdated: 2024-01-01")
    assert got.data is None
    problem = one_problem(got)
    assert problem.rule == "frontmatter"
    assert problem.line == 3
    assert value.split()[0] in problem.message


def test_parse_deep_nesting_is_a_problem_not_a_crash() -> None:
    got = fm.parse("a: " + "[" * 20000)
    assert got.data is None
    assert one_problem(got).rule == "frontmatter"


# A "billion laughs": nine levels of nine aliases, 387 million values from 1 KB once expanded.
LAUGHS = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]\n" for n in range(1, 10)
)


@pytest.mark.parametrize(
    ("yaml_text", "line", "column", "written"),
    [
        ("title: X\ntags: &t [a, *t]", 3, 7, "&t"),  # a list inside itself
        (LAUGHS, 2, 5, "&a0"),
        ("title: X\nbase: &b {a: 1}\nother:\n  <<: *b", 3, 7, "&b"),  # a merge key needs an anchor
        ("title: X\nsummary: *bold", 3, 10, "*bold"),  # an alias of nothing: refused the same way
        ("tags:\n  - &x a\n  - b", 3, 5, "&x"),
    ],
)
def test_yaml_anchors_and_aliases_are_refused_at_their_line(yaml_text: str, line: int, column: int,
                                                             written: str) -> None:
    got = fm.parse(yaml_text)
    refused = got.data is None  # (never shown: expanded, the laughs would take the report hours to print)
    assert refused
    problem = one_problem(got)
    assert (problem.rule, problem.line, problem.column) == ("frontmatter", line, column)
    assert problem.message == f"YAML anchors and aliases are not allowed: line {line} ('{written}')"
    page = f"---\n{yaml_text}\n---\n# X\n"
    read_as_text = fm.read_page(page)[::2] == (None, 1)  # no frontmatter: the whole text is the body
    assert read_as_text
    # "&" and "*" that are text, not anchors or aliases, are read as ever
    text = 'title: "A & B"\nsummary: A *bold* claim & more\ntags: ["*x", "&y"]\nnote: |\n  &z *w\n'
    assert fm.parse(text) == fm.Parsed(yaml.safe_load(text), [])


@pytest.mark.parametrize("depth", [101, 150, 990])
@pytest.mark.parametrize("shape", ["[", "{a: "])
def test_values_nested_deeper_than_the_limit_are_refused(depth: int, shape: str) -> None:
    """Obsidian's properties are flat; every reader of a note's frontmatter may walk it by recursion (the
    parse cache's JSON among them), so a block nested 990 deep is refused here rather than read."""
    closing = "]" if shape == "[" else "}"
    got = fm.parse("a: " + shape * (depth - 1) + "x" * (shape != "[") + closing * (depth - 1))
    assert got.data is None
    assert one_problem(got).message == "invalid YAML in frontmatter: values nested deeper than 100 levels"
    shallow = fm.parse("a: " + shape * 99 + "x" * (shape != "[") + closing * 99)
    assert shallow.data is not None and shallow.problems == []


def test_key_lines() -> None:
    text = 'title: T\n"quoted key": 1\ntags:\n  - a\n  - b: c\n# comment: x\nurl:with:colons: 2\nlast:'
    assert fm.key_lines(text) == {"title": 2, "quoted key": 3, "tags": 4, "url:with:colons": 8, "last": 9}


# ---- parse_simple == yaml.safe_load ------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal *and* of the same types all the way down (True == 1 and date == datetime must not pass)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and a != a:
        return b != b  # NaN
    return bool(a == b)


TRICKY = [
    "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "on", "On", "off", "OFF",
    "y", "n", "Y", "N", "null", "Null", "NULL", "nULL", "~", "1e3", "1.5e3", "0o12", "012", "0x1F", "0b101",
    "1_000", "12:30", "190:20:30", ".5", "+1", "-1", "0", "00", "7", "08", "123456789012345678901234567890",
    ".inf", ".NaN", "=", "<<", "a b", "a  b", "a - b", "a -", "-a", "- a", "a:b", "a: b", "a:", "a #b", "a#b",
    "#b", "[[X]]", "[x]", "{x}", "!x", "&x", "*x", "|", ">", "@x", "`x`", "%x", "x%", "x'y", 'x"y', "a\\b",
    "a,b", "a, b", "?", "? x", "x?", "étude", "日本語", "Ünïcode", "a\u00a0", "\u00a0a", "x\x7f", "x\u2028y",
    "x\x85y", "\ufeffx", "x\ufeff", "a/b.md", "raw/articles/x.md", "C#", "x y z", "x ", "Hello, World",
    "“Report 1” is an article. It fed 4 pages.", "«x»", "—x", "…", "¿x?", "€5", "\u3000x", "\u2029x", "é, it's",
]
DATES = ["2024-01-31", "2024-02-29", "2023-02-29", "2024-02-30", "2024-13-01", "2024-00-10", "2024-1-1",
         "2024-01-01T10:00:00", "2024-01-01 10:00:00", "2024-01-01 10:00", "0000-01-01", "9999-12-31",
         "２０２４-０１-０１", "2024-01-01Z"]
CHARS = st.sampled_from(list("abcXYZ09 -_:#'\"\\,[]{}!&*|>%@`?~./é日\u00a0\t"))


@st.composite
def scalars(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from(TRICKY))
    if kind == 1:
        return draw(st.sampled_from(DATES))
    if kind == 2:
        return '"' + draw(st.text(CHARS, max_size=8)) + '"'
    if kind == 3:
        return "'" + draw(st.text(CHARS, max_size=8)) + "'"
    if kind == 4:
        return draw(st.text(CHARS, min_size=1, max_size=10))
    return draw(st.from_regex(r"[A-Za-z][A-Za-z0-9 ._/-]{0,12}", fullmatch=True))


KEYS = st.one_of(
    st.sampled_from(["title", "tags", "aliases", "created", "a", "b_c", "x-y", "Key", "_k", "k1", "yes", "No",
                     "null", "on", "y", "true", "日本", "2024-01-01", "1", "a b", '"q"', "'s'", "a:b", "-k"]),
    st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
)


def wrapped(draw: st.DrawFn, flow: str) -> str:
    """`flow` with line breaks after some of its spaces and commas, each followed by an indent (none, or a
    blank line, now and then), as PyYAML wraps a long flow list."""
    out = []
    for ch in flow:
        out.append(ch)
        if ch in " ," and draw(st.integers(0, 2)) == 0:
            out.append(draw(st.sampled_from(["\n  ", "\n  ", "\n ", "\n    ", "\n", "\n\n  ", "\n  \n  "])))
    return "".join(out)


@st.composite
def entries(draw: st.DrawFn) -> str:
    key = draw(KEYS)
    colon = draw(st.sampled_from([": ", ": ", ":  ", ":", ":\t"]))
    kind = draw(st.integers(0, 5))
    if kind <= 2:
        return key + colon + draw(scalars()) + draw(st.sampled_from(["", "", " ", "  # c"]))
    if kind == 3:
        items = draw(st.lists(scalars(), max_size=4))
        sep = draw(st.sampled_from([", ", ",", " , "]))
        tail = draw(st.sampled_from(["", "", ",", " "]))
        flow = "[" + sep.join(items) + tail + "]"
        return key + colon + (wrapped(draw, flow) if draw(st.booleans()) else flow)
    if kind == 4:
        indent = draw(st.sampled_from(["", "  ", "    ", " "]))
        items = draw(st.lists(scalars(), max_size=4))
        lines = [key + ":"]
        for item in items:
            lines.append(
                draw(st.sampled_from([indent, indent, indent + " "])) + draw(st.sampled_from(["- ", "-  ", "-"])) + item
            )
        return "\n".join(lines)
    return key + ":" + draw(st.sampled_from(["", " ", " ~", " null"]))


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.one_of(entries(), entries(), entries(), st.sampled_from(["", "  ", "# comment", "  continued"])),
            min_size=0,
            max_size=6,
        )
    )
    return "\n".join(parts) + draw(st.sampled_from(["", "\n", "\n\n"]))


@st.composite
def plain_documents(draw: st.DrawFn) -> str:
    """The shapes the subset parser is meant to take (no comments, tabs or flow oddities): most are accepted."""
    lines = []
    for key in draw(st.lists(st.from_regex(r"[a-z][a-z_-]{0,5}", fullmatch=True), min_size=1, max_size=5)):
        value = draw(st.one_of(st.sampled_from(TRICKY), st.sampled_from(DATES), st.just("")))
        if "#" in value or "\t" in value:
            value = "x"
        shape = draw(st.integers(0, 2))
        if shape == 0:
            lines.append(f"{key}: {value}".rstrip())
        elif shape == 1:
            flow = f"[{value}, {draw(st.sampled_from(TRICKY[:20]))}]"
            lines.append(f"{key}: {wrapped(draw, flow) if draw(st.booleans()) else flow}")
        else:
            lines.append(f"{key}:\n  - {value}\n  - {draw(st.sampled_from(DATES))}")
    return "\n".join(lines)


@st.composite
def written_documents(draw: st.DrawFn) -> str:
    """Frontmatter as wikic writes a page's (`dump_frontmatter`, whose PyYAML wraps a flow list past 1,000
    characters: a page many sources feed), with prose holding commas, apostrophes and now and then a
    character YAML minds."""
    prose = st.text(st.sampled_from([*"abcXY z,'.-é日/0" * 20, *":\"[]#"]), min_size=1, max_size=40)
    paths = st.from_regex(r"raw/[a-z]{1,10}/[a-zA-Z0-9é日 ,'._-]{1,40}\.md", fullmatch=True)
    data: dict[str, Any] = {"title": draw(prose), "tags": draw(st.lists(prose, max_size=4))}
    data["sources"] = draw(st.lists(st.one_of(paths, paths, prose), min_size=1, max_size=60))
    data["summary"] = draw(prose)
    return dump_frontmatter(data).removeprefix("---\n").removesuffix("---\n")


def check_simple(text: str) -> None:
    fast = fm.parse_simple(text)
    if fast is None:
        return
    try:
        expected = yaml.safe_load(text)
    except Exception as exc:  # any failure means the subset parser must have declined
        raise AssertionError(f"parse_simple accepted {text!r}, which PyYAML rejects: {exc!r}") from exc
    if expected is None:
        expected = {}
    assert same(fast, expected), (text, fast, expected)
    # parse() falls back to libyaml's loader when it is there: the subset must agree with that one too
    assert same(fast, fm.load_yaml(text) or {}), text
    # the key lines it reads along the way are the ones key_lines finds, and such a block has no duplicate
    parsed, lines = fm.parse_with_lines(text)
    assert lines == fm.key_lines(text) and parsed.problems == [], text


# Texts where the subset parser once disagreed with PyYAML.
KNOWN_DISAGREEMENTS = [
    "a: x\x7fy",  # PyYAML rejects non-printable characters
    "a: x\u2028y",  # ... and treats U+2028 and U+0085 as line breaks
    "a: x\x85y",
    "a: ٢٠٢٤-٠١-٠١",  # Arabic-Indic digits are not a date to YAML
    "a: ２０２４-０１-０１",
    "a: [\u00a0x]",  # YAML trims spaces, not U+00A0
    "a: 1\n\u00a0\nb: 2",
    "a: [x?, y]",  # PyYAML ends a plain scalar at "?" inside a flow list, then fails
    "k" * 1100 + ": v",  # PyYAML allows at most 1024 characters in an implicit key
]


@pytest.mark.parametrize("text", KNOWN_DISAGREEMENTS)
def test_parse_simple_matches_pyyaml_where_it_once_did_not(text: str) -> None:
    check_simple(text)


@pytest.mark.slow  # 600 generated documents
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(documents(), plain_documents(), written_documents()))
def test_parse_simple_matches_pyyaml(text: str) -> None:
    check_simple(text)


@pytest.mark.parametrize(
    "text",
    [
        "title: Hello world\ntype: concept\ncreated: 2024-01-31\nupdated: 2024-02-01\ntags:\n  - rag\n  - llm\n"
        "sources:\n  - raw/articles/x.md\naliases: [Retrieval, RAG]\nconfidence: 3\nsummary: \"A one-line summary\"\n",
        'up: "[[Page]]"\nrelated:\n- "[[A]]"\n- "[[B|b]]"\n',
        'aliases: ["CORAL LAKE", \'Coral, the lake\', coral]\ntags: [a, "b"]\n',
        "",
        # a page many sources feed: its list is longer than a line, and PyYAML wraps it
        dump_frontmatter({"title": "Acme", "type": "entity", "created": dt.date(2026, 1, 2), "tags": ["org"],
                          "sources": [f"raw/articles/quarterly-report-{i}.md" for i in range(60)],
                          "summary": "Acme, a maker of things, is based in Springfield."})[4:-4],
    ],
)
def test_parse_simple_takes_the_common_shapes(text: str) -> None:
    """The subset must cover what wikic and most tools write, or it saves nothing."""
    got = fm.parse_simple(text)
    assert got is not None
    assert same(got, yaml.safe_load(text) or {})


@pytest.mark.parametrize("seed", range(40))
def test_parse_simple_takes_what_wikic_writes_for_a_page_many_sources_feed(seed: int) -> None:
    """A long sources list (PyYAML wraps it over lines) and prose with commas and apostrophes: read here, as
    PyYAML reads them, not handed to PyYAML."""
    rng = random.Random(seed)
    words = ["the", "north", "wing", "réseau", "日本", "Q3-2024", "co-op", "and", "of", "a/b"]

    def prose(n: int, *, said: bool = False) -> str:  # `said`: a sentence, with commas and apostrophes
        picked = [rng.choice([*words, *(["Acme's", "plant,"] if said else [])]) for _ in range(n)]
        return " ".join([rng.choice(["Acme", "Zed", "Él"]), *picked]).strip(",")

    sources = [f"raw/{rng.choice(['articles', 'transcripts'])}/{prose(3).replace(' ', '-')}-{i}.md"
               for i in range(rng.randint(20, 90))]
    data = {"title": prose(2, said=True), "created": dt.date(2026, 1, 2), "type": "entity", "tags": [prose(0)],
            "aliases": [prose(1), prose(2)], "sources": sources, "summary": prose(rng.randint(5, 30), said=True) + "."}
    text = dump_frontmatter(data).removeprefix("---\n").removesuffix("---\n")
    assert fm.parse_simple(text) is not None, text
    check_simple(text)
    assert "\n  raw/" in text or len(", ".join(sources)) < 1000  # the list wraps once it is long


@pytest.mark.slow  # 300 generated documents
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(documents(), plain_documents(), written_documents()))
def test_parse_never_raises_and_agrees_with_pyyaml(text: str) -> None:
    got = fm.parse(text)
    try:
        expected = fm.load_yaml(text)  # the loader parse() uses (libyaml's when installed)
    except Exception:  # noqa: BLE001
        assert got.data is None
        assert any("invalid YAML" in p.message or "anchors and aliases" in p.message for p in got.problems)
        return
    if expected is None:
        expected = {}
    if not isinstance(expected, dict):
        assert got.data is None and any("mapping" in p.message for p in got.problems)
        return
    assert same(got.data, {str(k): v for k, v in expected.items()})


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_the_ascii_check_of_characters_the_subset_declines_is_the_full_one(text: str) -> None:
    """An ASCII block is checked by a pattern of its own (the full one, of every plane, is compiled when a block
    beyond ASCII is first read): both decline the same blocks."""
    assert bool(fm._NOT_SIMPLE_ASCII.search(text)) == bool(fm._not_simple_chars().search(text))
