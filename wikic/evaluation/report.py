"""The report `wikic eval` gives: the figures of each subject page, their sums for the vault, what the runs
refused by reason, and the health score of each page and of the vault (`score.py` says how it is made).

Every figure is a count, and each share a score weighs is a pair of counts (so many of so many): a report
read as JSON says how a share was made, and a page with nothing of a kind (no anchors, no sections) has no
share of it rather than a perfect one. A model's verdicts, when a judge has given them, are `judged`: a
section of their own, which the figures the code checks never depend on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic import __version__
from wikic.evaluation.score import SHARES, health

FORMAT = 1  # the JSON report's format: a key's meaning never changes within one


@dataclass
class Figures:
    """What the code checks of one page, or of the vault's pages summed. Each `*_ok` counts of its total
    those that hold: cited, anchored, not drifted, specifics stated, meeting the layout, resolving."""

    pages: int = 0
    sentences: int = 0  # prose sentences of the body (outside the Claims callout, lists, code and comments)
    sentences_cited: int = 0  # of those, each followed by an anchor
    claims: int = 0  # claim lines (`- text ^[anchor] ^id`), in the Claims callout or a section
    claims_anchored: int = 0  # of those, each with an anchor citing a raw file
    anchors: int = 0  # the anchors of the claims and cited sentences, each checked against raw/ as it is now
    anchors_holding: int = 0  # of those, their lines still there in a source unchanged since its capture
    checked: int = 0  # claims and cited sentences whose specifics were checked against their quotes
    specifics_stated: int = 0  # of those, every number, date, version and name stated by their quotes
    leads: int = 0  # pages opening with a lead (lint's `no-lead` finds none)
    sections: int = 0  # `##` sections
    sections_in_layout: int = 0  # of those, a section of SCHEMA.md's layout in its order, or one wikic writes
    links: int = 0  # links out of the page
    links_resolving: int = 0  # of those, not reported broken by lint
    orphans: int = 0  # pages no other subject page links to
    contradictions: int = 0  # open contradictions (lint's `contradiction`: contested claims, a contested mark)
    contested: int = 0  # pages with an open contradiction
    sentences_refused: dict[str, int] = field(default_factory=dict)  # composed sentences refused, by reason

    def add(self, other: Figures) -> None:
        mine, theirs = self.__dict__, other.__dict__
        for name in _COUNTS:
            mine[name] += theirs[name]
        for reason, n in other.sentences_refused.items():
            self.sentences_refused[reason] = self.sentences_refused.get(reason, 0) + n

    @property
    def drifted(self) -> int:
        return self.anchors - self.anchors_holding

    @property
    def uncited(self) -> int:
        return self.sentences - self.sentences_cited

    @property
    def unsupported(self) -> int:
        return self.checked - self.specifics_stated

    def shares(self) -> dict[str, tuple[int, int]]:
        """Each share the score weighs, as (holding, of): `score.SHARES` names them."""
        return {
            "cited": (self.sentences_cited, self.sentences),
            "anchored": (self.claims_anchored, self.claims),
            "holding": (self.anchors_holding, self.anchors),
            "specifics": (self.specifics_stated, self.checked),
            "lead": (self.leads, self.pages),
            "layout": (self.sections_in_layout, self.sections),
            "links": (self.links_resolving, self.links),
            "linked": (self.pages - self.orphans, self.pages),
            "uncontested": (self.pages - self.contested, self.pages),
        }

    @property
    def score(self) -> float | None:
        """The health score out of 100 (None: nothing to score)."""
        return health(self.shares())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: value for name, value in self.__dict__.items() if name != "sentences_refused"}
        out["sentences_refused"] = dict(sorted(self.sentences_refused.items()))
        shares = self.shares()  # once for both: a big vault's report has a row of them for each of its pages
        out["shares"] = {name: {"holding": a, "of": b} for name, (a, b) in shares.items()}
        score = health(shares)
        out["score"] = None if score is None else round(score, 1)
        return out


_COUNTS = tuple(name for name, value in Figures().__dict__.items() if isinstance(value, int))  # what a sum adds up


@dataclass
class PageRow:
    """One subject page: its path, title and figures."""

    path: str
    title: str
    kind: str
    figures: Figures

    @property
    def score(self) -> float | None:
        return self.figures.score

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "title": self.title, "type": self.kind, **self.figures.to_dict()}


@dataclass
class Refusals:
    """What the runs kept out of the vault, by reason, as their records hold it: the compiled ledger's entry of
    each source (claims dropped, names and aliases refused, pairings refused) and the composed ledger's entry
    of each page (sentences refused)."""

    claims: dict[str, int] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)
    aliases: dict[str, int] = field(default_factory=dict)
    sentences: dict[str, int] = field(default_factory=dict)
    pairings: int = 0  # pairings and intervals refused (a date or a replaced claim the source does not bear out)
    summaries: int = 0  # the model's summaries no quote supports, each replaced by the page's first claim

    @property
    def total(self) -> int:
        return (sum(sum(d.values()) for d in (self.claims, self.names, self.aliases, self.sentences)) + self.pairings
                + self.summaries)

    def to_dict(self) -> dict[str, Any]:
        return {"claims": dict(sorted(self.claims.items())), "names": dict(sorted(self.names.items())),
                "aliases": dict(sorted(self.aliases.items())), "sentences": dict(sorted(self.sentences.items())),
                "pairings": self.pairings, "summaries": self.summaries, "total": self.total}


@dataclass
class JudgeSummary:
    """A model's verdicts on the claims and sentences (`wikic eval --judge`), read from `.wikic/`: the judge,
    how many it judged, its verdicts by label, the support rate with its 95 % interval, the judge's accuracy on
    the calibration set, and each page's verdicts by label."""

    model: str
    judged: int
    verdicts: dict[str, int] = field(default_factory=dict)
    support_rate: float | None = None
    interval: tuple[float, float] | None = None
    calibration: float | None = None
    pages: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "judged": self.judged, "verdicts": dict(self.verdicts),
                "support_rate": self.support_rate, "interval": list(self.interval) if self.interval else None,
                "calibration": self.calibration, "pages": self.pages}


