"""A lint after a few pages were edited, added or removed judges those pages and the pages that read them, from
the last whole lint's findings (`lint/changed.py`, `lint/whole_update.py`), without reading the vault; its
findings are a cold lint's, whatever the change: an edit that keeps what other pages read of a page (text moved,
sentences added, a claim changed, a link moved), one that changes it (a title, a heading: the vault is then
linted whole), a page added or removed, and any sequence of them."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from library import run_lint
from testkit import TimedVault as Vault, make_vault, page

from wikic.lint import changed as changed_module, whole_update
from wikic.lint.run import LintOptions
from wikic.pages.fingerprint import page_fingerprint
from wikic.vault import load as load_module
from wikic.vault.formats.sources import SourceEntry, read_sources, write_sources
from wikic.vault.resolve import Resolver

TODAY = dt.date(2026, 6, 1)
RAW = ("raw/articles/source-a.md", "raw/articles/source-b.md")


def subject(title: str, body: str = "", links: str = "", **extra: Any) -> str:
    text = (f"# {title}\n\n{title} is a subject of this wiki.\n\n## History\n\nIt began. ^b0\n\n## People\n\n"
            f"{body}\n{links}\n")
    return page(title, body=text, **{"sources": [RAW[0]], **extra})


def query(cited: dict[str, str]) -> str:
    return page("Why acme", type="query", summary="Because.", cited=cited, sources=[RAW[0]], created="2026-05-20",
                updated="2026-05-20", body="# Why acme\n\nSee [[acme]] and [[bolt#History]].\n")


PAGES = {
    "entities/acme.md": subject("Acme", links="[[bolt]] [[cargo#People]] [[missing page]]", aliases=["Acme Corp"],
                                contradictions=["[[bolt]]"], contested=True),
    "entities/bolt.md": subject("Bolt", links="[[acme]] [[Acme Corp]] [[cargo]]", contradictions=["[[acme]]"]),
    "entities/cargo.md": subject("Cargo", links="[[acme#History]] [[bolt#^b0]] [[setup]]"),
    "entities/setup.md": subject("Setup", links="[[acme]]"),
    "concepts/setup.md": subject("Setup", type="concept", links="[[bolt]]"),
    # a hub: what each source gave the wiki is told by the pages listing it in their sources
    "sources/source-a.md": page(
        "Source A", type="source", sources=[RAW[0]],
        body="# Source A\n\n[[acme]] [[bolt]] [[cargo]] [[entities/setup]] [[concepts/setup]]\n"),
}


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    root = make_vault(tmp_path, dict(PAGES))
    v = Vault(root, TODAY)
    for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()):
        v.write(path, (root / path).read_text(encoding="utf-8"))
    v.write("queries/why-acme.md", query({"entities/acme.md": page_fingerprint(v.read("entities/acme.md"))}))
    v.same_as_cold()  # the whole lint whose findings are the base
    return v


@pytest.fixture
def used(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each lint was made from the base (True) or read the vault whole (False)."""
    seen: list[bool] = []
    real = changed_module.lint_changed

    def spy(*args: Any, **kwargs: Any) -> Any:
        made = real(*args, **kwargs)
        seen.append(made is not None)
        return made

    monkeypatch.setattr(changed_module, "lint_changed", spy)
    return seen


