"""Regenerate the example vault with wikic itself, from its raw sources, through a scripted model.

    python tools/example_vault/build.py DEST      # build into DEST (a new or empty folder)
    python tools/example_vault/build.py --update  # rebuild example-vault/ in place

What a person wrote is read from example-vault/: the sources in raw/ (and the figure in raw/assets/),
SCHEMA.md and wikic.toml. Everything else (the pages, index.md, log.md, .obsidian/, .gitignore) is
written by wikic's own library: `init_vault`, then `ingest` once per source on the day it was captured,
then `answer_question` and `save_answer` for the two questions filed as query pages. The model is a
stand-in OpenAI-compatible server on 127.0.0.1 that answers each extraction request with the plan stored
in plans/<source>.json and each question with the answer stored in answers/<page>.json; wikic's real
client talks to it over HTTP, and wikic checks, anchors and writes everything as it would with any model.

Dates are fixed and the palace uses the static embedder, so the result is the same byte for byte on
every run. The build fails, naming what went wrong, when a source fails or a claim is dropped (its quote
is not in the source), when an answer cites something outside its context, or when strict lint is not clean.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run from a checkout without installing wikic

from wikic.conversations.transcript import TRANSCRIPTS_PREFIX as TRANSCRIPTS  # noqa: E402
from wikic.ingest.pipeline import IngestOptions, ingest  # noqa: E402
from wikic.ingest.plan_model import ChunkPlan, TranscriptPlan, dropped_claims  # noqa: E402
from wikic.lint.run import LintOptions, run_lint  # noqa: E402
from wikic.query.answer import QueryOptions, answer_question  # noqa: E402
from wikic.query.writeback import save_answer  # noqa: E402
from wikic.text.tokens import estimate_messages, estimate_tokens  # noqa: E402
from wikic.vault.anchors import find_anchors  # noqa: E402
from wikic.vault.init import init_vault  # noqa: E402

EXAMPLE = REPO / "example-vault"
PLANS = HERE / "plans"
ANSWERS = HERE / "answers"
AS_OF = dt.date(2026, 11, 29)  # the date the README lints the example vault as of

# What a person wrote: copied from the example vault as it is.
PERSON_FILES = ("SCHEMA.md", "wikic.toml")
RAW = "raw"

# Each source is ingested on the day it was captured (its frontmatter says so).
INGESTS = (
    (dt.date(2026, 9, 8), ("raw/articles/rag-in-practice.md", "raw/assets/rag-pipeline.png")),
    (dt.date(2026, 9, 21), ("raw/articles/vector-databases-field-notes.md",)),
    (dt.date(2026, 10, 5), ("raw/papers/compiled-knowledge-bases.md",)),
    (dt.date(2026, 10, 20), ("raw/transcripts/2026-10-20-team-sync-wiki-vs-rag.md",)),
    (dt.date(2026, 10, 30), ("raw/articles/embeddings-primer.md",)),
)

MODEL = "scripted-example-model"
# Settings the build runs under, whatever the caller's environment holds: the static embedder (small,
# fast, deterministic), the embedded palace, and no key or endpoint of the person running it.
CLEARED_ENV = ("WIKIC_", "OPENAI_")
BUILD_ENV = {"WIKIC_EMBEDDING_PROVIDER": "static", "ANONYMIZED_TELEMETRY": "False", "HF_HUB_OFFLINE": "1"}


class BuildError(RuntimeError):
    """The example vault could not be built as scripted; the message says what and where."""


@dataclass(frozen=True)
class Question:
    asked: dt.date
    question: str
    answer: str


@dataclass
class BuildReport:
    pages: int = 0
    links: int = 0
    anchors: int = 0  # claim anchors on the pages: every claim of every plan, each anchored to its raw lines
    model_calls: int = 0


# -- the scripted model ----------------------------------------------------------------------------------


def load_plans() -> dict[str, dict[str, Any]]:
    """raw path -> the plan stored for it, checked against the schema the model decodes under."""
    plans = {}
    for _, paths in INGESTS:
        for raw in paths:
            if not raw.endswith(".md"):
                continue  # an image is captured, not sent to the model
            path = PLANS / (Path(raw).stem + ".json")
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                # a plan no model could return under wikic's schema (a transcript's also has its memories)
                (TranscriptPlan if raw.startswith(TRANSCRIPTS) else ChunkPlan).model_validate(data)
            except (OSError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
                raise BuildError(f"{path}: {exc}") from None
            plans[raw] = data
    return plans


def load_questions() -> list[Question]:
    out = []
    for path in sorted(ANSWERS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append(Question(dt.date.fromisoformat(data["asked"]), data["question"], data["answer"]))
    return sorted(out, key=lambda q: q.asked)


_SOURCE = re.compile(r'^Source: ".*" \((raw/[^)]+)\)', re.MULTILINE)
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.DOTALL)


class ScriptedModel:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that replies from the stored plans and answers.
    A request it has no reply for gets HTTP 400 (not retried), so the build stops at once."""

    def __init__(self, plans: dict[str, dict[str, Any]], answers: dict[str, str]) -> None:
        self.plans = plans
        self.answers = answers
        self.calls = 0
        self._count = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reply(self, body: dict[str, Any]) -> str | None:
        """The reply text for a chat request: a plan (JSON) for an extraction, else an answer."""
        user = body["messages"][-1]["content"]
        if "response_format" in body:
            source = _SOURCE.search(user)
            plan = self.plans.get(source.group(1)) if source else None
            return json.dumps(plan) if plan is not None else None
        question = _QUESTION.search(user)
        return self.answers.get(question.group(1)) if question else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                content = model.reply(body) if self.path.endswith("/chat/completions") else None
                if content is None:
                    self._send(400, {"error": {"message": f"no scripted reply for this request to {self.path}"}})
                    return
                with model._count:
                    model.calls += 1
                # usage as a server would count it (wikic's own estimate, so the log's figures are stable)
                usage = {
                    "prompt_tokens": estimate_messages(body["messages"]),
                    "completion_tokens": estimate_tokens(content),
                }
                usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{model.calls}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": MODEL,
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                        ],
                        "usage": usage,
                    },
                )

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("x-should-retry", "false")
                self.end_headers()
                self.wfile.write(data)

        return Handler


