"""Sessions, a scripted model that remembers what they say, and a vault to ingest them into."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki, llm_toml

from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.vault.formats.transcript import Conversation, Turn, render
from wikic.vault.slug import SOURCE, slugify

TODAY = dt.date(2026, 12, 1)


def at(day: int, hour: int = 9, minute: int = 0, month: int = 11) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute, tzinfo=dt.UTC)


def memory(kind: str, text: str, quote: str, importance: float, subject: str) -> dict[str, Any]:
    return {"kind": kind, "text": text, "quote": quote, "importance": importance, "subject": subject}


def entity(name: str, fact: str, quote: str, kind: str = "product") -> dict[str, Any]:
    return {"name": name, "kind": kind, "aliases": [], "summary": fact, "facts": [{"text": fact, "quote": quote}]}


@dataclass(frozen=True)
class Source:
    """What extraction reads of a captured source."""

    text: str
    text_path: str = "raw/transcripts/s.md"
    title: str = "Session"


@dataclass
class Session:
    """One conversation and what the model should answer about it."""

    id: str
    title: str
    turns: Sequence[tuple[str, str, dt.datetime | None]]  # (speaker, text, when)
    memories: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)

    def text(self) -> str:
        return render(Conversation(self.id, "claude-code", self.title, tuple(Turn(s, t, w) for s, t, w in self.turns)))

    def mark(self) -> str:
        """Words of its first turn: how the scripted model knows which session it is asked about."""
        return self.turns[0][1][:40]


class Scripted:
    """Answers every way wikic asks (single, names, claims, memories) from the sessions' scripts."""

    def __init__(self, sessions: Sequence[Session]) -> None:
        self.sessions = list(sessions)

    def __call__(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        ask = messages[-1]["content"]
        session = next((s for s in self.sessions if s.mark() in ask), None)
        memories = session.memories if session else []
        entities = session.entities if session else []
        if "List every named thing" in ask:
            return {"names": [{"name": e["name"], "kind": e["kind"]} for e in entities]}
        if "The facts this source states" in ask:
            return {"items": [{"name": e["name"], "facts": e["facts"]} for e in entities if f"- {e['name']}" in ask]}
        if "The memories of this conversation" in ask:
            return {"memories": memories}
        plan: dict[str, Any] = {"summary": "", "entities": entities, "concepts": [], "comparisons": [], "relations": []}
        if "memories" in messages[0]["content"]:  # asked as a transcript
            plan["memories"] = memories
        return plan


def make_vault(
    tmp_path: Path, *, strategy: str = "single", identity: str | None = None, schema: str | None = None
) -> Path:
    root = init_wiki(tmp_path / "vault", toml=llm_toml(model="scripted", strategy=strategy, concurrency=1))
    if identity is not None:
        (root / "identity.md").write_text(identity, encoding="utf-8")
    if schema is not None:
        (root / "SCHEMA.md").write_text(schema, encoding="utf-8")
    return root


def ingest_sessions(root: Path, sessions: Sequence[Session], llm: FakeLLM | None = None, *,
                    today: dt.date = TODAY, palace: bool = False) -> list[IngestReport]:
    """Ingest each session as a transcript, one run each, in order."""
    llm = llm or FakeLLM().respond_with(Scripted(sessions))
    inbox = root.parent / "inbox"
    inbox.mkdir(exist_ok=True)
    reports = []
    for session in sessions:
        path = inbox / f"{slugify(session.title, rules=SOURCE)}.md"  # raw/transcripts/ names it so
        path.write_text(session.text(), encoding="utf-8")
        report = ingest(
            root, IngestOptions(inputs=[str(path)], kind="transcripts", use_palace=palace, today=today), llm=llm
        )
        assert [s.status for s in report.sources] == ["compiled"], [(s.status, s.error) for s in report.sources]
        reports.append(report)
    return reports


# Three sessions: an instruction in the first, a comparison in the second, the decision in the third.
UV = "From now on use uv for every Python project, never pip."
S1 = Session(
    "s1",
    "Python tooling",
    [("user", UV, at(2, 9, 0)), ("assistant", "Understood, uv from now on.", at(2, 9, 1))],
    [memory("instruction", "Use uv for every Python project, never pip.", UV, 0.9, "user")],
)
COMPARE = "The billing service needs a database. Let's compare PostgreSQL and SQLite for it."
S2 = Session(
    "s2",
    "Billing database",
    [
        ("user", COMPARE, at(5, 10, 0)),
        ("assistant", "PostgreSQL handles concurrent writes better than SQLite.", at(5, 10, 2)),
    ],
    [
        memory(
            "episodic",
            "The billing service needs a database; PostgreSQL and SQLite are compared.",
            COMPARE,
            0.5,
            "billing service",
        )
    ],
)
DECIDE = "We go with PostgreSQL for the billing service. Also: always use uv for Python projects, not pip."
S3 = Session(
    "s3",
    "Billing decision",
    [("user", DECIDE, at(9, 11, 0)), ("assistant", "Noted.", at(9, 11, 1))],
    [
        memory(
            "episodic",
            "The billing service goes with PostgreSQL.",
            "We go with PostgreSQL for the billing service.",
            0.8,
            "billing service",
        ),
        memory(
            "instruction",
            "Always use uv for Python projects, not pip.",
            "always use uv for Python projects, not pip.",
            0.8,
            "user",
        ),
    ],
)
SESSIONS = (S1, S2, S3)
