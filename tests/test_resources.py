"""templates/ and schema/: the single source of the vault skeleton, the page skeletons, the default SCHEMA.md
and the JSON Schemas, read through wikic.resources (the repository's folders in a checkout)."""

from __future__ import annotations

import datetime as dt
import importlib.resources
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from library import run_lint
from testkit import make_vault, page

from wikic import resources
from wikic.ingest.plan_model import ChunkPlan
from wikic.json_schemas import generated, main, stale
from wikic.lint.run import LintOptions
from wikic.pages.frontmatter import FM_ORDER
from wikic.pages.index_file import bare_index, render_index, section_titles
from wikic.pages.log_file import appended, row
from wikic.vault.fields import REQUIRED, fields_of
from wikic.vault.init import init_vault, vault_files
from wikic.vault.layout import PAGE_FOLDERS

REPO = Path(__file__).resolve().parents[1]


# ---- where the files are -------------------------------------------------------------------------------


def test_a_checkout_reads_the_repository_folders() -> None:
    for name in ("templates", "schema"):
        assert Path(str(resources.folder(name))) == REPO / name


def test_an_installed_copy_reads_its_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "_data" / "templates").mkdir(parents=True)
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    assert resources.folder("templates") == tmp_path / "_data" / "templates"
    assert resources.folder("schema") == REPO / "schema"  # not packaged here: the checkout's


def test_init_writes_the_default_schema_and_every_file_of_the_vault_skeleton(tmp_path: Path) -> None:
    skeleton = {name for name in resources.file_names("templates") if name.startswith("vault/")}
    assert {("templates", name) for name in skeleton} | {("schema", "SCHEMA.md")} == set(vault_files())
    init_vault(tmp_path)
    for (folder, name), rel in vault_files().items():
        assert (tmp_path / rel).read_text(encoding="utf-8") == resources.read_text(folder, name), rel
    assert (tmp_path / ".gitignore").is_file()


# ---- one source for index.md, log.md and new pages ----------------------------------------------------


def test_index_and_log_text_come_from_the_vault_skeleton() -> None:
    assert render_index([], list(PAGE_FOLDERS)) == resources.template_text("vault/index.md")
    assert bare_index() == "# Wiki Index\n"
    assert appended(None, []) == resources.template_text("vault/log.md")


