"""A lint after pages were edited, added, removed or renamed judges only what the change reaches
(`kept_findings.py`), and reports exactly what a cold lint of the same vault reports: a heading removed that
another page links to, a page added that makes a bare link ambiguous or gives a broken link its target, the
only target of a link removed, a title or alias changed, a source cited, added or removed, and random
sequences of all of them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from library import run_lint, schema_of
from testkit import TimedVault as Vault, make_vault, page

from wikic.lint import kept_findings, run as lint_run
from wikic.lint.run import LintOptions

TODAY = dt.date(2026, 6, 1)
RAW = ("raw/articles/source-a.md", "raw/articles/source-b.md", "raw/articles/source-c.md")
HEADINGS = ("Funding", "History", "People")


def subject(title: str, links: str = "", headings: tuple[str, ...] = HEADINGS, **extra: Any) -> str:
    body = f"# {title}\n\n" + "".join(f"## {h}\n\nText. ^b{i}\n\n" for i, h in enumerate(headings)) + links + "\n"
    return page(title, body=body, **extra)


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    root = make_vault(tmp_path, {
        "entities/acme.md": subject("Acme", "[[bolt#Funding]] [[bolt#^b1]] [[cargo]]\n", aliases=["Acme Corp"]),
        "entities/bolt.md": subject("Bolt", "[[acme#People]] [[Acme Corp]] [[dyno]]\n"),
        "entities/cargo.md": subject("Cargo", "[[acme]] [[bolt#History]]\n"),
    })
    v = Vault(root, TODAY)
    for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()):
        v.write(path, (root / path).read_text(encoding="utf-8"))  # every file an mtime of its own
    v.same_as_cold()  # the caches the next lints start from
    return v


def rules_at(findings: list[dict[str, object]], path: str) -> list[tuple[object, object]]:
    return [(f["rule"], f["message"]) for f in findings if f["path"] == path]


def test_a_heading_removed_breaks_the_links_into_it_on_pages_that_did_not_change(vault: Vault) -> None:
    vault.write("entities/bolt.md", subject("Bolt", "[[acme#People]] [[Acme Corp]] [[dyno]]\n",
                                            headings=("History", "People")))
    found = vault.same_as_cold()
    assert ("broken-wikilink", "heading '#Funding' not found in 'entities/bolt.md'") in rules_at(
        found, "entities/acme.md")


def test_a_page_added_makes_a_bare_link_ambiguous_and_gives_a_broken_link_its_target(vault: Vault) -> None:
    vault.write("concepts/cargo.md", subject("Cargo concept", type="concept"))
    vault.write("entities/dyno.md", subject("Dyno", "[[acme]] [[bolt]]\n"))
    found = vault.same_as_cold()
    # index.md, unchanged, lists [[cargo]]: two files now have that name (a page's own folder would decide)
    assert any(rule == "ambiguous-link" for rule, _ in rules_at(found, "index.md"))
    assert not any("dyno" in str(message) for _, message in rules_at(found, "entities/bolt.md"))


def test_a_page_removed_that_was_the_only_target_breaks_its_links(vault: Vault) -> None:
    vault.remove("entities/bolt.md")
    found = vault.same_as_cold()
    assert sum(rule == "broken-wikilink" for rule, _ in rules_at(found, "entities/cargo.md")) == 1


def test_a_title_or_alias_changed_changes_the_hints_and_the_duplicates(vault: Vault) -> None:
    before = vault.same_as_cold()
    vault.write("entities/cargo.md", subject("Cargo", "[[acme]] [[bolt#History]]\n", aliases=["Dyno"]))
    after = vault.same_as_cold()
    assert after != before  # bolt.md's [[dyno]] is now said to mean cargo
    vault.write("entities/acme.md", subject("Bolt", "[[bolt#Funding]] [[bolt#^b1]] [[cargo]]\n"))
    assert any(f["rule"] == "duplicate-page" for f in vault.same_as_cold())


def test_a_page_renamed_and_a_source_removed_and_added(vault: Vault) -> None:
    text = (vault.root / "entities/cargo.md").read_text(encoding="utf-8")
    vault.remove("entities/cargo.md")
    vault.write("entities/freight.md", text)
    vault.same_as_cold()
    vault.remove(RAW[1])
    assert any("source-b" in str(f["message"]) for f in vault.same_as_cold())
    vault.write(RAW[2], "---\ntitle: Source C\ncaptured: 2026-05-01\n---\n\n# Source C\n\nThird.\n")
    vault.write("entities/acme.md", subject("Acme", "[[bolt#Funding]]\n", sources=[RAW[0], RAW[2]]))
    vault.same_as_cold()
    vault.write(RAW[2], "---\ntitle: Source C\ncaptured: 2026-05-30\n---\n\n# Source C\n\nThird, later.\n")
    vault.same_as_cold()


def test_one_page_edited_is_judged_again_with_the_pages_that_read_it_and_no_other(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikic.lint.rules import broken_wikilink, frontmatter, ordinary_name, stale_page

    judged: dict[str, list[str]] = {"heading": [], "tags": [], "name": [], "source": []}
    spied = ((broken_wikilink, "_subpath_problem", "heading", 2), (frontmatter, "_tags", "tags", 1),
             (ordinary_name, "_ordinary", "name", 1), (stale_page, "source_date", "source", 1))
    for module, name, key, arg in spied:
        def spy(*args: object, _real: object = getattr(module, name), _key: str = key, _arg: int = arg) -> object:
            judged[_key].append(str(getattr(args[_arg], "path", args[_arg])))
            return _real(*args)  # type: ignore[operator]

        monkeypatch.setattr(module, name, spy)
    vault.write("entities/bolt.md", subject("Bolt", "[[acme#People]] [[Acme Corp]] [[dyno]]\n", headings=("People",)))
    # the whole lint's kept findings are what is tested here: without the last whole lint's base (a lint from it
    # judges the pages linking to bolt.md whole, `test_changed_pages.py`)
    (vault.root / ".wikic" / "cache" / "lint-base.json").unlink()
    found = vault.lint(cache=True)
    # where the links of bolt.md, and of acme.md and cargo.md (which link into bolt's headings), land: not
    # index.md's (a cold lint looks at its three too)
    assert sorted(judged["heading"]) == ["entities/acme.md"] * 2 + ["entities/bolt.md"] * 3 + ["entities/cargo.md"]
    assert judged["tags"] == ["entities/bolt.md"] and set(judged["name"]) == {"entities/bolt.md"}
    assert len(judged["source"]) == 2  # bolt.md's two sources
    assert found == vault.lint(cache=False)


def test_a_source_outside_the_listing_is_read_in_every_run(vault: Vault) -> None:
    hidden = "raw/.drafts/source-d.md"  # a dot-folder: not in the vault's listing, read when a page cites it
    vault.write(hidden, "---\ntitle: Source D\ncaptured: 2026-01-01\n---\n\n# Source D\n")
    vault.write("entities/acme.md", subject("Acme", "[[bolt]]\n", sources=[RAW[0], hidden]))
    assert not any(f["rule"] == "stale-page" for f in vault.same_as_cold())
    vault.write(hidden, "---\ntitle: Source D\ncaptured: 2026-05-01\n---\n\n# Source D\n")
    # nothing else changed: the last report is not given back, as the file it read changed
    assert any(f["rule"] == "stale-page" for f in vault.same_as_cold())
    vault.remove(hidden)
    assert not any(f["rule"] == "stale-page" for f in vault.same_as_cold())


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> LintOptions | None:
    """The options of a lint whose rules run in part in a forked process, on these small vaults too (None where
    this process may not fork: nothing runs apart then)."""
    from wikic.vault.load import fork_is_safe

    if not fork_is_safe():
        return None
    monkeypatch.setattr(lint_run, "_FORK_RULES_FROM", 1)
    return LintOptions(use_cache=True, today=TODAY, jobs=2)


def test_a_source_outside_the_listing_read_in_a_forked_process_is_seen_changed(
    vault: Vault, forking: LintOptions | None
) -> None:
    if forking is None:
        return
    options = forking
    assert "stale-page" in lint_run.forked_rules(lint_run._active(options, schema_of(vault.root)), judged=True)
    hidden = "raw/.drafts/source-d.md"
    vault.write(hidden, "---\ntitle: Source D\ncaptured: 2026-01-01\n---\n\n# Source D\n")
    (vault.root / ".wikic" / kept_findings.LISTING).unlink()  # every page judged: the stale-page rule runs apart
    vault.write("entities/acme.md", subject("Acme", "[[bolt]]\n", sources=[RAW[0], hidden]))
    found = [f.to_dict() for f in run_lint(vault.root, options).findings]
    assert found == vault.lint(cache=False) and not any(f["rule"] == "stale-page" for f in found)
    vault.write(hidden, "---\ntitle: Source D\ncaptured: 2026-05-01\n---\n\n# Source D\n")
    found = [f.to_dict() for f in run_lint(vault.root, options).findings]
    assert found == vault.lint(cache=False) and any(f["rule"] == "stale-page" for f in found)


def test_a_source_leading_out_of_the_vault_is_never_read(vault: Vault) -> None:
    outside = vault.root.parent / "outside.md"  # a cloned vault's page naming a file of the machine
    outside.write_text("---\ntitle: Outside\ncaptured: 2026-05-01\n---\n\n# Outside\n", encoding="utf-8")
    vault.write("entities/acme.md", subject("Acme", "[[bolt]]\n", sources=[RAW[0], "../outside.md"]))
    assert not any(f["rule"] == "stale-page" for f in vault.same_as_cold())


def test_findings_are_kept_only_for_the_run_whose_listing_is_kept(vault: Vault) -> None:
    """A kept file of findings from another run than the listing beside it (a run that stopped between the
    two) is not trusted: every page is judged."""
    kept = vault.root / ".wikic" / kept_findings.cache_name("broken-wikilink")
    stale = kept.read_bytes()
    vault.write("entities/bolt.md", subject("Bolt", "[[acme#Nowhere]]\n"))
    vault.same_as_cold()
    kept.write_bytes(stale)  # the findings of the run before, beside this run's listing
    vault.write("entities/cargo.md", subject("Cargo", "[[acme]]\n"))
    assert any("Nowhere" in str(f["message"]) for f in vault.same_as_cold())


def test_the_rules_run_in_a_forked_process_keep_their_findings_too(
    vault: Vault, forking: LintOptions | None
) -> None:
    if forking is None:
        return
    frontmatter = vault.root / ".wikic" / kept_findings.cache_name("frontmatter")
    # no listing: nothing kept is trusted, every page is judged, and the page rules and frontmatter run apart
    (vault.root / ".wikic" / kept_findings.LISTING).unlink()
    vault.write("entities/cargo.md", subject("Cargo", "[[acme]]\n", tags=["not-in-the-taxonomy"]))
    options = forking
    assert "frontmatter" in lint_run.forked_rules(lint_run._active(options, schema_of(vault.root)), judged=True)
    found = [f.to_dict() for f in run_lint(vault.root, options).findings]
    assert found == vault.lint(cache=False)
    kept = frontmatter.read_bytes()
    assert b"not-in-the-taxonomy" in kept
    # the listing vouches for what the forked process kept: the next lint trusts it, and judges only bolt.md
    # (in this process: with little to judge, nothing runs apart)
    vault.write("entities/bolt.md", subject("Bolt", "[[acme]]\n"))
    assert [f.to_dict() for f in run_lint(vault.root, options).findings] == vault.lint(cache=False)
    assert frontmatter.read_bytes() == kept  # bolt.md's frontmatter findings are what they were: nothing to write


PATHS = ("entities/acme.md", "entities/bolt.md", "entities/cargo.md", "entities/dyno.md", "concepts/acme.md",
         "queries/why.md")
NAMES = ("acme", "bolt", "cargo", "dyno", "Acme Corp", "Dyno Inc", "entities/acme")

link = st.builds(lambda name, sub: f"[[{name}{sub}]]", st.sampled_from(NAMES),
                 st.sampled_from(("", "#Funding", "#History", "#People", "#^b0", "#^b2", "#Nowhere")))
pages = st.builds(
    lambda title, aliases, sources, headings, links: subject(
        title, " ".join(links) + "\n", headings=tuple(headings), aliases=aliases, sources=sources),
    st.sampled_from(("Acme", "Bolt", "Cargo", "Dyno", "Acme Corp", "Dyno Inc")),
    st.lists(st.sampled_from(("Acme Corp", "Dyno Inc", "Bolt", "Cargo Co")), max_size=2, unique=True),
    st.lists(st.sampled_from((*RAW, "raw/articles/gone.md")), max_size=3, unique=True),
    st.lists(st.sampled_from(HEADINGS), unique=True),
    st.lists(link, max_size=4),
)
query = st.builds(
    lambda links, cited: page("Why", type="query", summary="Because.", cited=cited,
                              body="# Why\n\n" + " ".join(links) + "\n"),
    st.lists(link, max_size=3),
    st.dictionaries(st.sampled_from(PATHS[:4]), st.just("sha256:0"), max_size=2),
)
raw_text = st.builds(lambda day: f"---\ntitle: A source\ncaptured: 2026-0{day}-01\n---\n\n# A source\n\nText.\n",
                     st.integers(1, 9))
change = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(PATHS[:5]), pages),
    st.tuples(st.just("write"), st.just("queries/why.md"), query),
    st.tuples(st.just("write"), st.sampled_from(RAW), raw_text),
    st.tuples(st.just("remove"), st.sampled_from((*PATHS, *RAW)), st.just("")),
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(changes=st.lists(change, min_size=1, max_size=5))
def test_any_sequence_of_changes_lints_as_a_cold_lint_does(tmp_path_factory: pytest.TempPathFactory,
                                                            changes: list[tuple[str, str, str]]) -> None:
    root = make_vault(tmp_path_factory.mktemp("incremental"), {
        "entities/acme.md": subject("Acme", "[[bolt#Funding]] [[cargo]]\n", aliases=["Acme Corp"]),
        "entities/bolt.md": subject("Bolt", "[[acme#People]] [[Acme Corp]] [[dyno]]\n"),
    })
    vault = Vault(root, TODAY)
    vault.same_as_cold()
    for action, path, text in changes:
        if action == "write":
            vault.write(path, text)
        else:
            vault.remove(path)
        vault.same_as_cold()
