"""Property tests (hypothesis) for the parser, the resolver, slugs and the frontmatter round trip.

- parser: any bytes parse without an exception; every link, heading, block id and problem sits on a line
  of the file, at a column inside it, and the link's text is found there.
- resolver: a link resolves to a file of the vault or to nothing, never outside it; the result does not
  depend on the order files were listed in, on case (ASCII), or on writing `.md`.
- slugs: file names from any text are safe on every OS and in Obsidian links, stable, and never empty
  where the caller needs a name.
- frontmatter: what the compiler writes (`dump_frontmatter`) is read back (`frontmatter.parse`) as the
  same data, whatever the text in it.

`WIKIC_LONG_TESTS=1` runs many more examples.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata

import gkit
from hypothesis import HealthCheck, example, given, settings, strategies as st

from wikic.pages.frontmatter import dump_frontmatter
from wikic.pages.render import clean_text, clean_title
from wikic.vault import frontmatter
from wikic.vault.parse import decode, parse_note
from wikic.vault.resolve import Resolver
from wikic.vault.slug import MAX_SLUG, PAGE, SOURCE, WINDOWS_RESERVED, slugify

EXAMPLES = gkit.count(150, 3000)
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOKENS = [
    "[[", "]]", "[[a]]", "[[a|b]]", "[[a#H]]", "[[a#^id]]", "[[#H]]", "![[p.png|9]]", "[[../x]]", "[t](x.md)",
    "[t](<a b.md>)", "![i](p.png)", "[x][r]", "[r]: x.md", "`", "```", "~~~", "$", "$$", "%%", "<!--", "-->",
    "<b>", "\\", "|", "\\|", "---", "===", "\n", "\n\n", "    ", "\t", "> ", "- ", "1. ", "# ", "^id", " ^b-1",
    "title: x", "tags: [a]", "\u00a0", "\u3000", "\u200b", "\ufeff", "日本", "é", "e\u0301", "\x00", "\x1f",
    "\r\n", "\r", "\U0001f600", "<!-- wikic:begin k sha=1a2b3c4d -->", "<!-- wikic:end k -->", "&amp;", "*", "_",
]
MARKDOWN = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=4)), max_size=40).map("".join)


def parser_problems(data: bytes) -> list[str]:
    note = parse_note("entities/p.md", data)
    text, _ = decode("entities/p.md", data)
    if text is None:
        return ["unreadable page has links"] if note.links or note.headings else []
    lines = text.split("\n")
    problems = []
    for link in note.links:
        if not 1 <= link.line <= len(lines):
            problems.append(f"{link.raw!r} on line {link.line} of {len(lines)}")
            continue
        line = lines[link.line - 1]
        if link.kind != "frontmatter" and not line[link.column - 1 :].startswith(link.raw.split("\n")[0]):
            problems.append(f"{link.raw!r} is not at {link.line}:{link.column} ({line!r})")
    problems += [f"heading on line {h.line}" for h in note.headings if not 1 <= h.line <= len(lines)]
    problems += [f"^{b.id} not on line {b.line}" for b in note.blocks
                 if not 1 <= b.line <= len(lines) or f"^{b.id}" not in lines[b.line - 1]]
    problems += [
        f"problem on line {p.line}" for p in note.problems if p.line is not None and not 1 <= p.line <= len(lines) + 1
    ]
    if note.frontmatter is not None and not all(isinstance(k, str) for k in note.frontmatter):
        problems.append("frontmatter keys are not strings")
    return problems


@PROPERTY
@given(st.binary(max_size=3000))
def test_any_bytes_parse(data: bytes) -> None:
    assert parser_problems(data) == []


@PROPERTY
@given(MARKDOWN, st.sampled_from(["", "---\ntitle: t\n---\n", "---\n", "\n---\na: [\n---\n"]))
@example("%%\n[[hidden]]\n%%\n\u00a0\n[[m]]\n", "")  # a line holding only a NBSP before a paragraph
@example("> \u00a0\n> [[m]] x\n", "")
@example("x" * 9000 + "\n| a [[t]] \x00 | b |\n|---|---|\n| [[u]] \x00 | c |\n", "")  # NUL past the binary sniff
@example("- ]\n\t[[/abs]]", "")  # a tab in a list continuation, which markdown-it turns into spaces
@example("```\n\n```\n- ]\n\t\t\t\t\t]] --> b [[y]]", "")
def test_markdown_parses_with_exact_positions(body: str, head: str) -> None:
    assert parser_problems((head + body).encode("utf-8", "surrogatepass")) == []


FILES = st.lists(
    st.builds(
        lambda folder, name, ext: f"{folder}{name}{ext}",
        st.sampled_from(["", "entities/", "concepts/", "a/b/", "raw/articles/", "Ünï/"]),
        st.sampled_from(["openai", "OpenAI", "note", "Note", "x y", "日本", "page", "a.b", "index"]),
        st.sampled_from([".md", ".md", ".png", ".pdf"]),
    ),
    min_size=1, max_size=12, unique=True,
)
TARGETS = st.one_of(
    st.sampled_from(["openai", "OPENAI", "note.md", "a/b/page", "../x", "../../../etc/passwd", "/entities/note",
                     "./page", "", "日本", "x y", "img.png", "a.b", "index", "..", ".", "entities/../note"]),
    st.text(alphabet="abn/.xyé日 ", max_size=12),
)


@PROPERTY
@given(FILES, st.sampled_from(["entities/src.md", "src.md", "a/b/src.md"]), TARGETS, st.randoms())
def test_links_resolve_inside_the_vault_whatever_the_order(
    files: list[str], source: str, target: str, rnd: random.Random
) -> None:
    resolver = Resolver(files)
    hit = resolver.resolve(source, target)
    assert hit.path is None or hit.path in files or hit.path == source
    assert all(c in files for c in hit.candidates)
    shuffled = list(files)
    rnd.shuffle(shuffled)
    assert Resolver(shuffled).resolve(source, target) == hit
    if target.isascii():
        assert Resolver(files).resolve(source, target.upper()).path == hit.path
    if hit.path and hit.path.endswith(".md") and target and not target.endswith((".md", "/")):
        assert Resolver(files).resolve(source, target + ".md").path == hit.path


def _safe_char(c: str) -> bool:
    return c in "-_" or unicodedata.category(c)[0] in "LMN"  # letters, combining marks, digits


@PROPERTY
@given(st.text(max_size=300))
@example("CON")
@example("con.txt")
@example("../../etc/passwd")
@example("Cafe\u0301")
@example("a" * 500)
@example("\u0130")  # casefolds to i + a combining dot
@example("\u01f0")  # casefolds to j + a combining caron, which NFC composes again
def test_slugs_are_safe_file_names(text: str) -> None:
    for slug, limit in ((slugify(text), MAX_SLUG), (slugify(text, rules=SOURCE), MAX_SLUG)):
        if not slug:
            continue
        assert all(_safe_char(c) for c in slug), slug
        assert "--" not in slug and not slug.startswith("-") and not slug.endswith("-")
        assert len(slug) <= limit + len("-source") and slug not in WINDOWS_RESERVED
        assert slug.split(".")[0].lower() not in WINDOWS_RESERVED
        assert unicodedata.normalize("NFC", slug) == slug and slug not in (".", "..")
    assert slugify(slugify(text)) == slugify(text)
    assert slugify(text, rules=SOURCE)  # a source always gets a name


@PROPERTY
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=120))
@example("Altman's  --CON--")
def test_an_ascii_name_is_slugged_as_any_other(text: str) -> None:
    """ASCII names take a shorter way (no normalization can change them); an ideographic space after the
    name, a separator, sends the same name the general way, to the same slug."""
    for rules in (PAGE, SOURCE):
        assert slugify(text, rules=rules) == slugify(text + "\u3000", rules=rules)


@PROPERTY
@given(st.text(max_size=400))
def test_model_text_cannot_open_a_link_comment_or_block(text: str) -> None:
    for cleaned in (clean_text(text), clean_title(text)):
        assert "\n" not in cleaned and "[[" not in cleaned and "]]" not in cleaned and "%%" not in cleaned
    cleaned = clean_text(text)
    assert "](" not in cleaned and "`" not in cleaned and "<" not in cleaned
    page = f"# T\n\n- {cleaned} ^[raw/a.md:L1]\n\n{cleaned}\n"
    note = parse_note("entities/t.md", page.encode("utf-8"))
    assert [lk for lk in note.links if lk.kind != "frontmatter"] == []
    assert not [p for p in note.problems if p.rule == "malformed-link"]


SCALAR = st.text(max_size=60)
DATES = st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 12, 31))


@st.composite
def frontmatters(draw: st.DrawFn) -> dict:  # type: ignore[type-arg]
    data = {
        "title": draw(SCALAR.filter(bool)),
        "created": draw(DATES),
        "updated": draw(DATES),
        "type": draw(st.sampled_from(["entity", "concept", "comparison", "query"])),
        "tags": draw(st.lists(SCALAR, max_size=4)),
        "aliases": draw(st.lists(SCALAR, max_size=4)),
        "sources": draw(st.lists(SCALAR, max_size=4)),
        "summary": draw(SCALAR),
    }
    if draw(st.booleans()):
        data["question"] = draw(SCALAR.filter(bool))
        data["cited"] = draw(st.dictionaries(SCALAR.filter(bool), SCALAR, max_size=3))
    if draw(st.booleans()):
        data["contested"] = draw(st.booleans())
        data["confidence"] = draw(st.one_of(st.integers(-5, 5), st.floats(0, 1, allow_nan=False)))
    return data


@PROPERTY
@given(frontmatters())
@example({"title": "title: x\n---\ntype: query", "created": dt.date(2026, 1, 1), "updated": dt.date(2026, 1, 2),
          "type": "entity", "tags": ["- x", "#tag"], "aliases": ["&a", "*a", "!!python/object"], "sources": ["[[x]]"],
          "summary": "'\"\\\x00\u2028\U0001f600"})
@example({"title": "2026-01-01", "created": dt.date(2026, 1, 1), "updated": dt.date(2026, 1, 1), "type": "entity",
          "tags": ["yes", "null", "1e3", "0x10", "~", ""], "aliases": [], "sources": [], "summary": ""})
def test_frontmatter_round_trips(data: dict) -> None:  # type: ignore[type-arg]
    text = dump_frontmatter(data)
    split = frontmatter.split(text + "# Body\n")
    assert split.yaml_text is not None and split.block_lines == text.count("\n")
    parsed = frontmatter.parse(split.yaml_text)
    assert parsed.problems == [], parsed.problems
    # the compiler leaves out empty optional keys of its own (aliases, summary); every other key stays
    expected = {k: v for k, v in data.items() if k not in ("aliases", "summary") or v not in (None, [], "")}
    assert parsed.data == expected
