"""`wikic eval --judge` and `--calibrate`: a model's verdicts on the vault's claims and cited sentences against
the quotes they cite (`compile/judge.py` asks), and the judge's own accuracy on a labelled set.

Each claim and each cited sentence of the subject pages is judged against the lines its anchors name in `raw/`
as it is now; `sample` judges that many of them, drawn with a fixed seed, so the same sample is judged again
(and answered from the reply cache) until the vault changes. The support rate is the share judged supported,
with its 95 % Wilson interval; the verdicts are kept in `.wikic/judged.json`, and `wikic eval` shows them.

The calibration set (`data/judge_calibration.jsonl`) is written by hand for this purpose, never by a model:
claim–quote pairs labelled supported, a number changed, a negation flipped, the subject swapped, a comparison
reversed, an over-general "always", and two facts joined by a cause the quote does not state, in English and
Chinese. The judge is right on a supported pair when it says supported, and on any other when it says
unsupported or contradicted ("partly" too for an "always" or a cause, which leave part of the sentence true).
The last calibration is kept in `.wikic/judge-calibration.json` with the judge's model, and the support rate is
shown beside it.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from wikic.compile.judge import Item, judge, model_name
from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.evaluation import checks
from wikic.evaluation.report import JudgeSummary
from wikic.evaluation.verdicts import saved_summary
from wikic.lint.page_text import PageText
from wikic.lint.rules._pages import subject_page
from wikic.llm.cache import ReplyCache
from wikic.llm.client import LLM
from wikic.vault.formats.anchors import parse_spec
from wikic.vault.layout import require_vault
from wikic.vault.load import load_vault, walk
from wikic.vault.resolve import fold_name
from wikic.vault.state import JUDGE_CALIBRATION, JUDGED, state_dir, write_json

SEED = 43  # the sample's seed: the same vault draws the same sample
LABELS = ("supported", "number", "negation", "subject", "comparison", "always", "cause")
_RIGHT = {label: {"unsupported", "contradicted"} for label in LABELS} | {
    "supported": {"supported"},
    "always": {"unsupported", "contradicted", "partly"},
    "cause": {"unsupported", "contradicted", "partly"},
}


@dataclass(frozen=True)
class JudgeOptions:
    sample: int | None = None  # judge this many, drawn at random (seeded); None: all
    page: str | None = None  # only this page (its path, file name or title)
    seed: int = SEED


@dataclass(frozen=True)
class Pair:
    label: str
    lang: str
    sentence: str
    quote: str


@dataclass
class Calibration:
    model: str
    pairs: int
    right: dict[str, int] = field(default_factory=dict)  # label -> pairs judged right
    total: dict[str, int] = field(default_factory=dict)  # label -> pairs

    @property
    def accuracy(self) -> float | None:
        n = sum(self.total.values())
        return sum(self.right.values()) / n if n else None

    def by_label(self) -> dict[str, float]:
        return {label: self.right.get(label, 0) / n for label, n in self.total.items() if n}

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "pairs": self.pairs, "accuracy": self.accuracy, "right": self.right,
                "total": self.total}


def calibration_pairs() -> list[Pair]:
    text = files("wikic.evaluation").joinpath("data/judge_calibration.jsonl").read_text(encoding="utf-8")
    return [Pair(**json.loads(line)) for line in text.splitlines() if line.strip()]


def items(context: VaultContext, page: str | None = None) -> list[Item]:
    """Every claim and cited sentence of the subject pages (or of `page`), with the lines it cites as they are
    in `raw/` now; one whose lines are all gone is left out (`wikic eval` counts it drifted)."""
    root = Path(context.root).resolve()
    require_vault(root)
    schema = context.checked_schema()
    vault = load_vault(root, use_cache=True, walked=walk(root), schema=schema)
    raw: dict[str, checks.RawFile] = {}
    wanted = fold_name(page.strip().removesuffix(".md")) if page else None
    out: list[Item] = []
    found = False
    for path in vault.subject_pages:
        note = vault.notes.get(path)
        if note is None or not subject_page(vault.page_type(path)):
            continue
        title = str(note.frontmatter.get("title") or "") if isinstance(note.frontmatter, dict) else ""
        if wanted is not None and wanted not in (fold_name(path.removesuffix(".md")),
                                                 fold_name(path.rsplit("/", 1)[-1][:-3]), fold_name(title)):
            continue
        found = True
        try:
            text = (root / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        *_, said = checks.said(PageText(text.replace("\r\n", "\n").replace("\r", "\n"), note))
        for n, statement in enumerate(said):
            quotes = []
            for spec in statement.cited:
                cited = parse_spec(spec)
                if cited is None:
                    continue
                if cited.path not in raw:
                    raw[cited.path] = checks.RawFile(root, cited.path, None)
                quote = raw[cited.path].quote(cited)
                if quote is not None:
                    quotes.append(quote)
            if quotes:
                out.append(Item(f"{path}#{n}", statement.text, tuple(dict.fromkeys(quotes))))
    if wanted is not None and not found:
        raise UsageError(f"no subject page is named '{page}'",
                         hint="give a page's path (entities/acme.md), its file name or its title")
    return out


def judge_vault(context: VaultContext, options: JudgeOptions = JudgeOptions(), *,
                llm: LLM | None = None) -> JudgeSummary:
    """Judge the vault's claims and cited sentences (a seeded sample of them, one page's), keep the verdicts in
    `.wikic/judged.json`, and sum them up with the last calibration of the same judge."""
    root = Path(context.root).resolve()
    todo = items(context, options.page)
    if options.sample is not None and options.sample < len(todo):
        todo = sorted(random.Random(options.seed).sample(todo, options.sample), key=lambda i: i.key)
    judge_llm = llm if llm is not None else _judge_llm(context)
    verdicts = judge(judge_llm, ReplyCache.for_vault(root), todo)
    model = model_name(judge_llm)
    rows = [{"key": v.key, "page": v.key.rsplit("#", 1)[0], "sentence": item.sentence, "verdict": v.verdict,
             "words": v.words} for item, v in zip(todo, verdicts, strict=True)]
    write_json(state_dir(root) / JUDGED, {"model": model, "population": len(items(context, options.page))
                                          if options.sample is not None else len(todo), "verdicts": rows}, root=root)
    summary = saved_summary(root)
    assert summary is not None
    return summary


def calibrate(context: VaultContext, *, llm: LLM | None = None) -> Calibration:
    """The judge's accuracy on the calibration set, per label; kept in `.wikic/judge-calibration.json`."""
    root = Path(context.root).resolve()
    require_vault(root)
    pairs = calibration_pairs()
    judge_llm = llm if llm is not None else _judge_llm(context)
    verdicts = judge(judge_llm, ReplyCache.for_vault(root),
                     [Item(str(n), p.sentence, (p.quote,)) for n, p in enumerate(pairs)])
    out = Calibration(model_name(judge_llm), len(pairs))
    for pair, verdict in zip(pairs, verdicts, strict=True):
        out.total[pair.label] = out.total.get(pair.label, 0) + 1
        out.right[pair.label] = out.right.get(pair.label, 0) + int(verdict.verdict in _RIGHT[pair.label])
    write_json(state_dir(root) / JUDGE_CALIBRATION, out.to_dict(), root=root)
    return out


def _judge_llm(context: VaultContext) -> LLM:
    """The vault's [llm] endpoint, its key as it is sent there, and the model `[eval] model` names (unless a
    `--model` flag named one for this run)."""
    wanted = context.settings.eval.model
    if wanted is None or "model" in context.overrides:
        return context.llm()
    from wikic.llm.client import vault_llm

    return vault_llm(context.root, context.settings.llm.model_copy(update={"model": wanted}))
