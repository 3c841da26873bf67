"""The JSON Schemas in `schema/`, generated from the code and checked in, so editors and other tools can
validate what wikic reads and writes: page frontmatter per page type (`vault/fields.py`) and the chunk
plan the model is asked for (`ingest/plan_model.ChunkPlan`, and `TranscriptPlan` for a conversation, exactly
as `llm/schema.strict_schema` sends them). A test holds the files to the code; after changing either, regenerate them:

    python -m wikic.json_schemas --write     # rewrite schema/*.json in this checkout
    python -m wikic.json_schemas             # list the files that differ (exit 1 when any does)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from wikic.ingest.plan_model import ChunkPlan, TranscriptPlan
from wikic.llm.schema import strict_schema
from wikic.resources import SCHEMA, schema_text
from wikic.vault.fields import frontmatter_json_schema
from wikic.vault.layout import PAGE_FOLDERS

_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def chunk_plan_schema() -> dict[str, Any]:
    return {
        "$schema": _DRAFT,
        "title": "wikic chunk plan",
        **strict_schema(ChunkPlan),
    }


def generated() -> dict[str, str]:
    """File under schema/ -> its text, as the code defines it now."""
    schemas = {f"frontmatter/{page_type}.schema.json": frontmatter_json_schema(page_type) for page_type in PAGE_FOLDERS}
    schemas["chunk-plan.schema.json"] = chunk_plan_schema()
    schemas["transcript-plan.schema.json"] = {
        "$schema": _DRAFT,
        "title": "wikic transcript plan",
        **strict_schema(TranscriptPlan),
    }
    return {name: json.dumps(schema, indent=2, ensure_ascii=False) + "\n" for name, schema in schemas.items()}


def stale() -> list[str]:
    """The generated files whose shipped copy is missing or differs."""
    out = []
    for name, text in generated().items():
        try:
            shipped = schema_text(name)
        except FileNotFoundError:
            shipped = None
        if shipped != text:
            out.append(name)
    return out


def write(folder: Path) -> list[str]:
    """Rewrite the generated files under `folder` (the repository's schema/); the ones that changed."""
    changed = []
    for name, text in generated().items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            changed.append(name)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wikic.json_schemas", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the files of the repository's schema/ folder")
    args = parser.parse_args(argv)
    if args.write:
        folder = Path(__file__).resolve().parent.parent / SCHEMA
        if not (folder.parent / "pyproject.toml").is_file():
            print(f"error: {folder.parent} is not a wikic checkout", file=sys.stderr)
            return 2
        for name in write(folder):
            print(f"wrote {SCHEMA}/{name}")
        return 0
    differing = stale()
    for name in differing:
        print(f"{SCHEMA}/{name} differs from the code: run python -m wikic.json_schemas --write")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
