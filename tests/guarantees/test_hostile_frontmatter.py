"""Frontmatter YAML built to expand or to hold itself, and YAML nested near the parser's limit, in a vault every
command reads: lint reports each as a frontmatter finding at its line, and status, index and ingest read the page
as having no frontmatter. None of them hangs (a billion laughs of nine times nine aliases in 1 KB stalled lint,
index and status) or ends in a traceback (`&t [a, *t]` was a RecursionError in lint, status and ingest)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gkit
import pytest
from standin_openai import StandinServer

LAUGHS = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]\n" for n in range(1, 10)
)
PAGES = {  # path: (frontmatter, the line of its finding, what the finding says)
    "entities/laughs.md": (f"title: Laughs\n{LAUGHS}", 3, "YAML anchors and aliases are not allowed: line 3 ('&a0')"),
    "entities/itself.md": ("title: Itself\ntags: &t [a, *t]\n", 3, "YAML anchors and aliases are not allowed: line 3"),
    "entities/deep.md": ("title: Deep\nrelated: " + "[" * 990 + '"[[x]]"' + "]" * 990 + "\n", 2,
                         "values nested deeper than 100 levels"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[StandinServer]:
    with StandinServer() as s:
        s.route = gkit.route
        yield s


@pytest.fixture
def vault(tmp_path: Path, server: StandinServer) -> Path:
    root = gkit.make_vault(tmp_path / "wiki", server.base_url, threshold=1)
    for path, (frontmatter, _, _) in PAGES.items():
        title = frontmatter.split("\n", 1)[0].removeprefix("title: ")
        (root / path).write_text(f"---\n{frontmatter}---\n# {title}\n\n{title} is a page.\n", encoding="utf-8")
    return root


def run(root: Path, *args: str) -> str:
    result = gkit.run(*args, "--vault", str(root), timeout=180)  # a hang fails here instead of stalling the suite
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def test_every_command_refuses_yaml_anchors_aliases_and_deep_nesting(vault: Path, tmp_path: Path) -> None:
    findings = json.loads(run(vault, "lint", "--json"))["findings"]
    for path, (_, line, said) in PAGES.items():
        mine = [f for f in findings if f["path"] == path and f["rule"] == "frontmatter"]
        assert [(f["line"], said in f["message"]) for f in mine] == [(line, True)], mine
    assert "Lint:" in run(vault, "status")
    run(vault, "index")
    run(vault, "ingest", *gkit.sources(tmp_path / "inbox", 2))
    assert "Lint:" in run(vault, "status")  # and again with the caches the other commands left
    for path in PAGES:  # read as text, never rewritten: a page ingest does not write into is left as it was
        assert (vault / path).read_text(encoding="utf-8").startswith("---\ntitle: ")
