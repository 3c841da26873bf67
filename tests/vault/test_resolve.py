"""The link resolver against Obsidian's resolution rules as docs/vault-format.md states them."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from wikic.vault.parse import parse_note
from wikic.vault.resolve import Resolution, Resolver, fold_name, heading_key

NFD_RESUME = unicodedata.normalize("NFD", "Résumé")

FILES = [
    "index.md",
    "Target.md",
    "Other Note.md",
    "Note [draft].md",
    "Café.md",  # NFC on disk
    f"{NFD_RESUME}.md",  # NFD on disk (as macOS writes it)
    "Three laws of motion.md", "notes/Dup.md", "notes/Target.md", "notes/Source2.md", "archive/Dup.md",
    "deep/er/Deep Note.md", "assets/image.png", "assets/Figure 1.png", "assets/Document.pdf", "Projects/Page.md",
    "Projects/Sub/Page.md", "a/b/Same.md", "a/c/Same.md", "x/Same.md", "zz/Same.md", "a/b/c/Deep.md", "q/a/b/c/Deep.md",
    "Mixed/CASE Name.md", "dir.md", "dir/child.md",
]


@pytest.fixture(scope="module")
def resolver() -> Resolver:
    return Resolver(FILES)


def resolve(resolver: Resolver, source: str, target: str) -> tuple[str | None, tuple[str, ...]]:
    r = resolver.resolve(source, target)
    return r.path, r.candidates


# (source, target, expected path, expected candidates)
CASES = [
    # 2. an empty path is the source itself ([[#Heading]])
    ("notes/Source2.md", "", "notes/Source2.md", ()),
    # case-insensitive, .md optional for notes
    ("index.md", "Target", "Target.md", ()),
    ("index.md", "target", "Target.md", ()),
    ("index.md", "TARGET.MD", "Target.md", ()),
    ("index.md", "Target.md", "Target.md", ()),
    ("index.md", "mixed/case name", "Mixed/CASE Name.md", ()),
    # .md required for attachments: "image" does not reach image.png
    ("index.md", "image", None, ()),
    ("index.md", "image.png", "assets/image.png", ()),
    ("index.md", "IMAGE.PNG", "assets/image.png", ()),
    ("index.md", "Figure 1", None, ()),
    ("index.md", "Figure 1.png", "assets/Figure 1.png", ()),
    ("index.md", "assets/image.png", "assets/image.png", ()),
    ("index.md", "Document.pdf", "assets/Document.pdf", ()),
    ("index.md", "image.png.md", None, ()),
    # 3. ./ and ../ are relative to the source's folder, exact only
    ("notes/Source2.md", "./Dup", "notes/Dup.md", ()),
    ("notes/Source2.md", "./dup.MD", "notes/Dup.md", ()),
    ("notes/Source2.md", "../Target", "Target.md", ()),
    ("notes/Source2.md", "../archive/Dup", "archive/Dup.md", ()),
    ("deep/er/x.md", "../../Target.md", "Target.md", ()),
    ("notes/Source2.md", "./Deep Note", None, ()),  # exact only: no search by name from a ./ path
    ("notes/Source2.md", "./", None, ()),
    # ".." escaping the vault: unresolved
    ("index.md", "../Target", None, ()),
    ("notes/Source2.md", "../../Target", None, ()),
    ("index.md", "/../Target", None, ()),
    ("index.md", "a/../../Target", None, ()),
    # 3. /x is vault-absolute, exact only
    ("index.md", "/Target", "Target.md", ()),
    ("notes/Source2.md", "/Target", "Target.md", ()),  # not notes/Target.md
    ("index.md", "/notes/dup", "notes/Dup.md", ()),
    ("index.md", "/Dup", None, ()),
    ("index.md", "/notes/../Target", "Target.md", ()),
    # 4. relative to the source's folder first ...
    ("notes/Source2.md", "Target", "notes/Target.md", ()),
    ("notes/Source2.md", "Dup", "notes/Dup.md", ()),
    ("Projects/x.md", "Page", "Projects/Page.md", ()),
    ("Projects/x.md", "Sub/Page", "Projects/Sub/Page.md", ()),
    # ... then from the vault root ...
    ("index.md", "notes/Dup", "notes/Dup.md", ()),
    ("archive/x.md", "notes/Target", "notes/Target.md", ()),
    ("archive/x.md", "Target", "Target.md", ()),  # a root file beats notes/Target.md, unambiguously
    ("index.md", "notes/../Target", "Target.md", ()),
    # ... then a bare name anywhere ...
    ("index.md", "Deep Note", "deep/er/Deep Note.md", ()),
    ("index.md", "deep note.md", "deep/er/Deep Note.md", ()),
    ("notes/Source2.md", "Deep Note", "deep/er/Deep Note.md", ()),
    # ... then a suffix of the path
    ("index.md", "er/Deep Note", "deep/er/Deep Note.md", ()),
    ("index.md", "deep/er/Deep Note", "deep/er/Deep Note.md", ()),
    ("index.md", "r/Deep Note", None, ()),  # a suffix ends at a "/", not inside a folder name
    ("index.md", "eep Note", None, ()),
    ("index.md", "Nothing", None, ()),
    # 5. ambiguity: same folder, then fewest segments, then shortest, then alphabetical; candidates reported
    ("index.md", "Dup", "notes/Dup.md", ("archive/Dup.md", "notes/Dup.md")),  # shorter path wins
    ("other/x.md", "Dup", "notes/Dup.md", ("archive/Dup.md", "notes/Dup.md")),
    ("index.md", "Page", "Projects/Page.md", ("Projects/Page.md", "Projects/Sub/Page.md")),  # fewer segments
    ("index.md", "Same", "x/Same.md", ("a/b/Same.md", "a/c/Same.md", "x/Same.md", "zz/Same.md")),
    ("zz/q/x.md", "Same", "x/Same.md", ("a/b/Same.md", "a/c/Same.md", "x/Same.md", "zz/Same.md")),
    ("index.md", "b/c/Deep", "a/b/c/Deep.md", ("a/b/c/Deep.md", "q/a/b/c/Deep.md")),
    ("q/a/b/c/x.md", "c/Deep", "q/a/b/c/Deep.md", ("a/b/c/Deep.md", "q/a/b/c/Deep.md")),  # same folder first
    ("Q/A/B/C/x.md", "c/Deep", "q/a/b/c/Deep.md", ("a/b/c/Deep.md", "q/a/b/c/Deep.md")),  # compared case-folded
    # names with spaces and brackets
    ("index.md", "Other Note", "Other Note.md", ()),
    ("index.md", "Note [draft]", "Note [draft].md", ()),
    ("index.md", "Three laws of motion", "Three laws of motion.md", ()),
    # Unicode: NFC and NFD spellings are the same name
    ("index.md", "Café", "Café.md", ()),
    ("index.md", unicodedata.normalize("NFD", "Café"), "Café.md", ()),
    ("index.md", "café", "Café.md", ()),
    ("index.md", "Résumé", f"{NFD_RESUME}.md", ()),
    ("index.md", "RÉSUMÉ", f"{NFD_RESUME}.md", ()),
    # a note and a folder of the same name
    ("index.md", "dir", "dir.md", ()),
    ("index.md", "dir/child", "dir/child.md", ()),
    # Windows separators
    ("index.md", "notes\\Dup", "notes/Dup.md", ()),
]


@pytest.mark.parametrize(("source", "target", "path", "candidates"), CASES, ids=[f"{s}->{t}" for s, t, _, _ in CASES])
def test_resolve(resolver: Resolver, source: str, target: str, path: str | None, candidates: tuple[str, ...]) -> None:
    assert resolve(resolver, source, target) == (path, candidates)


def test_resolution_is_cached_per_folder_and_stable(resolver: Resolver) -> None:
    first = resolver.resolve("notes/a.md", "Dup")
    assert resolver.resolve("notes/b.md", "Dup") is first  # same folder, same answer object
    assert resolver.resolve("archive/a.md", "Dup") == Resolution("archive/Dup.md", ())


def test_a_name_one_file_ends_with_is_worked_out_once_for_every_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bare name that only one file's path ends with lands on that file from any folder: it is worked out once,
    not once a folder. A name several files end with ("Dup", "Target": one at the root, one in notes/) is
    still worked out from each folder, where the linking folder decides."""
    r = Resolver(FILES)
    worked_out: list[str] = []
    real = r._resolve

    def counted(folder: str, target: str) -> Resolution:
        worked_out.append(target)
        return real(folder, target)

    monkeypatch.setattr(r, "_resolve", counted)
    sources = ["index.md", "notes/a.md", "archive/b.md", "deep/er/c.md", "a/b/c/d.md", "Projects/Sub/e.md"]
    targets = ["Three laws of motion", "deep note", "nowhere", "Dup", "Target", "Same"]
    got = {(s, t): r.resolve(s, t) for t in targets for s in sources}
    assert [worked_out.count(t) for t in targets] == [1, 1, 1, len(sources), len(sources), len(sources)]
    fresh = {(s, t): Resolver(FILES).resolve(s, t) for t in targets for s in sources}
    assert got == fresh
    assert got["notes/a.md", "Target"].path == "notes/Target.md" and got["index.md", "Target"].path == "Target.md"