def _no_load(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the vault was read whole")


def from_the_base(vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """The findings of a lint made from the last whole lint's base without reading the vault, asserted to be a
    cold lint's."""
    monkeypatch.setattr(load_module, "load_vault", _no_load)
    warm = vault.lint(cache=True)
    assert used[-1] is True
    monkeypatch.undo()
    assert warm == vault.lint(cache=False)
    return warm


def test_a_page_edited_in_its_text_is_judged_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = vault.root / ".wikic" / "cache"
    kept = {p.name: p.read_bytes() for p in cache.iterdir() if p.name != "lint-report.json"}
    before = vault.lint(cache=True)
    text = vault.read("entities/bolt.md").replace("It began.", "Nothing here yet.\n\nIt began in a garage.")
    vault.write("entities/bolt.md", text.replace("## People\n", "## People\n\nA sentence with no source.\n"))

    def no_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the vault was read whole")

    monkeypatch.setattr(load_module, "load_vault", no_load)
    warm = vault.lint(cache=True)
    assert used[-1] is True
    monkeypatch.undo()
    assert warm == vault.lint(cache=False) != before  # lines moved: the findings on bolt.md with them
    # only the report was written: the base and every other cache are the whole lint's
    assert {p.name: p.read_bytes() for p in cache.iterdir() if p.name != "lint-report.json"} == kept


def test_a_query_page_citing_an_edited_page_is_judged_again(vault: Vault, used: list[bool]) -> None:
    assert not any(f["rule"] == "stale-page" and f["path"] == "queries/why-acme.md" for f in vault.same_as_cold())
    vault.write("entities/acme.md", vault.read("entities/acme.md").replace("It began.", "It began in 1999."))
    found = vault.same_as_cold()
    assert used[-1] is True
    assert any(f["rule"] == "stale-page" and f["path"] == "queries/why-acme.md" for f in found)


@pytest.mark.parametrize("edit", [
    ("entities/acme.md", "title: Acme", "title: Bolt"),  # a name other pages' hints and duplicates read
    ("entities/acme.md", "## History", "## Origins"),  # a heading another page links into
    ("entities/bolt.md", "It began. ^b0", "It began."),  # a block id another page links to
    ("entities/setup.md", "articles/source-a", "articles/source-b"),  # the sources a hub is told by
])
def test_an_edit_to_what_other_pages_read_is_followed_from_the_base(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str, str]
) -> None:
    path, old, new = edit
    text = vault.read(path)
    assert old in text
    before = vault.lint(cache=True)
    vault.write(path, text.replace(old, new, 1))
    warm = from_the_base(vault, used, monkeypatch)
    assert [f for f in warm if f["path"] != path] != [f for f in before if f["path"] != path]  # another page's


def test_a_page_named_as_contradicting_another_changed_lints_the_vault_whole(vault: Vault, used: list[bool]) -> None:
    vault.write("entities/bolt.md", vault.read("entities/bolt.md").replace("- '[[acme]]'", "- '[[cargo]]'", 1))
    vault.same_as_cold()
    assert used[-1] is False


def test_a_link_moved_on_an_edited_page_moves_the_orphans_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not any(f["rule"] == "orphan-page" and f["path"] == "entities/setup.md" for f in vault.same_as_cold())
    vault.write("entities/cargo.md", vault.read("entities/cargo.md").replace("[[setup]]", "[[nowhere]]"))
    warm = from_the_base(vault, used, monkeypatch)
    assert any(f["rule"] == "orphan-page" and f["path"] == "entities/setup.md" for f in warm)


def test_a_page_added_then_removed_is_judged_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = vault.lint(cache=False)
    vault.write("entities/dyno.md", subject("Dyno", links="[[acme]] [[bolt]]", aliases=["Acme Corp"]))
    warm = from_the_base(vault, used, monkeypatch)
    new = [f for f in warm if f not in cold]
    # an orphan, missing from the index and its source's page, and an alias acme.md carries too
    assert {("orphan-page", "entities/dyno.md"), ("index-gap", "entities/dyno.md"),
            ("index-gap", "sources/source-a.md"), ("duplicate-page", "entities/acme.md")} <= {
        (f["rule"], f["path"]) for f in new}
    assert any("entities/dyno.md" in str(f["message"]) for f in new if f["path"] == "sources/source-a.md")
    vault.remove("entities/dyno.md")
    monkeypatch.setattr(load_module, "load_vault", _no_load)
    assert vault.lint(cache=True) == cold
    assert used[-1] is True


def test_a_page_removed_breaks_the_links_to_it_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault.remove("entities/cargo.md")
    warm = from_the_base(vault, used, monkeypatch)
    broken = {f["path"] for f in warm if f["rule"] == "broken-wikilink" and "cargo" in str(f["target"])}
    assert {"entities/acme.md", "entities/bolt.md", "sources/source-a.md"} <= broken


def _resolving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Vault, list[tuple[str, list[str]]]]:
    """A vault linted whole with every note keeping where its links landed (index.md's, at MANY_LINKS 256), and
    the links each note has resolved since (its path, their targets)."""
    monkeypatch.setattr(whole_update, "MANY_LINKS", 1)
    vault = Vault(make_vault(tmp_path, dict(PAGES)), TODAY)
    vault.same_as_cold()
    asked: list[tuple[str, list[str]]] = []
    real = Resolver.resolve_all

    def spy(self: Resolver, source: str, targets: Any) -> Any:
        targets = list(targets)
        asked.append((source, targets))
        return real(self, source, targets)

    monkeypatch.setattr(Resolver, "resolve_all", spy)
    return vault, asked


