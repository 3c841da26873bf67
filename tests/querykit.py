"""A small wiki built through the real ingest path, and a stand-in model that both extracts and answers.

`build_template(dest)` ingests three sources through the stand-in server over HTTP (palace included, with
the static embedder): OpenAI, GPT-4 and Sam Altman get pages (two sources each); Anthropic is mentioned by
one source only, so it stays a raw passage without a page. Tests copy that template (`QueryWiki.copy`), so
the ingest runs once per session.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from standin_openai import Behaviour, StandinServer, is_answer_request, reply
from typer.testing import CliRunner

from wikic.cli import app

SOURCES = {
    "openai-overview.md": (
        "# OpenAI overview\n\n"
        "OpenAI is an AI research company based in San Francisco.\n"
        "It released GPT-4 in March 2023.\n"
        "Sam Altman is the CEO of OpenAI.\n"
    ),
    "openai-history.md": (
        "# OpenAI history\n\n"
        "OpenAI was founded in 2015 as a non-profit.\n"
        "GPT-4 is a large multimodal model made by OpenAI.\n"
        "Sam Altman leads the company.\n"
    ),
    "anthropic-notes.md": (
        "# Anthropic notes\n\n"
        "Anthropic was founded in 2021 by former researchers.\n"
        "Its assistant is called Claude.\n"
    ),
}
# Ingested later by the staleness test: it adds a fact to entities/openai.md.
LATER_SOURCE = ("openai-london.md", "# OpenAI in London\n\nOpenAI opened an office in London in 2023.\n")


def fact(text: str, quote: str) -> dict[str, str]:
    return {"text": text, "quote": quote}


def entity(name: str, kind: str, summary: str, facts: list[dict[str, str]]) -> dict[str, Any]:
    return {"name": name, "kind": kind, "aliases": [], "summary": summary, "facts": facts}


def plan(summary: str, entities: list[dict[str, Any]]) -> dict[str, Any]:
    return {"summary": summary, "entities": entities, "concepts": [], "comparisons": [], "relations": []}


def extraction(body: dict[str, Any]) -> dict[str, Any]:
    """The plan for whichever source an extraction request carries."""
    user = body["messages"][-1]["content"]
    user = user[user.find('Source: "') :]  # the source, not the claims the wiki lists before it
    if "based in San Francisco" in user:
        return plan(
            "OpenAI and GPT-4.",
            [
                entity(
                    "OpenAI",
                    "organization",
                    "An AI research company in San Francisco.",
                    [
                        fact(
                            "OpenAI is based in San Francisco.",
                            "OpenAI is an AI research company based in San Francisco.",
                        )
                    ],
                ),
                entity(
                    "GPT-4",
                    "model",
                    "A model released by OpenAI.",
                    [fact("GPT-4 was released in March 2023.", "It released GPT-4 in March 2023.")],
                ),
                entity(
                    "Sam Altman",
                    "person",
                    "CEO of OpenAI.",
                    [fact("Sam Altman is the CEO of OpenAI.", "Sam Altman is the CEO of OpenAI.")],
                ),
            ],
        )
    if "founded in 2015" in user:
        return plan(
            "OpenAI's history.",
            [
                entity(
                    "OpenAI",
                    "organization",
                    "AI company founded in 2015.",
                    [
                        fact(
                            "OpenAI was founded in 2015 as a non-profit.", "OpenAI was founded in 2015 as a non-profit."
                        )
                    ],
                ),
                entity(
                    "GPT-4",
                    "model",
                    "A multimodal model by OpenAI.",
                    [fact("GPT-4 is a large multimodal model.", "GPT-4 is a large multimodal model made by OpenAI.")],
                ),
                entity(
                    "Sam Altman",
                    "person",
                    "Leads OpenAI.",
                    [fact("Sam Altman leads OpenAI.", "Sam Altman leads the company.")],
                ),
            ],
        )
    if "founded in 2021" in user:
        return plan("Anthropic.", [
            entity("Anthropic", "organization", "An AI company founded in 2021.",
                   [fact("Anthropic was founded in 2021.", "Anthropic was founded in 2021 by former researchers.")]),
        ])
    if "office in London" in user:
        return plan("OpenAI in London.", [
            entity("OpenAI", "organization", "An AI research company.",
                   [fact("OpenAI opened an office in London in 2023.", "OpenAI opened an office in London in 2023.")]),
        ])
    return plan("Nothing.", [])


def question_of(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    m = re.search(r"<question>\n(.*?)\n</question>", user, re.DOTALL)
    return m.group(1) if m else user


def context_of(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    m = re.search(r"<context>\n(.*?)\n</context>", user, re.DOTALL)
    return m.group(1) if m else ""


Answer = Callable[[dict[str, Any]], "Behaviour | str"]


def default_answer(body: dict[str, Any]) -> Behaviour | str:
    q = question_of(body).lower()
    if "anthropic" in q:
        return "Anthropic was founded in 2021 [[raw/articles/anthropic-notes.md]]."
    return "Sam Altman is the CEO of OpenAI [[openai]] [[sam-altman]]. GPT-4 came out in March 2023 [[gpt-4]]."


class QueryWiki:
    """One test's vault (a copy of the template) wired to one stand-in server."""

    def __init__(self, root: Path, server: StandinServer) -> None:
        self.root = root
        self.server = server
        self.answer: Answer = default_answer
        self.answer_delay = 0.0
        server.route = self._route
        write_settings(root, server)

    @classmethod
    def copy(cls, template: Path, dest: Path, server: StandinServer) -> QueryWiki:
        shutil.copytree(template, dest, symlinks=True)
        return cls(dest, server)

    def _route(self, body: dict[str, Any]) -> Behaviour | dict[str, Any] | str:
        if is_answer_request(body):
            got = self.answer(body)
            return got if isinstance(got, Behaviour) else reply(got, prompt_tokens=321, completion_tokens=45,
                                                               chunk_delay=self.answer_delay)
        return extraction(body)

    def answer_with(self, text: str | Answer) -> None:
        self.answer = text if callable(text) else (lambda _body: text)

    def answer_requests(self) -> list[dict[str, Any]]:
        """Bodies of the answer requests (streamed or not) made so far."""
        return [r.body for r in self.server.chat_requests() if is_answer_request(r.body)]

    def cli(self, *args: str, input: str | None = None) -> Any:
        return CliRunner().invoke(app, [*args, "--vault", str(self.root)], input=input, catch_exceptions=False)

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        (self.root / rel).write_text(text, encoding="utf-8")

    def log_rows(self, action: str) -> list[str]:
        return [line for line in self.read("log.md").splitlines() if f"| {action} |" in line]


def write_settings(root: Path, server: StandinServer) -> None:
    (root / "wikic.toml").write_text(
        f'[llm]\nbase_url = "{server.base_url}"\nmodel = "standin-model"\ntimeout = 10\nmax_retries = 0\n',
        encoding="utf-8",
    )


def build_template(dest: Path, inbox: Path) -> Path:
    """Ingest SOURCES into a fresh vault at `dest` through a stand-in server; returns `dest`."""
    from library import ingest
    from testkit import init_wiki

    from wikic.ingest.pipeline import IngestOptions

    init_wiki(dest, tags=("model",))
    inbox.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in SOURCES.items():
        (inbox / name).write_text(text, encoding="utf-8")
        paths.append(str(inbox / name))
    with StandinServer() as server:
        server.route = lambda body: extraction(body)
        write_settings(dest, server)
        report = ingest(dest, IngestOptions(inputs=paths))
    assert not report.failed, [s.error for s in report.failed]
    assert {"entities/openai.md", "entities/gpt-4.md", "entities/sam-altman.md"} <= set(report.created)
    return dest


def as_json(output: str) -> dict[str, Any]:
    return json.loads(output.strip().splitlines()[-1])
