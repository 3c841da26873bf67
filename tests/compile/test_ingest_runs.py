"""What an ingest run does as a whole: what it compiles with no argument, what it captures (nothing before it
can compile), and the exit code it ends with."""

from __future__ import annotations

import hashlib
from pathlib import Path

from scripted import SOURCES, route
from standin_openai import StandinServer
from testkit import init_wiki, llm_toml
from typer.testing import CliRunner

from wikic.cli import app

runner = CliRunner()


def _vault(tmp_path: Path, server: StandinServer | None) -> Path:
    # compose = false: the requests counted here are the extraction's
    toml = (llm_toml(server.base_url, compose=False) if server is not None
            else llm_toml(timeout=5, max_retries=0, compose=False))
    return init_wiki(tmp_path / "wiki", toml=toml)


def _inbox(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "inbox"
    folder.mkdir()
    out = {}
    for name, text in SOURCES.items():
        (folder / name).write_text(text, encoding="utf-8")
        out[name] = folder / name
    return out


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file()
    }


def _ingest(root: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["ingest", "--vault", str(root), "--no-palace", *args])
    return result.exit_code, result.output


def test_no_argument_compiles_what_was_dropped_into_raw_and_only_that(tmp_path: Path) -> None:
    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path, server)
        (root / "raw/articles/openai.md").write_text(SOURCES["openai-and-gpt-4.md"], encoding="utf-8")
        (root / "raw/articles/history.md").write_text(SOURCES["notes-on-openai.md"], encoding="utf-8")
        before = (root / "raw/articles/openai.md").read_bytes()

        code, out = _ingest(root)
        assert code == 0, out
        assert "raw/articles/openai.md: compiled" in out and "raw/articles/history.md: compiled" in out
        assert (root / "raw/articles/openai.md").read_bytes() == before  # captured in place, never moved or edited
        assert sorted(p.name for p in (root / "raw/articles").iterdir()) == ["history.md", "openai.md"]
        assert len(server.chat_requests()) == 2

        code, out = _ingest(root)  # nothing new: nothing to do, no call
        assert code == 0 and "0 compiled" in out and len(server.chat_requests()) == 2
        (root / "raw/articles/rag.md").write_text(SOURCES["retrieval-and-generation.md"], encoding="utf-8")
        code, out = _ingest(root)
        assert code == 0 and "raw/articles/rag.md: compiled" in out and "openai.md" not in out
        assert len(server.chat_requests()) == 3


def test_no_argument_reports_an_unreadable_raw_file_and_compiles_the_rest(tmp_path: Path) -> None:
    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path, server)
        (root / "raw/articles/openai.md").write_text(SOURCES["openai-and-gpt-4.md"], encoding="utf-8")
        (root / "raw/articles/blob.md").write_bytes(b"\x00\x01binary\x00" * 20)
        code, out = _ingest(root)
        assert code == 1
        assert "raw/articles/blob.md: failed" in out and "binary" in out
        assert "raw/articles/openai.md: compiled" in out
        assert (root / "entities").exists() and (root / "raw/articles/blob.md").read_bytes().startswith(b"\x00\x01")


def test_a_configuration_error_captures_nothing(tmp_path: Path) -> None:
    root = _vault(tmp_path, None)  # no model configured
    inbox = _inbox(tmp_path)
    before = _tree(root)
    code, out = _ingest(root, str(inbox["openai-and-gpt-4.md"]))
    assert code == 2 and "no model configured" in out
    assert _tree(root) == before


def test_estimate_and_dry_run_capture_nothing(tmp_path: Path) -> None:
    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path, server)
        inbox = _inbox(tmp_path)
        before = {p: h for p, h in _tree(root).items() if not p.startswith(".wikic/")}

        code, out = _ingest(root, str(inbox["retrieval-and-generation.md"]), "--estimate")
        assert code == 0 and "prompt tokens" in out and not server.chat_requests()
        code, out = _ingest(root, str(inbox["retrieval-and-generation.md"]), "--dry-run")
        assert code == 0 and "+++ b/concepts/retrieval-augmented-generation.md" in out
        assert {p: h for p, h in _tree(root).items() if not p.startswith(".wikic/")} == before

        # the real run: the dry run's reply is reused
        code, out = _ingest(root, str(inbox["retrieval-and-generation.md"]))
        # and its cost, which no row counted (a dry run writes none), is counted by this run's row
        assert code == 0 and "20 tokens (from cache, first paid " in out
        assert "20 tokens (cached, first paid " in (root / "log.md").read_text(encoding="utf-8")
        assert len(server.chat_requests()) == 1
        rag = "retrieval-and-generation.md"
        assert (root / "raw/articles" / rag).read_text(encoding="utf-8") == SOURCES[rag]
        assert (root / "concepts/retrieval-augmented-generation.md").exists()


def test_exit_code_is_about_this_run_not_older_lint_errors(tmp_path: Path) -> None:
    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path, server)
        inbox = _inbox(tmp_path)
        (root / "concepts/old-note.md").write_text(
            "---\ntitle: Old\n---\n# Old\n\n[[missing-page]]\n", encoding="utf-8"
        )
        code, out = _ingest(root, str(inbox["openai-and-gpt-4.md"]))
        assert code == 0, out
        assert "lint:" in out and "none in what this ingest wrote" in out


def test_a_token_budget_that_leaves_sources_for_later_is_counted_and_fails(tmp_path: Path) -> None:
    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path, server)
        inbox = _inbox(tmp_path)
        code, out = _ingest(root, *(str(p) for p in inbox.values()), "--max-tokens", "1", "-j", "1")
        assert code == 1
        assert "2 skipped" in out and "run `wikic ingest` again" in out
        assert len(server.chat_requests()) == 1
        code, out = _ingest(root)  # the rest, with no argument
        assert code == 0 and out.count(": compiled") == 2
