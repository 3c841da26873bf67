"""Regenerate the example vault with wikic itself, from its raw sources, through a scripted model.

    python tools/example_vault/build.py DEST      # build into DEST (a new or empty folder)
    python tools/example_vault/build.py --update  # rebuild example-vault/ in place

What a person wrote is read from example-vault/: the sources in raw/ (and the figure in raw/assets/),
SCHEMA.md and wikic.toml. Everything else (the pages, index.md, log.md, .obsidian/, .gitignore) is
written by wikic's own library: `init_vault`, then `ingest` once per source on the day it was captured,
then `answer_question` and `save_answer` for the two questions filed as query pages. The model is a
stand-in OpenAI-compatible server on 127.0.0.1 that answers each extraction request with the plan stored
in plans/<source>.json, each request to compose a page with the prose stored in composed/<page>.json, and
each question with the answer stored in answers/<page>.json; wikic's real client talks to it over HTTP,
and wikic checks, anchors and writes everything as it would with any model.

Dates are fixed and the palace uses the static embedder, so the result is the same byte for byte on
every run. The build fails, naming what went wrong, when a source fails or a claim is dropped (its quote
is not in the source), when a page has no stored prose or a composed sentence is refused, when the stored
prose of a page does not say every claim the page ends with (or says one it does not have), when an answer
cites something outside its context, or when strict lint is not clean.
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

from wikic.compile.plan import dropped_claims  # noqa: E402
from wikic.compile.prose import ComposedPage  # noqa: E402
from wikic.context import VaultContext  # noqa: E402
from wikic.ingest.pipeline import IngestOptions, IngestReport, ingest  # noqa: E402
from wikic.ingest.plan_model import ChunkPlan, TranscriptPlan  # noqa: E402
from wikic.lint.run import LintOptions, run_lint  # noqa: E402
from wikic.query.answer import QueryOptions, answer_question  # noqa: E402
from wikic.query.writeback import save_answer  # noqa: E402
from wikic.text.tokens import estimate_messages, estimate_tokens  # noqa: E402
from wikic.vault.formats.anchors import find_anchors  # noqa: E402
from wikic.vault.formats.transcript import TRANSCRIPTS_PREFIX as TRANSCRIPTS  # noqa: E402
from wikic.vault.init import init_vault  # noqa: E402
from wikic.vault.slug import slugify  # noqa: E402

EXAMPLE = REPO / "example-vault"
PLANS = HERE / "plans"
COMPOSED = HERE / "composed"
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
    anchors: int = 0  # anchors on the pages: each claim's, and each composed sentence's (its claims' anchors)
    composed_pages: int = 0
    sentences: int = 0  # composed sentences on the pages (none refused: the build fails on a refusal)
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


def load_composed() -> dict[str, dict[str, Any]]:
    """page slug -> the prose stored for it, checked against the schema the model decodes under."""
    composed = {}
    for path in sorted(COMPOSED.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            ComposedPage.model_validate(data)
        except (OSError, ValueError) as exc:
            raise BuildError(f"{path}: {exc}") from None
        composed[path.stem] = data
    return composed


def load_questions() -> list[Question]:
    out = []
    for path in sorted(ANSWERS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append(Question(dt.date.fromisoformat(data["asked"]), data["question"], data["answer"]))
    return sorted(out, key=lambda q: q.asked)


_SOURCE = re.compile(r'^Source: ".*" \((raw/[^)]+)\)', re.MULTILINE)
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.DOTALL)
_PAGE = re.compile(r"\APage: (.+) \((\w+)\)\n")
_SECTIONS = "\nClaims, by section:\n"
_LISTED = re.compile(r"^\[(c[0-9a-f]{8})\] ", re.MULTILINE)


@dataclass
class ComposeRequest:
    """What a compose request lists: the claim the page opens with (if it does), and each section's claims."""

    title: str
    opening: list[str]
    sections: dict[str, list[str]]

    @property
    def ids(self) -> set[str]:
        return {*self.opening, *(i for ids in self.sections.values() for i in ids)}


