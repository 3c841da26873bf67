"""The benchmark scripts are runnable by anyone: every name of wikic one of them imports still exists (a move of
a class must move the scripts' imports with it, as it moves the library's)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))


def _wikic_imports(script: Path) -> list[tuple[str, str]]:
    tree = ast.parse(script.read_text(encoding="utf-8"), filename=str(script))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "wikic":
            out += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [(alias.name, "") for alias in node.names if alias.name.split(".")[0] == "wikic"]
    return out


def test_there_are_benchmark_scripts() -> None:
    assert len(SCRIPTS) >= 10


def _module_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defines(module: str, name: str) -> bool:
    """`module` defines or imports `name` at its top level, or has a submodule of that name (read, not run:
    importing every script's modules would load the vector store and the models)."""
    path = _module_file(module)
    if path is None:
        return False
    if _module_file(f"{module}.{name}") is not None:
        return True
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    # what a module imports, anywhere, it has once that code runs; a lazy package (a module `__getattr__`)
    # lists the names it loads on first use in its `__all__`
    lazy = any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body)
    for part in ast.walk(tree):
        if isinstance(part, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".")[0]) == name for a in part.names):
            return True
        if lazy and isinstance(part, ast.Constant) and part.value == name:
            return True
    return False


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_wikic_name_a_benchmark_imports_exists(script: Path) -> None:
    missing = [f"{module}.{name}" if name else module for module, name in _wikic_imports(script)
               if (_module_file(module) is None if not name else not _defines(module, name))]
    assert not missing, f"{script.name} imports what wikic no longer has: {missing}"


def test_the_lint_bench_refuses_a_reused_file_without_obsidiantools_before_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    monkeypatch.syspath_prepend(str(BENCH))
    lint_bench = importlib.import_module("lint_bench")
    made = tmp_path / "skipped.json"
    made.write_text('{"wikic": {}}', encoding="utf-8")
    monkeypatch.setattr(lint_bench, "generate", lambda a: pytest.fail("the bench ran before it checked the file"))
    with pytest.raises(SystemExit, match="holds no obsidiantools results"):
        lint_bench.main(["--ot-json", str(made), "--skip-wikic"])
    made.write_text("not json", encoding="utf-8")
    with pytest.raises(SystemExit, match="not a result file of this bench"):
        lint_bench.main(["--ot-json", str(made), "--skip-wikic"])
