"""wikic.text is the bottom layer: every other package may use it, so it may use none of them."""

from __future__ import annotations

import ast
from pathlib import Path

import wikic.text

ALLOWED = ("wikic.text", "wikic.errors")


def test_text_imports_nothing_of_wikic_but_itself_and_errors() -> None:
    folder = Path(wikic.text.__file__).parent
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name}: {n}" for n in names if n.startswith("wikic") and not n.startswith(ALLOWED)]
    assert found == []
