"""How the names a wiki is built on come out: which subjects get a page, which forms are one subject, which
words become links, with a careless scripted model or a real one.

    python bench/names_bench.py                                   # the careless model, bench/names_sources/
    python bench/names_bench.py --base-url http://127.0.0.1:8766/v1 --model qwen2.5-coder-1.5b
    python bench/names_bench.py --base-url ... --model ... --min-references 2 bench/heldout_sources/0*.md

The careless model (`tests/careless_model.py`) proposes every capitalised sentence opener as a name and gives
each name the other names of its source as aliases, quoting the source verbatim: what it gets wrong is names.
`expected.json` lists, written before any run, the names a careful reader expects (with the spellings the
sources use) and, optionally, ordinary words that must never become a page, an alias or a link.

It reports, as a table and with `--json` as data: pages written; names refused by reason; aliases kept and
refused by reason; subjects folded (a page carrying the names of two expected subjects); links on ordinary
words (a function word, or a word of the `ordinary` list, as a link's text); the names a reader expects that
got a page or a ledger entry; names the model invented; names found by code that the model passed over; and
what `lint --strict` finds. `entity_min_references` is 1 unless `--min-references` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from wikic.context import VaultContext  # noqa: E402
from wikic.ingest.pipeline import IngestOptions, ingest  # noqa: E402
from wikic.lint.run import LintOptions, run_lint  # noqa: E402
from wikic.text.common_words import function_word  # noqa: E402
from wikic.vault.formats.mentions import read_mentions  # noqa: E402
from wikic.vault.frontmatter import split_page  # noqa: E402
from wikic.vault.init import init_vault  # noqa: E402
from wikic.vault.names import normalize_name  # noqa: E402

SOURCES = REPO / "bench" / "names_sources"
PAGE_FOLDERS = ("entities", "concepts", "comparisons")
_LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\\?\|([^\]]+))?\]\]")


def _key(name: str) -> str:
    return normalize_name(name).replace(" ", "")


def pages_of(root: Path) -> dict[str, tuple[str, list[str], str]]:
    """path -> (title, aliases, text) of every subject page."""
    out = {}
    for folder in PAGE_FOLDERS:
        for path in sorted((root / folder).glob("*.md")):
            text = path.read_text(encoding="utf-8")
            data, _ = split_page(text)
            data = data or {}
            aliases = data.get("aliases") if isinstance(data.get("aliases"), list) else []
            out[f"{folder}/{path.name}"] = (str(data.get("title", path.stem)), [str(a) for a in aliases], text)
    return out


def measure(root: Path, report: Any, expected: dict[str, Any], seconds: float) -> dict[str, Any]:
    pages = pages_of(root)
    entities: dict[str, list[str]] = expected.get("entities", {})
    ordinary = {_key(w) for w in expected.get("ordinary", [])}
    form_of = {_key(f): subject for subject, forms in entities.items() for f in [subject, *forms]}
    waiting = [m.name for m in read_mentions(root).values()]
    named = {_key(t) for t, _, _ in pages.values()} | {_key(a) for _, al, _ in pages.values() for a in al}
    found = sorted(s for s, forms in entities.items()
                   if any(_key(f) in named | {_key(w) for w in waiting} for f in [s, *forms]))
    folded = {}
    for path, (title, aliases, _) in pages.items():
        subjects = {form_of[_key(n)] for n in (title, *aliases) if _key(n) in form_of}
        if len(subjects) > 1:
            folded[path] = sorted(subjects)
    ordinary_links = []
    for path, (_, _, text) in pages.items():
        for match in _LINK.finditer(text):
            shown = (match.group(2) or match.group(1)).strip()
            if function_word(shown) or _key(shown) in ordinary:
                ordinary_links.append(f"{path}: {match.group(0)}")
    refused = Counter(r["reason"] for s in report.sources for r in s.names_refused)
    aliases_refused = Counter(r["reason"] for s in report.sources for r in s.aliases_refused)
    lint = run_lint(VaultContext(root), LintOptions(use_cache=False, strict=True))
    return {
        "pages": len(pages),
        "page_titles": sorted(t for t, _, _ in pages.values()),
        "ordinary_titles": sorted(t for t, _, _ in pages.values() if _key(t) in ordinary or function_word(t)),
        "waiting": sorted(waiting),
        "names_refused": dict(refused),
        "names_refused_list": sorted({f"{r['name']} ({r['reason']})" for s in report.sources
                                      for r in s.names_refused}),
        "aliases_kept": sum(len(al) for _, al, _ in pages.values()),
        "aliases_refused": dict(aliases_refused),
        "subjects_folded": folded,
        "links_on_ordinary_words": ordinary_links,
        "expected_found": f"{len(found)} of {len(entities)}",
        "expected_missed": sorted(set(entities) - set(found)),
        "invented": sorted({n for s in report.sources for n in s.invented}),
        "names_found_by_code": sorted({n for s in report.sources for n in s.names_found}),
        "lint_strict": f"{lint.count('error')} error(s), {lint.count('warning')} warning(s)",
        "lint_findings": sorted({f"{f.rule}: {f.path}" for f in lint.findings if f.severity != "info"})[:20],
        "failed": [f"{s.raw_path}: {s.error}" for s in report.sources if s.status == "failed"],
        "calls": sum(s.calls for s in report.sources),
        "seconds": round(seconds, 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    sources = [Path(s) for s in args.sources] or sorted(SOURCES.glob("*.md"))
    expected_file = Path(args.expected) if args.expected else sources[0].parent / "expected.json"
    expected = json.loads(expected_file.read_text(encoding="utf-8")) if expected_file.exists() else {}
    with tempfile.TemporaryDirectory(prefix="wikic-names-") as scratch:
        root = Path(args.keep) if args.keep else Path(scratch) / "wiki"
        init_vault(root)
        schema = root / "SCHEMA.md"
        schema.write_text(schema.read_text(encoding="utf-8").replace(
            "entity_min_references: 2", f"entity_min_references: {args.min_references}"), encoding="utf-8")
        server = None
        if args.base_url:
            base_url, model = args.base_url, args.model
        else:
            import careless_model
            from standin_openai import StandinServer

            server = StandinServer().start()
            server.route = careless_model.route
            base_url, model = server.base_url, "careless"
        lines = [f'base_url = "{base_url}"', f'model = "{model}"', f"timeout = {args.timeout}", "max_retries = 0",
                 f"concurrency = {args.concurrency}", f'strategy = "{args.strategy}"',
                 f"max_output_tokens = {args.max_output_tokens}"]
        (root / "wikic.toml").write_text("[llm]\n" + "\n".join(lines) + '\n\n[embedding]\nprovider = "static"\n',
                                         encoding="utf-8")
        started = time.monotonic()
        try:
            report = ingest(VaultContext(root), IngestOptions(inputs=[str(s) for s in sources], use_palace=False,
                                                compose=args.compose, lint_after=False))
        finally:
            if server is not None:
                server.stop()
        result = measure(root, report, expected, time.monotonic() - started)
    result["model"] = model
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", help="source files (default: bench/names_sources/*.md)")
    parser.add_argument("--base-url", help="a real OpenAI-compatible endpoint (default: the careless stand-in)")
    parser.add_argument("--model", default="careless")
    parser.add_argument("--expected", help="expected.json (default: the one beside the first source)")
    parser.add_argument("--strategy", default="single", choices=("auto", "single", "two-pass"))
    parser.add_argument("--min-references", type=int, default=1, help="SCHEMA.md's entity_min_references")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-output-tokens", type=int, default=2048)
    parser.add_argument("--compose", action="store_true", help="compose the pages as prose too")
    parser.add_argument("--keep", help="build the vault here and keep it (an empty or new folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return
    for key, value in result.items():
        print(f"{key:26} {value}")


if __name__ == "__main__":
    main()