def compose_request(user: str) -> ComposeRequest | None:
    """The page and claims a compose request lists, or None for another request."""
    page = _PAGE.match(user)
    if page is None or _SECTIONS not in user:
        return None
    head, listing = user.split(_SECTIONS, 1)
    sections: dict[str, list[str]] = {}
    for block in re.split(r"^## ", listing, flags=re.MULTILINE)[1:]:
        heading, _, claims = block.partition("\n")
        sections[heading.strip()] = _LISTED.findall(claims)
    return ComposeRequest(page.group(1), _LISTED.findall(head), sections)


def cites_only(sentence: dict[str, Any], ids: set[str]) -> bool:
    return all(i in ids for i in sentence["claims"])


def composed_reply(stored: dict[str, Any], asked: ComposeRequest) -> dict[str, Any]:
    """The stored prose of a page, as a model composing the page as it is now would write it: a page is
    composed after every ingest that changes it, while its claims still grow, so only the sentences whose
    claims are all listed (a section's of its own section), and only the sections listed."""
    lead = [s for s in stored["lead"] if cites_only(s, asked.ids)]
    if asked.opening and not all(any(i in s["claims"] for s in lead) for i in asked.opening):
        lead = []  # a lead that leaves out the claim the page opens with would not be written
    sections = [
        {"section": name, "sentences": [t for t in s["sentences"] if cites_only(t, set(asked.sections[name]))]}
        for s in stored["sections"]
        if (name := s["section"]) in asked.sections
    ]
    return {"lead": lead, "sections": sections}


def loose_prose(stored: dict[str, Any], asked: ComposeRequest) -> list[str]:
    """Where the stored prose of a page and the page as last composed part: a sentence citing a claim the
    page does not have (it would be left out), a claim no sentence of its section says (it would be written
    as a bare claim), a claim the page opens with that the lead leaves out."""
    out = []
    listed = {section: set(ids) for section, ids in asked.sections.items()}
    stored_sections = {s["section"]: s["sentences"] for s in stored["sections"]}
    for sentence in stored["lead"]:
        if not cites_only(sentence, asked.ids):
            out.append(f"the lead's {sentence['text']!r} cites a claim the page does not have")
    out += [f"the lead leaves out [{i}], which the page opens with" for i in asked.opening
            if not any(i in s["claims"] for s in stored["lead"])]
    for section in sorted(stored_sections.keys() - listed.keys()):
        out.append(f"section {section!r} is not on the page")
    for section, ids in listed.items():
        sentences = stored_sections.get(section, [])
        out += [f"{section}: {s['text']!r} cites a claim the section does not have"
                for s in sentences if not cites_only(s, ids)]
        said = {i for s in sentences for i in s["claims"]}
        out += [f"{section}: no sentence says [{i}]" for i in sorted(ids - said)]
    return out


