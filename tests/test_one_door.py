"""`VaultContext` is the only door into the library: each command and MCP tool opens one, every entry point
takes one (never a folder), only `wikic/context.py` reads wikic.toml and SCHEMA.md, and what an MCP tool
writes obeys the vault's settings as the command line's writes do."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import wikic.context as context_module
from wikic.cli import app
from wikic.context import VaultContext
from wikic.ingest.inputs import SourceError
from wikic.mcp_server import WikiTools

PACKAGE = Path(context_module.__file__).resolve().parent
FACES = ("cli/", "mcp_server.py", "mcp_tools.py")
# `wikic init` makes the vault whose SCHEMA.md it then reads for the hubs: there is no vault to open a
# context on before it.
READS_BEFORE_A_VAULT = {"hubs/setup.py"}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)


def _names(annotation: ast.expr | None) -> set[str]:
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(annotation)
            if isinstance(n, ast.Name | ast.Attribute)} if annotation is not None else set()


def test_no_entry_point_takes_a_folder_where_it_takes_a_context() -> None:
    either = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                    names = _names(arg.annotation)
                    if "VaultContext" in names and names & {"Path", "str"}:
                        either.append(f"{rel}:{node.lineno} {node.name}({arg.arg})")
    assert either == [], "take the context alone: the faces open it"
    assert not hasattr(VaultContext, "of") and not hasattr(VaultContext, "using")


def test_only_the_context_reads_wikic_toml_and_schema_md() -> None:
    loaders = {"wikic.settings": {"load_settings"}, "wikic.config_file": {"read_config_file"},
               "wikic.vault.schema_md": {"load", "load_checked"}}
    readers = []
    for rel, tree in _modules():
        if rel in ("context.py", "settings.py") or rel in READS_BEFORE_A_VAULT:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in loaders:
                readers += [f"{rel}:{node.lineno} {a.name}" for a in node.names if a.name in loaders[node.module]]
            elif isinstance(node, ast.Attribute) and node.attr in ("load_settings", "load_checked"):
                readers.append(f"{rel}:{node.lineno} {node.attr}")
    assert readers == [], "hand the context's settings or schema down instead"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times wikic.toml and SCHEMA.md are parsed, and contexts made, from now on."""
    import wikic.config_file
    import wikic.settings
    import wikic.vault.schema_md

    counts = {"wikic.toml": 0, "SCHEMA.md": 0, "contexts": 0}

    def counted(name: str, fn: Callable[..., object]) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            counts[name] += 1
            return fn(*args, **kwargs)
        return call

    monkeypatch.setattr(wikic.settings, "read_config_file", counted("wikic.toml", wikic.config_file.read_config_file))
    monkeypatch.setattr(wikic.vault.schema_md, "parse", counted("SCHEMA.md", wikic.vault.schema_md.parse))
    monkeypatch.setattr(VaultContext, "__init__", counted("contexts", VaultContext.__init__))
    return counts


def _vault(make_vault: Callable[..., Path], page: Callable[..., str]) -> Path:
    return make_vault({"entities/acme.md": page("Acme", body="# Acme\n\nAcme makes anvils.\n"),
                       "entities/anvil.md": page("Anvil", body="# Anvil\n\nSee [[acme]].\n")})


@pytest.mark.parametrize("command", [["wake-up"], ["facts", "Acme"], ["graph"], ["status", "--no-lint"],
                                     ["lint"]])
def test_each_command_opens_one_context_and_reads_each_file_once(
    make_vault: Callable[..., Path], page: Callable[..., str], reads: dict[str, int], command: list[str]
) -> None:
    root = _vault(make_vault, page)
    result = CliRunner().invoke(app, [*command, "--vault", str(root)])
    assert result.exit_code in (0, 1), result.output
    assert reads["contexts"] == 1, reads
    assert reads["wikic.toml"] <= 1 and reads["SCHEMA.md"] <= 1, reads


def test_the_mcp_tools_read_through_the_servers_one_context(
    make_vault: Callable[..., Path], page: Callable[..., str], reads: dict[str, int]
) -> None:
    tools = WikiTools(_vault(make_vault, page))
    _ = tools.context.settings, tools.context.schema
    reads.update({"wikic.toml": 0, "SCHEMA.md": 0, "contexts": 0})
    tools.read_page("Acme")
    tools.list_pages()
    tools.lint()
    tools.facts("Acme")
    tools.wake_up()
    tools.recall("anvils")
    tools.overview()
    assert reads == {"wikic.toml": 0, "SCHEMA.md": 0, "contexts": 0}  # nothing changed: nothing read again


def test_mcp_writes_obey_the_vaults_ingest_limits(make_vault: Callable[..., Path], page: Callable[..., str]) -> None:
    root = _vault(make_vault, page)
    (root / "wikic.toml").write_text("[ingest]\nmax_source_mb = 0.001\n", encoding="utf-8")  # 1,048 bytes
    raw = sorted(p for p in (root / "raw").rglob("*"))
    tools = WikiTools(root)
    with pytest.raises(SourceError, match="more than"):
        tools.file_note("Long", "word " * 400)
    with pytest.raises(SourceError, match="more than"):
        tools.remember("episodic", "word " * 390)  # within a memory's 2,000 characters, over the vault's limit
    assert sorted(p for p in (root / "raw").rglob("*")) == raw  # nothing captured
