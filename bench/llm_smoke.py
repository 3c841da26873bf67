"""Smoke-test wikic's LLM path against a real OpenAI-compatible endpoint (not part of the test suite).

    WIKIC_LLM_BASE_URL=http://127.0.0.1:8766/v1 WIKIC_LLM_MODEL=smollm2 python bench/llm_smoke.py

It sends the real extraction prompt and plan schema for a short sample source twice (the second time from
a fresh client, to show that the endpoint's response-format fallback was remembered), and prints what
happened as JSON: the response mode used, tokens, seconds, whether the reply validated, how many facts
anchored. Nothing is cached; the endpoint memory lives in a temporary folder unless --state is given.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from wikic.errors import WikicError
from wikic.ingest.extract.prompt import PromptContext
from wikic.ingest.extract.run import extract_plan
from wikic.llm.client import OpenAICompatible
from wikic.settings import load_settings

SAMPLE = """# The Transformer

In 2017, researchers at Google published "Attention Is All You Need", which introduced the Transformer.
The Transformer replaced recurrence with self-attention.
BERT, released by Google in 2018, is an encoder-only Transformer.
GPT-2 was released by OpenAI in February 2019.
"""


@dataclass(frozen=True)
class Sample:
    text: str = SAMPLE
    text_path: str = "raw/articles/the-transformer.md"
    title: str = "The Transformer"


def run_once(vault: Path, state: Path, args: argparse.Namespace) -> dict[str, object]:
    # A generous timeout: a small CPU model takes minutes, and a timed-out request is retried from scratch.
    overrides = {
        "max_output_tokens": args.max_output_tokens,
        "timeout": args.timeout,
        "concurrency": 1,
        "extra_body": args.extra_body,
    }
    settings = load_settings(vault, overrides)
    llm = OpenAICompatible(settings.llm, state_dir=state)
    mode_before = llm.response_mode
    started = time.perf_counter()
    try:
        result = extract_plan(
            llm, Sample(), context=PromptContext(domain="Machine learning history"), settings=settings
        )
    except WikicError as exc:
        return {
            "ok": False,
            "mode_before": mode_before,
            "mode_after": llm.response_mode,
            "seconds": round(time.perf_counter() - started, 2),
            "error": exc.message,
            "hint": exc.hint,
        }
    finally:
        llm.close()
    plan = result.plan
    return {
        "ok": True,
        "mode_before": mode_before,
        "mode_after": llm.response_mode,
        "seconds": round(time.perf_counter() - started, 2),
        "calls": result.usage.calls,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "entities": [e.name for e in plan.entities],
        "concepts": [c.name for c in plan.concepts],
        "relations": [f"{r.source} {r.relation} {r.target}" for r in plan.relations],
        "facts": len(plan.facts()),
        "anchored_facts": plan.anchored_count,
        "anchors": sorted({str(f.anchor) for f in plan.facts() if f.anchor}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", type=Path, default=None, help="read [llm] settings from this vault's wikic.toml")
    parser.add_argument("--state", type=Path, default=None, help="keep the endpoint memory here (default: a temp dir)")
    parser.add_argument("--max-output-tokens", type=int, default=1024)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per request")
    parser.add_argument(
        "--extra-body",
        type=json.loads,
        default=None,
        help="server-specific request fields as JSON, e.g. '{\"repeat_penalty\": 1.3}' for llama.cpp",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = args.vault or Path(tmp)
        state = args.state or Path(tmp) / ".wikic"
        try:
            report = {
                "first": run_once(vault, state, args),
                "second": run_once(vault, state, args),
                "endpoints_file": json.loads((state / "llm-endpoints.json").read_text())
                if (state / "llm-endpoints.json").exists()
                else None,
            }
        except WikicError as exc:  # configuration problems
            print(f"Error: {exc.message}", file=sys.stderr)
            if exc.hint:
                print(f"Hint: {exc.hint}", file=sys.stderr)
            return 2
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0 if report["first"]["ok"] else 1  # type: ignore[index]


if __name__ == "__main__":
    sys.exit(main())