def test_same_note_link_is_each_source_itself(resolver: Resolver) -> None:
    """[[#Heading]] resolves to the linking note, even for two notes in one folder (the per-folder cache
    must not hand the first note's answer to the second)."""
    assert resolver.resolve("notes/Dup.md", "").path == "notes/Dup.md"
    assert resolver.resolve("notes/Target.md", "").path == "notes/Target.md"
    assert resolver.resolve("notes/Dup.md", "").path == "notes/Dup.md"


def test_tie_break_is_independent_of_listing_order() -> None:
    files = ["b/Dup.md", "a/Dup.md", "c/d/Dup.md"]
    answers = {Resolver(order).resolve("index.md", "Dup") for order in (files, files[::-1], sorted(files))}
    assert answers == {Resolution("a/Dup.md", ("a/Dup.md", "b/Dup.md", "c/d/Dup.md"))}


def test_note_preferred_over_attachment_of_the_same_stem() -> None:
    r = Resolver(["x/Chart.png", "y/Chart.md"])
    assert r.resolve("index.md", "Chart") == Resolution("y/Chart.md", ())
    assert r.resolve("index.md", "Chart.png") == Resolution("x/Chart.png", ())


def test_exists_and_by_stem(resolver: Resolver) -> None:
    assert resolver.exists("target.md") and resolver.exists("Target") and resolver.exists("ASSETS/image.png")
    assert not resolver.exists("image")
    assert resolver.by_stem("dup") == ["archive/Dup.md", "notes/Dup.md"]
    assert resolver.by_stem("nothing") == []


