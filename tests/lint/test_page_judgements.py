"""The page rules' judgement cache: what they found on a page holds while the page, SCHEMA.md and the rules do
not change; anything else is judged again. (test_page_rules.py runs every case of the rules through it too.)"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from library import run_lint
from pagekit import BAD, claim, compiled
from testkit import DEFAULT_SCHEMA, make_vault, page

from wikic.lint.run import LintOptions
from wikic.vault.state import PAGE_JUDGEMENTS, state_file


def test_an_unchanged_page_is_not_judged_again_and_a_changed_one_or_another_schema_is(tmp_path: Path) -> None:
    rules = ("no-lead", "repeated-claim", "uncited-sentence")
    root = make_vault(tmp_path, {"entities/acme.md": page("Acme", body=BAD),
                                 "entities/bolt.md": page("Bolt", body=BAD)})
    options = LintOptions(select=rules, use_cache=True)
    first = run_lint(root, options).findings
    assert sorted({f.path for f in first}) == ["entities/acme.md", "entities/bolt.md"]
    cache = state_file(root, PAGE_JUDGEMENTS)
    assert cache is not None and cache.is_file()
    # what the cache says of bolt.md is what a lint reports while bolt.md is unchanged, not a judgement made again
    data = json.loads(cache.read_text(encoding="utf-8"))
    data["pages"]["entities/bolt.md"][2] = {"no-lead": [
        {"rule": "no-lead", "severity": "warning", "path": "entities/bolt.md", "line": 1, "column": 1,
         "message": "from the cache"}]}
    cache.write_text(json.dumps(data), encoding="utf-8")
    acme = root / "entities/acme.md"
    acme.write_text(page("Acme", body=compiled(claim("Acme is fast."))), encoding="utf-8")  # now clean
    # a whole lint, whose parse reads that cache (a lint from the last whole lint's findings would take bolt.md's
    # from there, `lint/changed.py`)
    (root / ".wikic" / "cache" / "lint-base.json").unlink()
    again = run_lint(root, options).findings
    assert [(f.path, f.message) for f in again] == [("entities/bolt.md", "from the cache")]
    # the same size and a new mtime: judged again
    bolt = root / "entities/bolt.md"
    stat = bolt.stat()
    os.utime(bolt, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert [f.path for f in run_lint(root, options).findings] == ["entities/bolt.md"] * 3
    # another SCHEMA.md: every page judged again (the tampered row is gone with the old cache)
    data = json.loads(cache.read_text(encoding="utf-8"))
    data["pages"]["entities/bolt.md"][2] = {}
    cache.write_text(json.dumps(data), encoding="utf-8")
    (root / "SCHEMA.md").write_text(DEFAULT_SCHEMA + "\n", encoding="utf-8")
    assert [f.path for f in run_lint(root, options).findings] == ["entities/bolt.md"] * 3


def test_a_damaged_judgement_cache_is_judged_anew(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"entities/acme.md": page("Acme", body=BAD)})
    options = LintOptions(select=("no-lead",), use_cache=True)
    expected = run_lint(root, options).findings
    cache = state_file(root, PAGE_JUDGEMENTS)
    assert cache is not None
    for damaged in ("{not json", '{"key": 3}', "[]", ""):
        cache.write_text(damaged, encoding="utf-8")
        (root / "entities/acme.md").touch()
        assert run_lint(root, LintOptions(select=("no-lead",), use_cache=True, today=dt.date(2026, 1, 1))).findings \
            == expected