@pytest.fixture
def edited_templates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A copy of templates/ and schema/ with a translated index and log, read in their place."""
    for name in ("templates", "schema"):
        shutil.copytree(REPO / name, tmp_path / "shipped" / name)
    root = tmp_path / "shipped" / "templates"
    (root / "vault" / "index.md").write_text(
        "# Index\n\n## Personen\n## Begriffe\n## Vergleiche\n## Fragen\n## Quellen\n", encoding="utf-8"
    )
    (root / "vault" / "log.md").write_text(
        "# Protokoll\n\n| Datum | Aktion | Ziel | Notiz |\n|---|---|---|---|\n", encoding="utf-8"
    )
    (root / "pages" / "query.md").write_text(
        "---\ntitle: x\ntype: query\n---\n# {{title}}\n\n> Eine Frage.\n", encoding="utf-8"
    )
    monkeypatch.setattr(resources, "folder", lambda name: tmp_path / "shipped" / name)
    for loader in (resources.index_skeleton, resources.log_skeleton, resources.page_skeleton):
        loader.cache_clear()
    yield root
    for loader in (resources.index_skeleton, resources.log_skeleton, resources.page_skeleton):
        loader.cache_clear()


def test_every_writer_of_index_and_log_follows_the_template(edited_templates: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    init_vault(vault)
    assert (vault / "index.md").read_text(encoding="utf-8").startswith("# Index\n\n## Personen\n")
    assert render_index([], list(PAGE_FOLDERS)) == (edited_templates / "vault" / "index.md").read_text(encoding="utf-8")
    assert bare_index() == "# Index\n"
    assert appended(None, [row(dt.date(2026, 1, 2), "ingest", "x", "y")]) == (
        "# Protokoll\n\n| Datum | Aktion | Ziel | Notiz |\n|---|---|---|---|\n| 2026-01-02 | ingest | x | y |\n"
    )
    assert resources.page_skeleton("query").opening("Warum?") == "# Warum?\n\n> Eine Frage.\n"


def test_page_skeletons_hold_the_fields_a_page_needs() -> None:
    for page_type in PAGE_FOLDERS:
        skeleton = resources.page_skeleton(page_type)
        assert set(REQUIRED) <= set(skeleton.keys) <= {f.name for f in fields_of(page_type)}, page_type
        assert skeleton.opening("A Title") == "# A Title\n"
        # Obsidian's Templates plugin fills {{title}} and {{date}}: the result is a valid page
        text = (
            resources.template_text(f"pages/{page_type}.md")
            .replace("{{title}}", "A Title")
            .replace("{{date}}", "2026-01-01")
        )
        data = yaml.safe_load(text.split("---\n")[1])
        jsonschema.validate(data, json.loads(resources.schema_text(f"frontmatter/{page_type}.schema.json")))
    assert resources.frontmatter_order(PAGE_FOLDERS) == FM_ORDER
    assert FM_ORDER[:8] == ("title", "created", "updated", "type", "tags", "aliases", "sources", "summary")


def test_a_broken_skeleton_says_what_it_must_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resources, "template_text", lambda name: "# Index\n\n## Entities\n")
    resources.index_skeleton.cache_clear()
    try:
        per_type = r"one '## heading' per page type \(entity, concept, comparison, query, source\)"
        with pytest.raises(ValueError, match=per_type):
            section_titles()
        monkeypatch.setattr(resources, "template_text", lambda name: "Index\n")
        resources.index_skeleton.cache_clear()
        with pytest.raises(ValueError, match="must start with a '# title' line"):
            resources.index_skeleton()
    finally:
        resources.index_skeleton.cache_clear()


# ---- the JSON Schemas ----------------------------------------------------------------------------------


def test_the_checked_in_schemas_are_what_the_code_generates() -> None:
    assert set(generated()) == {name for name in resources.file_names("schema") if name.endswith(".json")}
    assert stale() == []
    assert main([]) == 0


def test_a_stale_schema_is_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    (tmp_path / "schema" / "chunk-plan.schema.json").write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(resources, "folder", lambda name: tmp_path / name)
    assert main([]) == 1
    assert "schema/chunk-plan.schema.json differs from the code" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(generated()))
def test_every_schema_is_a_valid_json_schema(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(resources.schema_text(name)))


def test_the_chunk_plan_schema_is_what_the_model_is_asked_for() -> None:
    from wikic.llm.schema import strict_schema

    shipped = json.loads(resources.schema_text("chunk-plan.schema.json"))
    assert {k: v for k, v in shipped.items() if k not in ("$schema", "title")} == strict_schema(ChunkPlan)
    reply = ChunkPlan.model_validate({
        "summary": "s",
        "entities": [{"name": "OpenAI", "kind": "organization", "aliases": [], "summary": "A lab.", "facts": []}],
        "concepts": [], "comparisons": [], "relations": [],
    }).model_dump(mode="json")
    jsonschema.validate(reply, shipped)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**reply, "extra": 1}, shipped)


def _as_json(value: Any) -> Any:
    """A YAML value as a JSON tool sees it (dates become text)."""
    if isinstance(value, dict):
        return {str(k): _as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    return value.isoformat() if isinstance(value, dt.date) else value


# Frontmatter a JSON Schema can judge (the taxonomy and the raw files existing need the vault).
SAMPLES: dict[str, dict[str, Any]] = {
    "valid": {},
    "valid-with-extras": {"aliases": ["A"], "summary": "S.", "contested": True, "contradictions": ["b"], "mine": 3},
    "missing-title": {"title": None},
    "empty-title": {"title": " "},
    "number-title": {"title": 12},
    "missing-sources": {"sources": None},
    "sources-not-a-list": {"sources": "raw/articles/source-a.md"},
    "source-outside-raw": {"sources": ["notes/x.md"]},
    "bad-date": {"created": "yesterday"},
    "tags-not-a-list": {"tags": "architecture"},
    "aliases-of-numbers": {"aliases": [1, 2]},
    "contested-as-text": {"contested": "yes"},
    "summary-a-list": {"summary": ["a"]},
    "wrong-type": {"type": "concept"},
}


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_the_frontmatter_schema_judges_a_page_as_lint_does(tmp_path: Path, sample: str) -> None:
    values: dict[str, Any] = {"title": "A", **SAMPLES[sample]}
    text = page(values.pop("title"), body="# A\n\n[[b]] [[c]]\n", **values)
    root = make_vault(tmp_path, {"entities/a.md": text, "entities/b.md": page("B"), "entities/c.md": page("C")})
    report = run_lint(root, LintOptions(select=("frontmatter",), use_cache=False))
    lint_errors = [f for f in report.findings if f.path == "entities/a.md" and f.severity == "error"]
    data = _as_json(yaml.safe_load((root / "entities/a.md").read_text(encoding="utf-8").split("---\n")[1]))
    schema = json.loads(resources.schema_text("frontmatter/entity.schema.json"))
    schema_errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    assert bool(lint_errors) == bool(schema_errors), (lint_errors, [e.message for e in schema_errors])
    assert bool(schema_errors) == (not sample.startswith("valid"))