def test_fold() -> None:
    assert fold_name("ÉCOLE") == fold_name(unicodedata.normalize("NFD", "école")) == "école"
    assert fold_name("Straße") == "straße"  # lower(), not casefold(): "ß" is not "ss" to Obsidian


# 1. and 6.: the parser splits the link, and aliases never resolve


def _links(src: str) -> list[tuple[str, str, str | None]]:
    note = parse_note("notes/Source2.md", src.encode())
    return [(lk.target, lk.subpath, lk.alias) for lk in note.links]


def test_split_at_first_pipe_then_first_hash_then_trim(resolver: Resolver) -> None:
    assert _links("[[ Target # Some Heading | shown | more ]]") == [("Target", "Some Heading", " shown | more ")]
    assert _links("[[Target#H1#H2|a#b]]") == [("Target", "H1#H2", "a#b")]
    assert resolver.resolve("notes/Source2.md", "Target").path == "notes/Target.md"


def test_table_pipe_is_unescaped_before_splitting() -> None:
    assert _links("| a |\n|---|\n| [[Target#H\\|alias]] |\n") == [("Target", "H", "alias")]


def test_aliases_never_resolve() -> None:
    note = parse_note("Artificial Intelligence.md", b"---\naliases: [AI, Sam Altman]\n---\n# AI\n")
    assert note.frontmatter == {"aliases": ["AI", "Sam Altman"]}
    r = Resolver(["Artificial Intelligence.md", "sam-altman.md", "index.md"])
    assert r.resolve("index.md", "AI") == Resolution(None, ())
    assert r.resolve("index.md", "Sam Altman") == Resolution(None, ())  # a title is not a file name
    assert r.resolve("index.md", "Artificial Intelligence") == Resolution("Artificial Intelligence.md", ())