# -- the build -------------------------------------------------------------------------------------------


@contextlib.contextmanager
def build_environment() -> Iterator[None]:
    saved = dict(os.environ)
    for name in list(os.environ):
        if name.startswith(CLEARED_ENV):
            del os.environ[name]
    os.environ.update(BUILD_ENV)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def build(dest: Path, inputs: Path = EXAMPLE) -> BuildReport:
    """Build the example vault into `dest` (new or empty) from the person's files in `inputs`."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise BuildError(f"{dest} is not empty")
    scheduled = {p for _, paths in INGESTS for p in paths}
    unscheduled = sorted(p.relative_to(inputs).as_posix() for p in (inputs / RAW).rglob("*") if p.is_file()
                         and p.relative_to(inputs).as_posix() not in scheduled)
    if unscheduled:
        raise BuildError(f"no ingest is scheduled for {', '.join(unscheduled)}: add it to INGESTS (and its plan)")
    plans, questions = load_plans(), load_questions()
    report = BuildReport()
    with build_environment(), ScriptedModel(plans, {q.question: q.answer for q in questions}) as model:
        init_vault(dest)
        for name in PERSON_FILES:
            shutil.copyfile(inputs / name, dest / name)
        shutil.copytree(inputs / RAW, dest / RAW, dirs_exist_ok=True)
        llm = {"base_url": model.base_url, "model": MODEL, "max_retries": 0}
        for day, paths in INGESTS:
            result = ingest(dest, IngestOptions(inputs=[str(dest / p) for p in paths], today=day, overrides=llm))
            for source in result.sources:
                problems = [source.error] if source.error else []
                for reason, count in sorted(dropped_claims(source.dropped).items()):
                    problems.append(f"{count} claim(s) dropped: {reason}")
                problems += source.dropped_items
                if source.status not in ("compiled", "asset") or problems:
                    raise BuildError(f"{day}: {source.raw_path} {source.status}: {'; '.join(problems)}")
        for q in questions:
            answered = answer_question(dest, q.question, QueryOptions(use_cache=False, overrides=llm))
            if not answered.answered or answered.rejected or answered.warnings:
                raise BuildError(f"{q.asked} query {q.question!r}: {answered.status}, rejected {answered.rejected}, "
                                 f"{answered.warnings}; context: {[i.link for i in answered.retrieval.items]}")
            saved = save_answer(dest, answered, today=q.asked)
            if saved.warnings:
                raise BuildError(f"{q.asked} query {q.question!r} saved with warnings: {saved.warnings}")
        report.model_calls = model.calls
    lint = run_lint(dest, LintOptions(today=AS_OF, use_cache=False))
    failing = [f for f in lint.findings if f.severity in ("error", "warning")]
    if failing:
        raise BuildError(
            "strict lint is not clean:\n" + "\n".join(f"{f.path}:{f.line}: {f.rule} {f.message}" for f in failing)
        )
    report.pages, report.links = lint.pages, lint.links
    report.anchors = sum(len(find_anchors(path.read_text(encoding="utf-8"))) for path in dest.glob("*/*.md"))
    return report


def update(example: Path = EXAMPLE) -> BuildReport:
    """Rebuild `example` in place: build beside it, then swap the result in."""
    staging = Path(tempfile.mkdtemp(prefix=".example-build-", dir=example.parent))
    try:
        report = build(staging / "vault", example)
        shutil.rmtree(example)
        (staging / "vault").rename(example)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the wikic example vault through wikic itself.")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("dest", nargs="?", type=Path, help="a new or empty folder to build into")
    target.add_argument("--update", action="store_true", help=f"rebuild {EXAMPLE.relative_to(REPO)}/ in place")
    args = parser.parse_args(argv)
    try:
        report = update() if args.update else build(args.dest)
    except BuildError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    print(
        f"built: {report.pages} pages, {report.links} links, {report.anchors} claim anchors, "
        f"{report.model_calls} model calls"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
