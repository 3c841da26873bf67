"""Ingest a handful of short sources into a fresh vault through a real model, and say what came of it.

    python bench/live_ingest.py --base-url http://127.0.0.1:8766/v1 --model qwen2.5-coder-1.5b
    python bench/live_ingest.py --base-url ... --model ... --strategy two-pass --no-example SOURCES...

Without SOURCES it takes the five sources of `bench/live_sources/` (English and Chinese, naming the same
things) and their `expected.json`: the named things a careful reader would expect. It reports, as a table
and with `--json` as data:
- pages created, and names waiting in the mention ledger (below `entity_min_references`);
- how many of the expected things got a page or a ledger entry (the coverage a user sees);
- anchored claims on the pages (each one found in its source and supported by its quote), claims per page,
  and claims the compiler dropped, by reason (no quote, unsupported, invented name); quotes repaired;
- names the model invented (proposed, but never written in the source), and pages whose claims lack an
  anchor (should be none);
- seconds, model calls, tokens, and the strategy each source was asked with;
- the pages as a reader meets them: pages with a lead, claims stated by several sources (one line, every
  anchor), disagreements shown under Contradictions, claims that are the source's own sentence found by code
  (`by=sentence`) against those the model stated;
- composing (each changed page's claims written as checked prose): pages composed, sentences written and
  refused by reason, calls, tokens and seconds. With `--compare-compose` the run first compiles with
  composing off (the claim lists), measures, then compiles again from the cached extraction replies with
  composing on, in a second vault made the same way (`KEEP-composed` with `--keep`), so the same claims are
  measured both ways (`extraction_cache_misses` says whether they are: 0).
Nothing is cached between runs (each run is a fresh vault) unless `--keep DIR` is given.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from wikic.context import VaultContext  # noqa: E402
from wikic.ingest.pipeline import IngestOptions, ingest  # noqa: E402
from wikic.pages.blocks import find_block  # noqa: E402
from wikic.vault.formats.anchors import find_anchors  # noqa: E402
from wikic.vault.formats.claims import BY_SENTENCE, scan  # noqa: E402
from wikic.vault.frontmatter import split_page  # noqa: E402
from wikic.vault.init import init_vault  # noqa: E402
from wikic.vault.names import normalize_name  # noqa: E402

SOURCES = REPO / "bench" / "live_sources"
# what composing changes, measured on the same claims
COMPARED = ("pages_with_a_lead", "composed_pages", "composed_sentences", "refused", "compose_failed", "compose_calls",
            "compose_tokens", "compose_seconds", "anchored_claims", "unanchored_claim_lines")
PAGE_FOLDERS = ("entities", "concepts", "comparisons")


def _keys(name: str) -> set[str]:
    key = normalize_name(name)
    return {key, key.replace(" ", "")}


def claims_on(text: str) -> tuple[int, int]:
    """(claims with an anchor, claim lines without one) in the compiler's blocks of a page: each claim once,
    whether it stands as a list item or in the callout under composed prose."""
    anchored = len({c.id for c in scan(text) if c.citations and c.block and not c.block.startswith("related")})
    bare = 0
    inside = False
    for line in text.split("\n"):
        if line.startswith("<!-- wikic:begin "):
            inside = line.split()[2].startswith("section:")
            continue
        if line.startswith("<!-- wikic:end "):
            inside = False
            continue
        if inside and line.startswith("- ") and not find_anchors(line):
            bare += 1
    return anchored, bare


def reading(text: str) -> dict[str, Any]:
    """What a reader meets on a page: a lead, claims several sources state, disagreements, found sentences."""
    _, body = split_page(text)
    lead = find_block(body, "summary")
    claims = {c.id: c for c in scan(text) if c.citations}
    return {
        "lead": bool(lead and lead[3].strip()),
        "shared_claims": sum(1 for c in claims.values() if len({x.source for x in c.citations}) > 1),
        "contradictions": text.count("> [!warning]"),
        "found_sentences": sum(1 for c in claims.values() if any(x.by == BY_SENTENCE for x in c.citations)),
        "model_claims": sum(1 for c in claims.values() if not any(x.by == BY_SENTENCE for x in c.citations)),
    }


def composing(report: Any) -> dict[str, Any]:
    done = getattr(report, "composed", None)
    if done is None:
        return {"composed_pages": 0}
    return {
        "composed_pages": len(done.pages), "composed_sentences": done.sentences, "refused": dict(done.refused),
        "compose_failed": dict(done.failed), "compose_calls": done.calls,
        "compose_tokens": done.prompt_tokens + done.completion_tokens, "compose_seconds": round(done.seconds, 1),
    }


def measure(root: Path, report: Any, expected: dict[str, list[str]], seconds: float) -> dict[str, Any]:
    pages: dict[str, dict[str, Any]] = {}
    for folder in PAGE_FOLDERS:
        for path in sorted((root / folder).glob("*.md")):
            text = path.read_text(encoding="utf-8")
            data, _ = split_page(text)
            anchored, bare = claims_on(text)
            names = [str((data or {}).get("title", path.stem)), *((data or {}).get("aliases") or [])]
            pages[path.relative_to(root).as_posix()] = {"names": names, "claims": anchored, "unanchored": bare,
                                                        **reading(text)}
    mentions_file = root / ".wikic" / "mentions.json"
    mentions = (
        json.loads(mentions_file.read_text(encoding="utf-8")).get("mentions", {}) if mentions_file.exists() else {}
    )
    waiting = {item["name"]: [*item.get("aliases", [])] for item in mentions.values()}
    known = {key for p in pages.values() for n in p["names"] for key in _keys(n)}
    known_waiting = {key for name, aliases in waiting.items() for n in (name, *aliases) for key in _keys(n)}
    found = {
        thing: (
            "page"
            if any(_keys(n) & known for n in names)
            else "ledger"
            if any(_keys(n) & known_waiting for n in names)
            else None
        )
        for thing, names in expected.items()
    }
    dropped: dict[str, int] = {}
    for s in report.sources:
        for reason, count in s.dropped.items():
            dropped[reason] = dropped.get(reason, 0) + count
    totals = report.totals()
    claims = [p["claims"] for p in pages.values()]
    return {
        "pages": len(pages),
        "waiting": sorted(waiting),
        "expected_found": sum(1 for v in found.values() if v),
        "expected": len(expected),
        "coverage": round(sum(1 for v in found.values() if v) / len(expected), 3) if expected else None,
        "missed": sorted(k for k, v in found.items() if not v),
        "anchored_claims": sum(claims),
        "claims_per_page_min": min(claims) if claims else 0,
        "claims_per_page_mean": round(sum(claims) / len(claims), 2) if claims else 0,
        "pages_with_fewer_than_3_claims": sorted(p for p, v in pages.items() if v["claims"] < 3),
        "unanchored_claim_lines": sum(p["unanchored"] for p in pages.values()),
        "dropped": dropped,
        "repaired_quotes": sum(s.repaired_quotes for s in report.sources),
        "invented_names": sorted({n for s in report.sources for n in s.invented}),
        "nothing_extracted": [s.raw_path for s in report.sources if s.nothing_extracted],
        "failed": {s.raw_path: s.error for s in report.sources if s.status == "failed"},
        "strategies": {s.raw_path: s.strategy for s in report.sources},
        "seconds": round(seconds, 1),
        "calls": totals["calls"],
        "prompt_tokens": totals["prompt_tokens"],
        "completion_tokens": totals["completion_tokens"],
        "page_claims": {p: v["claims"] for p, v in pages.items()},
        "pages_with_a_lead": sum(1 for v in pages.values() if v["lead"]),
        "claims_from_several_sources": sum(v["shared_claims"] for v in pages.values()),
        "contradictions_shown": sum(v["contradictions"] for v in pages.values()),
        "found_sentence_claims": sum(v["found_sentences"] for v in pages.values()),
        "model_stated_claims": sum(v["model_claims"] for v in pages.values()),
        **composing(report),
    }


def not_in_sources(root: Path, texts: str) -> list[str]:
    """Titles of pages the sources never write (checked here apart from wikic's own rule): should be none."""
    from wikic.ingest.anchor import AnchorIndex

    index = AnchorIndex(texts, "sources")
    out = []
    for folder in ("entities",):
        for path in sorted((root / folder).glob("*.md")):
            data, _ = split_page(path.read_text(encoding="utf-8"))
            names = [str((data or {}).get("title", path.stem)), *((data or {}).get("aliases") or [])]
            if not any(index.contains(n) for n in names):
                out.append(names[0])
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    sources = [Path(s) for s in args.sources] or sorted(p for p in SOURCES.glob("*.md"))
    expected_file = Path(args.expected) if args.expected else SOURCES / "expected.json"
    expected = json.loads(expected_file.read_text(encoding="utf-8"))["entities"] if expected_file.exists() else {}
    with tempfile.TemporaryDirectory(prefix="wikic-live-") as scratch:
        root = Path(args.keep) if args.keep else Path(scratch) / "wiki"
        init_vault(root)
        if args.entity_min_claims is not None:
            schema = root / "SCHEMA.md"
            text = schema.read_text(encoding="utf-8")
            schema.write_text(text.replace("## Page Thresholds\n",
                                           f"## Page Thresholds\n- entity_min_claims: {args.entity_min_claims}\n"),
                              encoding="utf-8")
        lines = [f'base_url = "{args.base_url}"', f'model = "{args.model}"', f"timeout = {args.timeout}",
                 "max_retries = 0", f"concurrency = {args.concurrency}", f'strategy = "{args.strategy}"',
                 f"max_output_tokens = {args.max_output_tokens}"]
        (root / "wikic.toml").write_text("[llm]\n" + "\n".join(lines) + "\n", encoding="utf-8")
        started = time.monotonic()
        options = IngestOptions(inputs=[str(s) for s in sources], use_palace=False, worked_example=not args.no_example,
                                compose=False if args.compare_compose or args.no_compose else None)
        report = ingest(VaultContext(root), options)  # no palace: nothing to close
        result = measure(root, report, expected, time.monotonic() - started)
        texts = " ".join(s.read_text(encoding="utf-8") for s in sources)
        result["page_names_not_in_sources"] = not_in_sources(root, texts)
        if args.compare_compose:
            # the same extraction, now composed: a new vault made the same way, given the first run's cached
            # replies, asks the model the same requests (the first vault's pages would change the prompts)
            second = Path(f"{args.keep.rstrip('/')}-composed") if args.keep else Path(scratch) / "composed"
            init_vault(second)
            for name in ("wikic.toml", "SCHEMA.md"):
                shutil.copyfile(root / name, second / name)
            shutil.copytree(root / ".wikic" / "cache" / "llm", second / ".wikic" / "cache" / "llm",
                            dirs_exist_ok=True)
            started = time.monotonic()
            again = ingest(VaultContext(second), replace(options, compose=True))
            composed = measure(second, again, expected, time.monotonic() - started)
            result["with_compose"] = {k: composed[k] for k in COMPARED}
            # extraction requests the cache did not answer (0: the claims are the first run's)
            result["with_compose"]["extraction_cache_misses"] = sum(s.calls - s.cached_calls for s in again.sources)
    result["model"], result["strategy"], result["worked_example"] = args.model, args.strategy, not args.no_example
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", help="source files (default: bench/live_sources/*.md)")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--strategy", default="auto", choices=("auto", "single", "two-pass"))
    parser.add_argument("--no-example", action="store_true", help="leave the worked example out of the prompts")
    parser.add_argument("--expected", help="JSON with {'entities': {name: [spellings]}} (default: the sources' own)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds the server may stay silent")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-output-tokens", type=int, default=2048)
    parser.add_argument("--keep", help="build the vault here and keep it (an empty or new folder)")
    parser.add_argument("--entity-min-claims", type=int, help="SCHEMA.md's entity_min_claims for the vault")
    parser.add_argument("--no-compose", action="store_true", help="keep the claim lists ([llm] compose = false)")
    parser.add_argument("--compare-compose", action="store_true",
                        help="measure the pages with composing off, then on (extraction replies from the cache)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return
    for key in (
        "model", "strategy", "worked_example", "pages", "waiting", "coverage", "expected_found", "missed",
        "anchored_claims", "claims_per_page_min", "claims_per_page_mean", "pages_with_fewer_than_3_claims",
        "unanchored_claim_lines", "dropped", "repaired_quotes", "invented_names", "page_names_not_in_sources",
        "nothing_extracted", "failed", "strategies", "seconds", "calls", "prompt_tokens", "completion_tokens",
        "pages_with_a_lead", "claims_from_several_sources", "contradictions_shown", "found_sentence_claims",
        "model_stated_claims", "composed_pages", "composed_sentences", "refused", "compose_failed", "compose_calls",
        "compose_tokens", "compose_seconds", "with_compose",
    ):
        if key in result:
            print(f"{key:32} {result[key]}")


if __name__ == "__main__":
    main()
