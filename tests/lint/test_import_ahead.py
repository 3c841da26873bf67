"""`import_ahead`: after it, a lint run on another thread imports nothing (an ingest lints on a thread beside
the search-index update, and a module imported on one thread while another uses it can be seen
half-initialised). Checked in a new interpreter, where nothing of the lint is imported yet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from wikic.vault.init import init_vault

WATCHED = r"""
import json, sys, threading
from pathlib import Path

on_thread = []


class Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):  # asked only for a module not imported yet
        if threading.current_thread().name.startswith("wikic-lint"):
            on_thread.append(name)
        return None


sys.meta_path.insert(0, Watch)
from concurrent.futures import ThreadPoolExecutor

from wikic.context import VaultContext
from wikic.lint.run import LintOptions, import_ahead, run_lint

context = VaultContext(Path(sys.argv[1]))  # as an ingest has it: its settings and SCHEMA.md read
context.checked_schema(), context.settings
import_ahead()
options = LintOptions(select=("broken-wikilink", "index-gap", "frontmatter"), use_cache=True)
with ThreadPoolExecutor(1, thread_name_prefix="wikic-lint") as pool:
    report = pool.submit(run_lint, context, options).result()
print(json.dumps({"on_thread": on_thread, "targets": sorted(f.target or "" for f in report.findings)}))
"""


def test_a_lint_on_another_thread_after_import_ahead_imports_nothing(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    # a page the fast scanner leaves to markdown-it (a link inside a fence is no link), one with a broken link
    (root / "entities" / "fenced.md").write_text(
        "---\ntitle: Fenced\ntype: entity\n---\n# Fenced\n\n```\n[[not-a-link]]\n```\n\nSee [[ghost-page]].\n",
        encoding="utf-8",
    )
    # and one whose frontmatter the subset parser leaves to PyYAML (a comment in it), in words beyond ASCII
    (root / "entities" / "commented.md").write_text(
        "---\ntitle: Café  # the name it goes by\ntype: entity\n---\n# Café\n\nSee [[fenced]].\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", WATCHED, str(root)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["on_thread"] == []
    assert "ghost-page" in result["targets"] and "not-a-link" not in result["targets"]