def test_the_links_of_a_note_of_many_links_are_taken_from_the_base_but_those_reaching_a_change(
    tmp_path: Path, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, asked = _resolving(tmp_path, monkeypatch)
    vault.remove("entities/cargo.md")  # linked from acme, bolt and the source page (and listed in index.md)
    from_the_base(vault, used, monkeypatch)
    index = [targets for source, targets in asked if source == "index.md"]
    assert index and all(t == "cargo" for t in index[0])  # of index.md's links, only the one naming cargo


def test_an_edited_note_of_many_links_resolves_only_its_links_the_base_did_not_hold(
    tmp_path: Path, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, asked = _resolving(tmp_path, monkeypatch)
    # index.md as an ingest leaves it: an entry added (to a page that is not there) and its entries moved about
    index = vault.read("index.md")
    vault.write("index.md", index.replace("[[acme]]", "[[nowhere]] [[bolt]] [[acme]]"))
    warm = from_the_base(vault, used, monkeypatch)
    assert [targets for source, targets in asked if source == "index.md"] == [["nowhere"]]
    assert any(f["rule"] == "index-gap" and f["path"] == "index.md" and "nowhere" in str(f["message"]) for f in warm)


def test_an_edited_note_of_many_links_finds_the_page_added_that_a_kept_link_names(
    tmp_path: Path, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(whole_update, "MANY_LINKS", 1)
    vault = Vault(make_vault(tmp_path, dict(PAGES)), TODAY)
    vault.write("index.md", vault.read("index.md").replace("[[acme]]", "[[acme]] [[dyno]]"))  # not written yet
    vault.same_as_cold()
    vault.write("index.md", vault.read("index.md").replace("[[bolt]]", "[[bolt]] [[nowhere]]"))
    vault.write("entities/dyno.md", ADDED["entities/dyno.md"])  # what index.md's kept link to dyno now reaches
    warm = from_the_base(vault, used, monkeypatch)
    gaps = {(f["path"], str(f["message"])) for f in warm if f["rule"] == "index-gap"}
    assert ("entities/dyno.md", "page is not listed in index.md") not in gaps  # its entry reaches it now
    assert not any(path == "index.md" and "dyno" in message for path, message in gaps)


def test_a_damaged_record_of_where_links_landed_lints_the_vault_whole(
    tmp_path: Path, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(whole_update, "MANY_LINKS", 1)
    root = make_vault(tmp_path, dict(PAGES))
    vault = Vault(root, TODAY)
    vault.same_as_cold()
    base = root / ".wikic" / changed_module.BASE
    lines = base.read_text(encoding="utf-8").split("\n")
    damaged = [line.split("\t")[0] + '\t["x"]' if line.startswith(f'"{whole_update.LANDS}') else line
               for line in lines]  # each key is written quoted
    assert damaged != lines
    base.write_text("\n".join(damaged), encoding="utf-8")
    vault.remove("entities/cargo.md")
    before = len(used)
    vault.same_as_cold()
    assert used[before:] == [False]  # the damaged line found: the vault linted whole


@pytest.mark.parametrize("path, old, new", [
    ("index.md", "[[acme]]", "[[acme]] [[nowhere]]"),  # an entry added that leads nowhere
    ("index.md", "[[bolt]]", ""),  # an entry dropped: bolt.md is not listed now
    ("sources/source-a.md", "[[bolt]] ", ""),  # a source page missing a page built on its source
    ("log.md", "", ""),  # log.md, which one page links into
])
def test_an_edit_to_a_hub_or_the_log_is_judged_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch, path: str, old: str, new: str
) -> None:
    if path == "log.md":
        vault.write(path, "# Log\n")
        vault.write("entities/cargo.md", vault.read("entities/cargo.md").replace("[[setup]]", "[[setup]] [[log#x]]"))
        assert any(f["rule"] == "broken-wikilink" and f["target"] == "log#x" for f in vault.same_as_cold())
        vault.write(path, vault.read(path) + "\n## x\n")  # the heading cargo.md links into, now there
    else:
        assert old in vault.read(path)
        vault.write(path, vault.read(path).replace(old, new, 1))
    warm = from_the_base(vault, used, monkeypatch)
    if path == "log.md":
        assert not any(f["target"] == "log#x" for f in warm)


def ingested(vault: Vault, name: str, captured: str, cited_by: str | None = None) -> None:
    """What an ingest of a source changes: the raw file and its entry in the source ledger, its source page,
    a page built on it (`cited_by`, when given), index.md and log.md."""
    raw = f"raw/articles/{name}.md"
    text = f"# {name}\n\nA source about acme.\n"
    vault.write(raw, text)
    entries = dict(read_sources(vault.root))
    entries[raw] = SourceEntry(sha256=hashlib.sha256(text.encode()).hexdigest(), captured=captured)
    write_sources(vault.root, entries)
    vault.write(f"sources/{name}.md", page(name.title(), type="source", sources=[raw], body=f"# {name}\n\n[[acme]]\n"))
    if cited_by is not None:
        vault.write(cited_by, subject(cited_by.rsplit("/", 1)[1][:-3].title(), links="[[acme]] [[bolt]]",
                                      sources=[raw], updated="2026-01-01"))
    if (vault.root / "index.md").is_file():
        vault.write("index.md", vault.read("index.md").replace("## Entities\n", f"## Entities\n- [[{name}]]\n", 1))
    log = vault.root / "log.md"
    vault.write("log.md", (log.read_text(encoding="utf-8") if log.is_file() else "# Log\n") + f"\n- ingest {name}\n")


def test_what_an_ingest_changes_is_judged_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    ingested(vault, "source-c", "2026-05-30", cited_by="entities/dyno.md")
    # a page citing a source not captured yet, and a source captured again later (its date moved)
    vault.write("entities/bolt.md", vault.read("entities/bolt.md").replace("articles/source-a", "articles/source-d"))
    vault.same_as_cold()
    ingested(vault, "source-d", "2026-05-31")
    entries = dict(read_sources(vault.root))
    entries[RAW[0]] = SourceEntry(sha256=entries[RAW[0]].sha256 if RAW[0] in entries else None, captured="2026-05-31")
    write_sources(vault.root, entries)
    from_the_base(vault, used, monkeypatch)


def test_a_lint_on_a_later_day_is_judged_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not any(f["rule"] == "stale-page" for f in vault.same_as_cold() if f["path"] == "queries/why-acme.md")
    vault.today += dt.timedelta(days=400)  # the query page is old now; acme.md's claims are told as of that day
    warm = from_the_base(vault, used, monkeypatch)
    assert any(f["rule"] == "stale-page" for f in warm if f["path"] == "queries/why-acme.md")


def test_a_source_captured_again_later_is_judged_without_reading_the_vault(
    vault: Vault, used: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    ingested(vault, "source-c", "2026-01-02", cited_by="entities/dyno.md")
    assert not any(f["rule"] == "stale-page" for f in vault.same_as_cold() if f["path"] == "entities/dyno.md")
    entries = dict(read_sources(vault.root))
    entries["raw/articles/source-c.md"] = dataclasses.replace(entries["raw/articles/source-c.md"],
                                                              captured="2026-05-30")
    write_sources(vault.root, entries)  # the ledger alone changed: no file of the vault's listing
    warm = from_the_base(vault, used, monkeypatch)
    assert any(f["rule"] == "stale-page" for f in warm if f["path"] == "entities/dyno.md")


@pytest.mark.parametrize("change", [
    ("write", "raw/articles/source-a.md", "# A\n\nEdited after its capture.\n"),  # a raw file changed
    ("write", "assets/diagram.png", "\x89PNG"),  # an attachment added
    ("remove", "sources/source-a.md", None),
    ("write", "entities/acmé.md", subject("Acmé", links="[[acme]] [[bolt]]")),  # a name beyond ASCII
    ("write", "entities/eve.md", subject("Eve", links="[[acme]] [[bolt]]")),  # named as contradicting acme
])
def test_a_change_the_base_cannot_follow_lints_the_vault_whole(
    vault: Vault, used: list[bool], change: tuple[str, str, str | None]
) -> None:
    kind, path, text = change
    if kind == "remove":
        vault.remove(path)
    else:
        if path == "entities/eve.md":
            vault.write("entities/bolt.md", vault.read("entities/bolt.md").replace("- '[[acme]]'", "- '[[eve]]'"))
            vault.same_as_cold()  # bolt.md's face changed: a whole lint, and a new base naming eve
        vault.write(path, text or "")
    vault.same_as_cold()
    assert used[-1] is False


EDITS = st.one_of(
    st.tuples(st.just("prepend"), st.sampled_from(["", "A line.\n\n", "Para one.\n\nPara two.\n\n"])),
    st.tuples(st.just("sentence"), st.sampled_from(["An uncited claim.", "Cited. ^[[[source-a]] L1]", "- an item"])),
    st.tuples(st.just("replace"), st.sampled_from([
        ("It began.", "It began later."), ("[[acme]]", "[[bolt]]"), ("## People", "## Staff"),
        ("title: Setup", "title: Acme"), ("contested: true", "contested: false"), ("^b0", ""),
        ("is a subject", "is a [[missing]] subject"), ("# ", "#"), ("articles/source-a", "articles/source-b"),
    ])),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from([*PAGES, "queries/why-acme.md"]), EDITS), min_size=1, max_size=5))
def test_any_sequence_of_edits_lints_as_a_cold_lint_does(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, tuple[str, Any]]]
) -> None:
    root = make_vault(tmp_path_factory.mktemp("v"), dict(PAGES))
    vault = Vault(root, TODAY)
    vault.write("queries/why-acme.md", query({"entities/acme.md": page_fingerprint(vault.read("entities/acme.md"))}))
    vault.same_as_cold()
    for path, edit in steps:
        _edit(vault, path, edit)
        vault.same_as_cold()