@dataclass
class EvalReport:
    vault: str
    figures: Figures  # the vault's subject pages summed
    pages: list[PageRow]  # worst first (`ranked`)
    names_waiting: int = 0  # names below their SCHEMA.md threshold, waiting in the mentions ledger for a page
    sources: int = 0  # sources the compiled ledger records
    sources_drifted: list[str] = field(default_factory=list)  # raw files changed or gone since their capture
    refusals: Refusals = field(default_factory=Refusals)
    judged: JudgeSummary | None = None
    seconds: float = 0.0
    out: Path | None = None  # where `--out` writes the rendered report (checked before the report was made)

    @property
    def score(self) -> float | None:
        return self.figures.score

    def below(self, minimum: float) -> bool:
        """The vault's score is under `minimum` (a vault with nothing to score is not)."""
        score = self.score
        return score is not None and round(score, 1) < minimum

    def to_dict(self) -> dict[str, Any]:
        score = self.score
        return {
            "wikic": __version__,
            "format": FORMAT,
            "vault": self.vault,
            "score": None if score is None else round(score, 1),
            "weights": dict(SHARES),
            "figures": self.figures.to_dict(),
            "names_waiting": self.names_waiting,
            "sources": self.sources,
            "sources_drifted": list(self.sources_drifted),
            "refusals": self.refusals.to_dict(),
            "judged": self.judged.to_dict() if self.judged is not None else None,
            "pages": [row.to_dict() for row in self.pages],
            "seconds": round(self.seconds, 3),
        }


def ranked(rows: list[PageRow]) -> list[PageRow]:
    """Worst first: the lowest score, then the most sentences left uncited and anchors drifted, then by path; a
    page with nothing to score last."""
    def key(row: PageRow) -> tuple[bool, float, int, str]:
        score = row.score
        return score is None, score or 0.0, -(row.figures.uncited + row.figures.drifted), row.path

    return sorted(rows, key=key)