class ScriptedModel:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that replies from the stored plans, prose and answers.
    A request it has no reply for gets HTTP 400 (not retried), so the build stops at once."""

    def __init__(
        self, plans: dict[str, dict[str, Any]], answers: dict[str, str], composed: dict[str, dict[str, Any]]
    ) -> None:
        self.plans = plans
        self.answers = answers
        self.composed = composed
        self.last_asked: dict[str, ComposeRequest] = {}  # page slug -> its latest compose request
        self.unscripted: list[str] = []  # pages asked to be composed that have no stored prose
        self.calls = 0
        self._lock = threading.Lock()
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
        """The reply text for a chat request: a page's prose (JSON) to compose it, a plan (JSON) for an
        extraction, else an answer."""
        user = body["messages"][-1]["content"]
        asked = compose_request(user)
        if asked is not None:
            return self.compose(asked)
        if "response_format" in body:
            source = _SOURCE.search(user)
            plan = self.plans.get(source.group(1)) if source else None
            return json.dumps(plan) if plan is not None else None
        question = _QUESTION.search(user)
        return self.answers.get(question.group(1)) if question else None

    def compose(self, asked: ComposeRequest) -> str | None:
        page = slugify(asked.title)
        with self._lock:
            if page not in self.composed:
                self.unscripted.append(f"{asked.title!r} (no {COMPOSED.name}/{page}.json)")
                return None
            self.last_asked[page] = asked
        return json.dumps(composed_reply(self.composed[page], asked))

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
                with model._lock:
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
    plans, composed, questions = load_plans(), load_composed(), load_questions()
    report = BuildReport()
    answers = {q.question: q.answer for q in questions}
    with build_environment(), ScriptedModel(plans, answers, composed) as model:
        init_vault(dest)
        for name in PERSON_FILES:
            shutil.copyfile(inputs / name, dest / name)
        shutil.copytree(inputs / RAW, dest / RAW, dirs_exist_ok=True)
        llm = {"base_url": model.base_url, "model": MODEL, "max_retries": 0}
        for day, paths in INGESTS:
            with VaultContext(dest, llm) as context:
                result = ingest(context, IngestOptions(inputs=[str(dest / p) for p in paths], today=day))
            check_ingest(day, result, model)
        for q in questions:
            with VaultContext(dest, llm) as context:
                answered = answer_question(context, q.question, QueryOptions(use_cache=False))
            if not answered.answered or answered.rejected or answered.warnings:
                raise BuildError(f"{q.asked} query {q.question!r}: {answered.status}, rejected {answered.rejected}, "
                                 f"{answered.warnings}; context: {[i.link for i in answered.retrieval.items]}")
            with VaultContext(dest) as context:
                saved = save_answer(context, answered, today=q.asked)
            if saved.warnings:
                raise BuildError(f"{q.asked} query {q.question!r} saved with warnings: {saved.warnings}")
        report.model_calls = model.calls
    check_prose(composed, model.last_asked)
    report.composed_pages = len(model.last_asked)
    report.sentences = sum(sentences(composed_reply(composed[page], asked)) for page, asked in model.last_asked.items())
    lint = run_lint(VaultContext(dest), LintOptions(today=AS_OF, use_cache=False))
    failing = [f for f in lint.findings if f.severity in ("error", "warning")]
    if failing:
        raise BuildError(
            "strict lint is not clean:\n" + "\n".join(f"{f.path}:{f.line}: {f.rule} {f.message}" for f in failing)
        )
    report.pages, report.links = lint.pages, lint.links
    report.anchors = sum(len(find_anchors(path.read_text(encoding="utf-8"))) for path in dest.glob("*/*.md"))
    return report


def check_ingest(day: dt.date, result: IngestReport, model: ScriptedModel) -> None:
    """Stop the build when an ingest left out a claim, failed a source, or left a page's claims as a list."""
    for source in result.sources:
        problems = [source.error] if source.error else []
        for reason, count in sorted(dropped_claims(source.dropped).items()):
            problems.append(f"{count} claim(s) dropped: {reason}")
        problems += source.dropped_items
        if source.status not in ("compiled", "asset") or problems:
            raise BuildError(f"{day}: {source.raw_path} {source.status}: {'; '.join(problems)}")
    if model.unscripted:
        raise BuildError(f"{day}: no stored prose to compose {', '.join(model.unscripted)}")
    composed = result.composed
    if composed is not None and (composed.refused or composed.failed):
        raise BuildError(f"{day}: composing {', '.join(composed.pages) or 'the changed pages'}: "
                         f"refused {composed.refused}, failed {composed.failed}")


def check_prose(composed: dict[str, dict[str, Any]], last_asked: dict[str, ComposeRequest]) -> None:
    """Stop the build when the stored prose of a page does not fit the page as the build left it, or no
    page of its name was composed: the example would show a bare claim, or the file has gone stale."""
    loose = [f"{COMPOSED.name}/{page}.json: {problem}" for page, asked in sorted(last_asked.items())
             for problem in loose_prose(composed[page], asked)]
    loose += [f"{COMPOSED.name}/{page}.json: no page of that name was composed"
              for page in sorted(composed.keys() - last_asked.keys())]
    if loose:
        raise BuildError("the stored prose does not fit the pages:\n" + "\n".join(loose))


def sentences(reply: dict[str, Any]) -> int:
    return len(reply["lead"]) + sum(len(s["sentences"]) for s in reply["sections"])


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
        f"built: {report.pages} pages, {report.links} links, {report.anchors} anchors, "
        f"{report.sentences} composed sentences on {report.composed_pages} pages, {report.model_calls} model calls"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