def _edit(vault: Vault, path: str, edit: tuple[str, Any]) -> None:
    kind, what = edit
    text = vault.read(path)
    head, sep, body = text.partition("\n---\n")
    if kind == "prepend":
        text = head + sep + what + body
    elif kind == "sentence":
        text = text.rstrip("\n") + f"\n\n{what}\n"
    else:
        text = text.replace(what[0], what[1], 1)
    vault.write(path, text)


# pages to add: one linked to and linking, one reached by a broken link, one near a broken link's target (its
# "did you mean"), one sharing an alias, one sharing a file name, a query page, one with no links at all, one
# whose path differs from another's in case only, one with a character links break on
ADDED = {
    "entities/dyno.md": subject("Dyno", links="[[acme]] [[bolt]]"),
    "entities/missing page.md": subject("Missing page", links="[[cargo]]"),
    "entities/missing-pages.md": subject("Missing pages", links="[[setup]]"),
    "concepts/acme-corp.md": subject("Acme Corp", type="concept", links="[[acme]] [[cargo]]"),
    "concepts/cargo.md": subject("Cargo", type="concept", links="[[bolt]]", sources=[RAW[1]]),
    "queries/why-bolt.md": query({"entities/bolt.md": "0"}).replace("Why acme", "Why bolt"),
    "entities/lone.md": subject("Lone"),
    "entities/Bolt.md": subject("Bolt two", links="[[acme]] [[cargo]]"),  # bolt.md's name, in other case
    "entities/what?.md": subject("What", links="[[acme]] [[bolt]]"),  # a name links break on
}
HUB_EDITS = st.tuples(st.just("replace"), st.sampled_from([
    ("[[acme]]", "[[acme]] [[nowhere]]"), ("[[bolt]]", ""), ("[[cargo]]", "[[dyno]]"), ("# ", "## "),
    ("[[acme]]", "[[missing page]]"),
]))
CHANGES = st.one_of(
    st.tuples(st.just("day"), st.sampled_from([1, 45, 400])),  # a lint on a later day
    st.tuples(st.just("ingest"), st.tuples(st.sampled_from(["source-c", "source-d"]),
                                            st.sampled_from(["2026-05-02", "2027-01-01"]),
                                            st.sampled_from([None, "entities/dyno.md", "concepts/late.md"]))),
    st.tuples(st.just("captured"), st.tuples(st.sampled_from([*RAW, "raw/articles/source-c.md"]),
                                              st.sampled_from(["2026-01-01", "2026-12-01"]))),
    st.tuples(st.just("edit"), st.tuples(st.sampled_from([*PAGES, "queries/why-acme.md"]), EDITS)),
    st.tuples(st.just("edit"), st.tuples(st.sampled_from(["index.md", "sources/source-a.md"]), HUB_EDITS)),
    st.tuples(st.just("edit"), st.tuples(st.just("log.md"), st.sampled_from([("sentence", "## x"),
                                                                            ("sentence", "- a line")]))),
    st.tuples(st.just("add"), st.sampled_from(sorted(ADDED))),
    st.tuples(st.just("remove"), st.sampled_from([*PAGES, *ADDED, "queries/why-acme.md"])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(CHANGES, min_size=1, max_size=6))
def test_any_sequence_of_pages_added_removed_and_edited_lints_as_a_cold_lint_does(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, Any]]
) -> None:
    _lints_as_a_cold_lint_does(tmp_path_factory, steps)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(CHANGES, min_size=1, max_size=6))
