"""`wikic eval`: how good the vault is, measured by code alone (no model call), for the vault and each page.

A report holds, for the vault and for each subject page, the figures the code can check from files alone:
prose sentences and how many cite a quote, claims anchored, each anchor checked again against `raw/` as it is
now (a quote no longer at its lines, or a source edited since it was captured, is drifted), specifics stated
by their quotes, a lead, sections as SCHEMA.md lays them out, links resolving, orphans, names waiting for a
page, open contradictions, and the refusals of the runs by reason; and one health score out of 100 from them
(`docs/eval.md` gives its formula). A model's verdicts on the same sentences, when a judge has given them,
are a section of their own beside these figures.

`run.py` makes the report (`evaluate`), `checks.py` works out each figure, `score.py` the health score,
`report.py` holds the report's types, `render.py` shows it as text, JSON or Markdown, and `saved.py` writes it
into the vault where a note of a person's own may go.
"""

from __future__ import annotations

from wikic.evaluation.render import render
from wikic.evaluation.report import EvalReport, Figures, JudgeSummary, PageRow
from wikic.evaluation.run import EvalOptions, evaluate
from wikic.evaluation.saved import save_report

__all__ = ["EvalOptions", "EvalReport", "Figures", "JudgeSummary", "PageRow", "evaluate", "render", "save_report"]
