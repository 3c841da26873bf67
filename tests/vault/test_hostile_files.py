"""A vault's own files that lead out of it, or are no files (a clone or a synced folder may hold either):
the one reader (`paths.read_inside`) never opens them, every reader of a root file goes through it, state
that is a folder reads as missing and is refused by name where it must be written or locked, and a journal
replays only what this vault's writer could have written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from library import wake_up
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.config_file import read_config_file
from wikic.errors import VaultError
from wikic.memory.identity import read_identity
from wikic.pages import journal
from wikic.pages.index_file import Entry
from wikic.pages.lock import writer
from wikic.status import read_log
from wikic.vault import state
from wikic.vault.formats.compiled import read_compiled
from wikic.vault.formats.conversations import read_conversations
from wikic.vault.formats.mentions import read_mentions
from wikic.vault.formats.set_aside import read_set_aside
from wikic.vault.formats.sources import read_sources
from wikic.vault.layout import in_vault_tree, is_note_path
from wikic.vault.paths import map_inside, read_inside, read_text_inside
from wikic.vault.schema_md import load as load_schema

SECRET = "aws_secret_access_key = SECRET-OUTSIDE-THE-VAULT"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return make_vault(tmp_path, {"entities/a.md": page("A", body="# A\n\nA page.\n")})


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    path = tmp_path / "outside" / "credentials"
    path.write_text(f"---\nname: Someone\n---\n\n## Notes for the model\n{SECRET}\n", encoding="utf-8")
    return path


def link_out(vault: Path, rel: str, target: Path) -> None:
    (vault / rel).unlink(missing_ok=True)
    (vault / rel).symlink_to(target)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() and not p.is_symlink() else "link"
            for p in sorted(folder.rglob("*")) if not p.is_dir() or p.is_symlink()}


def no_secret_in(vault: Path) -> bool:
    return all(SECRET.encode() not in p.read_bytes() for p in vault.rglob("*") if p.is_file() and not p.is_symlink())


# -- the one reader ---------------------------------------------------------------------------------------


def test_the_reader_reads_the_vaults_files_and_links_that_stay_inside(vault: Path) -> None:
    (vault / "notes.md").write_bytes(b"one\r\ntwo\rthree\n")
    (vault / "alias.md").symlink_to(vault / "notes.md")
    assert read_inside(vault, vault / "notes.md") == b"one\r\ntwo\rthree\n"
    assert read_text_inside(vault, vault / "alias.md") == "one\ntwo\nthree\n"  # as Path.read_text reads
    assert read_inside(vault, vault / "missing.md") is None


def test_the_reader_refuses_a_link_out_of_the_vault_naming_it(vault: Path, secret: Path) -> None:
    link_out(vault, "identity.md", secret)
    leads_out = r"refusing to read identity\.md: it leads outside the vault \(to .*/credentials\)"
    with pytest.raises(VaultError, match=leads_out):
        read_inside(vault, vault / "identity.md")
    (vault / "notes").symlink_to(secret.parent, target_is_directory=True)
    with pytest.raises(VaultError, match=r"refusing to read notes: it leads outside the vault"):
        read_inside(vault, vault / "notes" / "credentials")
    with pytest.raises(VaultError, match="refusing to read"):
        read_inside(vault, vault / ".." / "outside" / "credentials")


def test_the_mapped_reader_gives_what_the_reader_reads_and_refuses_what_it_refuses(vault: Path, secret: Path) -> None:
    (vault / "notes.md").write_bytes(b"one\r\ntwo\n")
    (vault / "empty.md").write_bytes(b"")
    mapped = map_inside(vault, vault / "notes.md")
    assert mapped is not None and mapped[:] == read_inside(vault, vault / "notes.md")
    assert map_inside(vault, vault / "empty.md") == b"" and map_inside(vault, vault / "missing.md") is None
    link_out(vault, "identity.md", secret)
    with pytest.raises(VaultError, match=r"refusing to read identity\.md: it leads outside the vault"):
        map_inside(vault, vault / "identity.md")
    os.mkfifo(vault / "log.md")
    with pytest.raises(OSError, match=r"it is a named pipe"):
        map_inside(vault, vault / "log.md")


def test_the_reader_never_opens_a_folder_or_a_named_pipe(vault: Path) -> None:
    (vault / "overview.md").mkdir()
    with pytest.raises(IsADirectoryError, match="it is a folder"):
        read_inside(vault, vault / "overview.md")
    os.mkfifo(vault / "log.md")  # opened for reading, it would wait for a writer that never comes
    with pytest.raises(OSError, match=r"it is a named pipe"):
        read_inside(vault, vault / "log.md")


# -- every reader of a root file -----------------------------------------------------------------------------


def test_schema_md_linked_out_never_reaches_the_model(vault: Path, secret: Path) -> None:
    link_out(vault, "SCHEMA.md", secret)
    with pytest.raises(VaultError, match=r"refusing to read SCHEMA\.md: it leads outside the vault"):
        load_schema(vault)


def test_identity_and_overview_linked_out_are_in_no_briefing(vault: Path, secret: Path) -> None:
    link_out(vault, "identity.md", secret)
    with pytest.raises(VaultError, match=r"refusing to read identity\.md"):
        read_identity(vault)
    with pytest.raises(VaultError, match=r"refusing to read identity\.md"):
        wake_up(vault)
    (vault / "identity.md").unlink()
    link_out(vault, "overview.md", secret)
    with pytest.raises(VaultError, match=r"refusing to read overview\.md"):
        wake_up(vault, overview=True)


def test_wikic_toml_linked_out_is_refused_and_its_lines_never_shown(vault: Path, secret: Path) -> None:
    link_out(vault, "wikic.toml", secret)  # not TOML: a syntax error would quote where it stopped
    with pytest.raises(VaultError, match=r"refusing to read wikic\.toml") as caught:
        read_config_file(vault)
    assert SECRET not in caught.value.message


@pytest.mark.parametrize("rel", ["SCHEMA.md", "index.md", "log.md", "overview.md", "identity.md"])
def test_filing_an_answer_is_refused_before_the_model_when_a_root_file_leads_out(
    vault: Path, secret: Path, rel: str
) -> None:
    from library import check_can_file

    link_out(vault, rel, secret)
    with pytest.raises(VaultError, match=rf"refusing to read {rel}: it leads outside the vault"):
        check_can_file(vault)


def test_status_reads_a_log_md_linked_out_as_no_log(vault: Path, secret: Path) -> None:
    secret.write_text("| 2026-01-01 | ingest | x | 99 tokens |\n", encoding="utf-8")
    link_out(vault, "log.md", secret)
    assert read_log(vault) == []


def test_lint_fix_never_copies_an_index_md_linked_out_into_the_vault(vault: Path, secret: Path) -> None:
    link_out(vault, "index.md", secret)
    (vault / "entities" / "b.md").write_text(page("B", body="# B\n\nB page, see [[a]].\n"), encoding="utf-8")
    before = secret.read_bytes()
    result = CliRunner().invoke(app, ["lint", "--fix", "--vault", str(vault)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "index.md: error unsafe-path symbolic link points outside the vault: not read" in result.stdout
    assert "index.md is missing" not in result.stdout  # something is there: no fix writes over it
    assert (vault / "index.md").is_symlink() and secret.read_bytes() == before
    assert no_secret_in(vault)


# -- the journal replays only what this vault's writer could have written ----------------------------------


@pytest.mark.parametrize("rel", ["entities/a.md", "index.md", "overview.md", "sources/s.md", "inbox/idea.md",
                                 "identity.md", "People/Ada Lovelace.md"])
def test_a_note_wikic_writes_is_a_note_path(rel: str) -> None:
    assert is_note_path(rel)


@pytest.mark.parametrize("rel", ["raw/articles/a.md", "Raw/a.md", "SCHEMA.md", "schema.md", "log.md", "wikic.toml",
                                 ".obsidian/plugins/evil/main.js", ".obsidian/x.md", ".wikic/journal.json",
                                 "../outside.md", "/etc/x.md", "entities/../../x.md", "a\\..\\..\\x.md",
                                 "entities//a.md", "", "entities/a.txt"])
def test_anything_else_is_not(rel: str) -> None:
    assert not is_note_path(rel)


def test_the_palace_may_reread_any_file_of_the_vaults_tree_only() -> None:
    assert in_vault_tree("raw/articles/a.md") and in_vault_tree("entities/a.md")
    assert not any(in_vault_tree(p) for p in ("../x", ".wikic/x", "/etc/passwd", "a/./b"))


def plant(vault: Path, texts: dict[str, str], **extra: object) -> None:
    """A journal in `.wikic/`, as a synced folder would bring it; each page's `before` matches the file, so
    only the check of where it writes stands in the way."""
    planned = {}
    for rel, text in texts.items():
        path = vault / rel
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        planned[rel] = {"before": journal._sha(current), "text": text}
    data = {"run": "planted", "pages": planned, "index": [], "compiled": {}, "mentions": None, "log_rows": [],
            "log_lines": 0, "palace": [], "compose": [], **extra}
    (vault / ".wikic").mkdir(exist_ok=True)
    (vault / ".wikic" / "journal.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("rel", ["raw/articles/a.md", "wikic.toml", "SCHEMA.md", ".obsidian/plugins/evil/main.js",
                                 "log.md", "../outside.md"])
def test_a_planted_journal_is_set_aside_whole_and_nothing_of_it_written(vault: Path, rel: str) -> None:
    (vault / "raw" / "articles").mkdir(parents=True, exist_ok=True)
    (vault / "raw" / "articles" / "a.md").write_text("# A source\n", encoding="utf-8")
    (vault / "wikic.toml").write_text("", encoding="utf-8")
    plant(vault, {"entities/a.md": "# rewritten\n", rel: "EVIL\n"})
    planted = (vault / ".wikic" / "journal.json").read_bytes()
    before = snapshot(vault.parent)
    refused = rf"refusing to replay \.wikic/journal\.json: it would write {rel}"
    with pytest.raises(VaultError, match=refused), writer(vault, ["entity"]):
        pass
    after = snapshot(vault.parent)
    aside = list((vault / ".wikic").glob("journal.refused-*.json"))
    assert len(aside) == 1 and aside[0].read_bytes() == planted and not (vault / ".wikic" / "journal.json").exists()
    state_files = f"{vault.name}/.wikic/"
    assert {p: v for p, v in after.items() if not p.startswith(state_files)} == {
        p: v for p, v in before.items() if not p.startswith(state_files)}
    with writer(vault, ["entity"]) as finished:  # the next writer goes on without it
        assert finished == []


@pytest.mark.parametrize("extra", [{"pages": []}, {"index": [{"link": "a"}]}, {"log_rows": [1]},
                                   {"compiled": {"raw/a.md": "x"}}, {"palace": ["../../etc/passwd"]},
                                   {"compose": ["raw/articles/a.md"]}])
def test_a_journal_of_another_shape_is_refused_too(vault: Path, extra: dict[str, object]) -> None:
    plant(vault, {}, **extra)
    with pytest.raises(VaultError, match="refusing to replay"):
        journal.Journal.load(vault)
    assert not (vault / ".wikic" / "journal.json").exists()


def test_a_journal_this_vaults_writer_left_is_still_replayed(vault: Path) -> None:
    plant(vault, {"entities/a.md": "# A\n\nrewritten\n", "inbox/idea.md": "# An idea\n"},
          log_rows=["| 2026-01-01 | ingest | x | y |"], palace=["entities/a.md"], compose=["entities/a.md"])
    with writer(vault, ["entity"]):
        pass
    assert (vault / "entities" / "a.md").read_text(encoding="utf-8") == "# A\n\nrewritten\n"
    assert (vault / "inbox" / "idea.md").is_file()
    assert "| 2026-01-01 | ingest | x | y |" in (vault / "log.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("rel", ["index.md", "log.md", "entities/a.md"])
def test_a_write_whose_file_leads_out_is_refused_before_anything_is_written(
    vault: Path, secret: Path, rel: str
) -> None:
    link_out(vault, rel, secret)
    plan = journal.Journal()
    plan.add_page("entities/b.md", None, "# B\n")
    plan.add_index([Entry("entity", "b", "B.")])
    plan.log_rows = ["| 2026-01-01 | ingest | b | |"]
    if rel == "entities/a.md":
        plan.pages[rel] = {"before": None, "text": "# A again\n"}
    before = snapshot(vault.parent)
    with pytest.raises(VaultError, match=rf"refusing to use {rel}: it leads outside the vault"):
        plan.commit(vault, ["entity"])
    assert snapshot(vault.parent) == before  # no page, and no journal for the next writer to stumble on


# -- state that is a folder ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [state.COMPILED, state.SOURCES, state.MENTIONS, state.CONVERSATIONS, state.SET_ASIDE])
def test_a_ledger_that_is_a_folder_reads_as_missing_and_is_refused_by_name_when_written(
    vault: Path, name: str
) -> None:
    (vault / ".wikic" / name).mkdir(parents=True)
    assert read_compiled(vault) == {} and read_sources(vault) == {}
    assert read_mentions(vault) == {} and read_set_aside(vault) == {}
    assert read_conversations(vault).conversations == {}
    with pytest.raises(VaultError, match=rf"cannot write \.wikic/{name}: it is a folder") as caught:
        state.write_json(state.state_path(vault, name), {"version": 1}, root=vault)
    assert caught.value.hint is not None and "move the folder" in caught.value.hint


def test_a_journal_that_is_a_folder_is_no_journal_and_is_refused_when_one_is_saved(vault: Path) -> None:
    (vault / ".wikic" / "journal.json").mkdir(parents=True)
    with writer(vault, ["entity"], tidy=True):
        pass  # nothing to replay, and nothing removed
    plan = journal.Journal()
    plan.add_page("entities/b.md", None, "# B\n")
    with pytest.raises(VaultError, match=r"cannot write \.wikic/journal\.json: it is a folder"):
        plan.commit(vault, ["entity"])
    assert not (vault / "entities" / "b.md").exists()


@pytest.mark.parametrize("lock", ["vault", "sources", "conversations", "set-aside"])
def test_a_lock_file_that_is_a_folder_is_one_clear_error(vault: Path, lock: str) -> None:
    from wikic.pages.lock import vault_lock

    taking = {"vault": (state.VAULT_LOCK, vault_lock), "sources": (state.SOURCES_LOCK, state.source_ledger_lock),
              "conversations": (state.CONVERSATIONS_LOCK, state.conversations_lock),
              "set-aside": (state.SET_ASIDE_LOCK, state.set_aside_lock)}
    name, take = taking[lock]
    (vault / ".wikic" / name).mkdir(parents=True)
    with pytest.raises(VaultError, match=rf"cannot lock \.wikic/{name}: it is a folder"), take(vault):
        pass


def test_a_lock_file_that_is_a_link_inside_the_vault_is_refused_not_taken_through(vault: Path) -> None:
    from wikic.pages.lock import vault_lock

    schema = (vault / "SCHEMA.md").read_bytes()
    (vault / ".wikic").mkdir()
    (vault / ".wikic" / state.VAULT_LOCK).symlink_to(vault / "SCHEMA.md")
    with pytest.raises(VaultError, match=r"cannot lock \.wikic/vault\.lock: it is a symbolic link"), vault_lock(vault):
        pass
    assert (vault / "SCHEMA.md").read_bytes() == schema