def test_where_the_links_of_a_note_landed_is_kept_as_a_cold_lint_finds_it(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, Any]]
) -> None:
    # every note keeps its links' landings in the base (index.md's only, at MANY_LINKS): after a page added or
    # removed, those its links may reach are resolved again, the others taken from the base
    with mock.patch.object(whole_update, "MANY_LINKS", 1):
        _lints_as_a_cold_lint_does(tmp_path_factory, steps)


def _lints_as_a_cold_lint_does(tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, Any]]) -> None:
    root = make_vault(tmp_path_factory.mktemp("v"), dict(PAGES))
    vault = Vault(root, TODAY)
    vault.write("queries/why-acme.md", query({"entities/acme.md": page_fingerprint(vault.read("entities/acme.md"))}))
    vault.write("log.md", "# Log\n\n## [2026-05-01] ingest | source-a\n")
    vault.write("entities/setup.md", vault.read("entities/setup.md").replace("[[acme]]", "[[acme]] [[log#x]]"))
    vault.same_as_cold()
    for kind, what in steps:
        if kind == "day":
            vault.today += dt.timedelta(days=what)
        elif kind == "add":
            vault.write(what, ADDED[what])
        elif kind == "ingest":
            ingested(vault, *what)
        elif kind == "captured":  # the ledger's date of a source (what a stale page is judged by)
            entries = dict(read_sources(vault.root))
            entries[what[0]] = dataclasses.replace(entries.get(what[0], SourceEntry()), captured=what[1])
            write_sources(vault.root, entries)
        elif kind == "remove":
            vault.remove(what)
        elif (vault.root / what[0]).is_file():
            _edit(vault, *what)
        vault.same_as_cold()