def test_markdown_link_targets_are_decoded_then_resolved(resolver: Resolver) -> None:
    note = parse_note(
        "notes/Source2.md", b"[a](../Three%20laws%20of%20motion.md) [b](<../Other Note.md>) [c](Dup.md#Sec%201)"
    )
    got = [(resolver.resolve(note.path, lk.target).path, lk.subpath) for lk in note.links]
    assert got == [("Three laws of motion.md", ""), ("Other Note.md", ""), ("notes/Dup.md", "Sec 1")]


# 7. headings compare after normalising case, whitespace and punctuation


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Heading", "heading"),
        ("Two  Words", "two words"),
        ("  padded  ", "padded"),
        ("Tabs\tand\nnewlines", "tabs and newlines"),
        ("C# notes", "C notes"),  # "#" cannot be in a link's heading anyway: [[P#C# notes]] splits there
        ("What's new?", "what's new"),
        ("Überblick", "ÜBERBLICK"),
        ("Café", unicodedata.normalize("NFD", "café")),
        ("日本語の見出し", "日本語の見出し"),
        ("A: B", "a b"),
        ("snake_case", "snake case"),
    ],
)
def test_heading_key_matches(a: str, b: str) -> None:
    assert heading_key(a) == heading_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Intro", "Introduction"),
        ("Part 1", "Part 2"),
        ("日本", "日本語"),
        ("ab", "a b"),  # word boundaries matter
    ],
)
def test_heading_key_differs(a: str, b: str) -> None:
    assert heading_key(a) != heading_key(b)


def test_heading_key_of_parsed_heading_matches_link_subpath() -> None:
    note = parse_note("n.md", b"## Sub-heading: *Details* ##\n\nSee [[#sub heading details]].\n")
    (heading,) = note.headings
    (link,) = note.links
    assert heading_key(heading.text) == heading_key(link.subpath)


def _reference_suffixes(files: list[str]) -> dict[str, list[str]]:
    """Every suffix's files, worked out for all at once (as the resolver first did)."""
    out: dict[str, list[str]] = {}
    for path in sorted(files):
        suffix = fold_name(path)
        is_note = suffix.endswith(".md")
        while True:
            out.setdefault(suffix, []).append(path)
            if is_note:
                out.setdefault(suffix[:-3], []).append(path)
            cut = suffix.find("/")
            if cut < 0:
                break
            suffix = suffix[cut + 1 :]
    return out


_PART = st.sampled_from(["a", "A", "b", "a.md", "é", "e\u0301", "x y", "c.md.md", ".hidden"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(lambda parts, ext: "/".join(parts) + ext, st.lists(_PART, min_size=1, max_size=3),
                          st.sampled_from([".md", "", ".png", ".MD"])), max_size=12, unique=True),
       st.lists(st.builds("/".join, st.lists(_PART, min_size=1, max_size=3)), max_size=6))
def test_the_files_a_suffix_names_are_those_of_every_suffix_worked_out_at_once(
    files: list[str], asked: list[str]
) -> None:
    resolver = Resolver(files)
    reference = _reference_suffixes(files)
    for suffix in [*reference, *(fold_name(a) for a in asked), *(fold_name(a) + ".md" for a in asked)]:
        assert resolver._suffix.get(suffix) == reference.get(suffix), suffix
