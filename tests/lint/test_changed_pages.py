"""A lint after a few pages were edited judges those pages and the pages that read them, from the last whole
lint's findings (`lint/changed.py`), without reading the vault; its findings are a cold lint's, whatever the
edit: one that keeps what other pages read of a page (text moved, sentences added, a claim changed), one that
changes it (a title, a link, a heading: the vault is then linted whole), and any sequence of them."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from library import run_lint
from testkit import TimedVault as Vault, make_vault, page

from wikic.lint import changed as changed_module
from wikic.lint.run import LintOptions
from wikic.pages.fingerprint import page_fingerprint
from wikic.vault import load as load_module

TODAY = dt.date(2026, 6, 1)
RAW = ("raw/articles/source-a.md", "raw/articles/source-b.md")


def subject(title: str, body: str = "", links: str = "", **extra: Any) -> str:
    text = (f"# {title}\n\n{title} is a subject of this wiki.\n\n## History\n\nIt began. ^b0\n\n## People\n\n"
            f"{body}\n{links}\n")
    return page(title, body=text, sources=[RAW[0]], **extra)


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
    ("entities/acme.md", "title: Acme", "title: Acme Inc"),  # a name other pages' hints and duplicates read
    ("entities/bolt.md", "[[cargo]]", "[[nowhere]]"),  # where a link lands: who is an orphan
    ("entities/acme.md", "## History", "## Origins"),  # a heading another page links into
    ("entities/bolt.md", "- '[[acme]]'", "- '[[cargo]]'"),  # a page named as contradicting it
    ("entities/cargo.md", "It began. ^b0", "It began."),  # a block id another page links to
    ("entities/setup.md", "articles/source-a", "articles/source-b"),  # the sources a hub is told by
])
def test_an_edit_to_what_other_pages_read_lints_the_vault_whole(
    vault: Vault, used: list[bool], edit: tuple[str, str, str]
) -> None:
    path, old, new = edit
    text = vault.read(path)
    assert old in text
    vault.write(path, text.replace(old, new, 1))
    vault.same_as_cold()
    assert used[-1] is False


def test_a_file_added_or_a_hub_changed_lints_the_vault_whole(vault: Vault, used: list[bool]) -> None:
    vault.write("entities/dyno.md", subject("Dyno", links="[[acme]]"))
    vault.same_as_cold()
    assert used[-1] is False
    vault.write("index.md", vault.read("index.md") + "\n")
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
    for path, (kind, what) in steps:
        text = vault.read(path)
        head, sep, body = text.partition("\n---\n")
        if kind == "prepend":
            text = head + sep + what + body
        elif kind == "sentence":
            text = text.rstrip("\n") + f"\n\n{what}\n"
        else:
            text = text.replace(what[0], what[1], 1)
        vault.write(path, text)
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
    vault.write("b.md", "# B\n\n## Whole\n\nText.\n")  # the heading a.md links into: read whole
    assert lint(True) == lint(False)
    assert used[-1] is False