def test_a_file_the_walk_does_not_list_made_since_the_last_lint_is_reported(vault: Vault, tmp_path: Path) -> None:
    # a named pipe and a link leading out of the vault: never read, never listed, reported by unsafe-path
    os.mkfifo(vault.root / "entities" / "pipe.md")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Elsewhere\n", encoding="utf-8")
    (vault.root / "entities" / "out.md").symlink_to(outside)
    found = vault.same_as_cold()
    assert {f["path"] for f in found if f["rule"] == "unsafe-path"} >= {"entities/pipe.md", "entities/out.md"}
    vault.write("entities/bolt.md", vault.read("entities/bolt.md") + "\nMore.\n")  # and with a page edited
    (vault.root / "entities" / "pipe.md").unlink()
    assert "entities/pipe.md" not in {f["path"] for f in vault.same_as_cold() if f["rule"] == "unsafe-path"}


def test_a_note_of_a_plain_vault_edited(tmp_path: Path, used: list[bool]) -> None:
    root = make_vault(tmp_path, {
        "a.md": "# A\n\nSee [[b]] and [[b#Part]] and [[nowhere]].\n",
        "b.md": "# B\n\n## Part\n\nText.\n",
        "notes/c.md": "# C\n\n[[a]]\n",
    }, schema=False)
    vault = Vault(root, TODAY)

    def lint(cache: bool) -> list[dict[str, object]]:
        options = LintOptions(use_cache=cache, today=TODAY)  # a plain folder keeps caches only when asked
        return [f.to_dict() for f in run_lint(root, options).findings]

    assert lint(True) == lint(False)
    vault.write("a.md", "Intro.\n\n# A\n\nSee [[b]] and [[b#Part]] and [[nowhere]].\n\n[[also nowhere]]\n")
    assert lint(True) == lint(False)
    assert used[-1] is True
    vault.write("b.md", "# B\n\n## Whole\n\nText.\n")  # the heading a.md links into: a.md judged again
    assert lint(True) == lint(False)
    assert used[-1] is True
