"""The report as `wikic eval` prints it: text (the vault's figures, then the worst pages), JSON (`to_dict`'s
keys, documented in docs/eval.md) and Markdown (a note a person opens in Obsidian: the figures, then the worst
pages first, each a link to its page).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from wikic.evaluation.report import EvalReport, Figures, JudgeSummary, PageRow, Refusals

if TYPE_CHECKING:
    from wikic.evaluation.judge import Calibration

FORMATS = ("text", "json", "markdown")
WORST = 10  # pages the text lists (the Markdown report lists every page below 100)
MARKDOWN_TITLE = "# Wiki quality report"


def render(report: EvalReport, fmt: str = "text") -> str:
    if fmt == "json":  # one line, as lint's: a big vault's report is megabytes, and indenting costs most of it
        return json.dumps(report.to_dict(), ensure_ascii=False)
    if fmt == "markdown":
        return render_markdown(report)
    return render_text(report)


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _of(holding: int, of: int) -> str:
    if of == 0:
        return "none"
    return f"{holding} of {of} ({100 * holding / of:.0f} %)"


def _rows(f: Figures) -> list[tuple[str, str]]:
    """(what, how it stands) for the vault's figures, in the order the report shows them."""
    return [
        ("sentences cited", _of(f.sentences_cited, f.sentences)),
        ("claims anchored", _of(f.claims_anchored, f.claims)),
        ("anchors holding", _of(f.anchors_holding, f.anchors) + (f", {f.drifted} drifted" if f.drifted else "")),
        ("specifics stated", _of(f.specifics_stated, f.checked)),
        ("pages with a lead", _of(f.leads, f.pages)),
        ("sections in layout", _of(f.sections_in_layout, f.sections)),
        ("links resolving", _of(f.links_resolving, f.links)),
        ("orphan pages", str(f.orphans)),
        ("open contradictions", str(f.contradictions)),
    ]


def _by_reason(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _refused(r: Refusals) -> list[tuple[str, str]]:
    out = []
    for what, counts in (("claims", r.claims), ("names", r.names), ("aliases", r.aliases),
                         ("composed sentences", r.sentences)):
        if counts:
            out.append((what, f"{sum(counts.values())}: {_by_reason(counts)}"))
    if r.pairings:
        out.append(("pairings and intervals", str(r.pairings)))
    if r.summaries:
        out.append(("summaries", f"{r.summaries}, each replaced by a claim (no quote supports it)"))
    return out


def _weak(row: PageRow) -> str:
    """What pulls a page's score down, in a few words."""
    f = row.figures
    said = []
    if f.uncited:
        said.append(f"{f.uncited} of {f.sentences} sentences uncited")
    if f.drifted:
        said.append(f"{f.drifted} anchor{'' if f.drifted == 1 else 's'} drifted")
    if f.unsupported:
        said.append(f"{f.unsupported} with specifics no quote states")
    if f.claims_anchored < f.claims:
        said.append(f"{f.claims - f.claims_anchored} claims unanchored")
    if f.pages and not f.leads:
        said.append("no lead")
    if f.sections_in_layout < f.sections:
        said.append(f"{f.sections - f.sections_in_layout} sections out of the layout")
    if f.links_resolving < f.links:
        said.append(f"{f.links - f.links_resolving} broken links")
    if f.orphans:
        said.append("orphan")
    if f.contradictions:
        said.append(f"{f.contradictions} open contradiction{'' if f.contradictions == 1 else 's'}")
    return "; ".join(said)


def _below(report: EvalReport) -> list[PageRow]:
    return [row for row in report.pages if row.score is not None and row.score < 100.0]


def render_text(report: EvalReport) -> str:
    f = report.figures
    lines = [f"{report.vault}: health {_score(report.score)} / 100 over {f.pages} subject "
             f"page{'' if f.pages == 1 else 's'}"]
    rows = [*_rows(f), ("names waiting", str(report.names_waiting))]
    if report.sources_drifted:
        rows.append(("sources drifted", f"{len(report.sources_drifted)}: {', '.join(report.sources_drifted)}"))
    refused = _refused(report.refusals)
    rows += [(f"refused {what}", said) for what, said in refused] or [("refused by the runs", "none recorded")]
    width = max(len(what) for what, _ in rows)
    lines += [f"  {what:<{width}}  {said}" for what, said in rows]
    if report.judged is not None:
        j = report.judged
        lines.append(f"  {'judged':<{width}}  {j.judged} by {j.model}: {judged_line(j)}")
    if len(report.pages) == 1:
        row = report.pages[0]
        lines += ["", f"{row.path} ({row.title}): health {_score(row.score)} / 100"]
        lines += [f"  {what:<{width}}  {said}" for what, said in _rows(row.figures)[:-2]]
        weak = _weak(row)
        if weak:
            lines.append(f"  {weak}")
        return "\n".join(lines)
    worst = _below(report)
    if not worst:
        lines.append("every page scores 100" if f.pages else "no subject page yet")
        return "\n".join(lines)
    lines += ["", f"worst pages ({min(WORST, len(worst))} of {len(worst)} below 100):"]
    for row in worst[:WORST]:
        lines.append(f"  {_score(row.score):>5}  {row.path}  {_weak(row)}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _shown(title: str) -> str:
    """A title as a link's text in a table cell: brackets, which would end the link, as parentheses."""
    return _cell(title.replace("[", "(").replace("]", ")"))


def render_markdown(report: EvalReport, link: Callable[[PageRow], str] | None = None) -> str:
    """The report as a note: the vault's figures as a table, then every page below 100, worst first, each a
    link to its page (`link` writes one; default: the page's vault path, which resolves from anywhere)."""
    link = link or (lambda row: f"[[{row.path[:-3]}\\|{_shown(row.title)}]]")
    f = report.figures
    lines = [MARKDOWN_TITLE, "",
             f"Health **{_score(report.score)}** / 100 over {f.pages} subject page{'' if f.pages == 1 else 's'} "
             "(`wikic eval`: every figure checked by code against the pages and `raw/` as they are now).", "",
             "| figure | how it stands |", "|---|---|"]
    lines += [f"| {what} | {_cell(said)} |" for what, said in
              [*_rows(f), ("names waiting", str(report.names_waiting))]]
    if report.sources_drifted:
        lines.append(f"| sources drifted | {_cell(', '.join(f'`{p}`' for p in report.sources_drifted))} |")
    for what, said in _refused(report.refusals):
        lines.append(f"| refused {what} | {_cell(said)} |")
    worst = _below(report)
    lines += ["", "## Worst pages", ""]
    if not worst:
        lines.append("Every page scores 100." if f.pages else "No subject page yet.")
    else:
        lines += ["| page | health | what pulls it down |", "|---|---|---|"]
        lines += [f"| {link(row)} | {_score(row.score)} | {_cell(_weak(row))} |" for row in worst]
    return "\n".join(lines) + "\n"


def judged_line(j: JudgeSummary) -> str:
    """The support rate with its 95 % interval, and beside it the judge's accuracy on the calibration set."""
    rate = "—" if j.support_rate is None else f"{100 * j.support_rate:.1f} %"
    interval = f" (95 % interval {100 * j.interval[0]:.1f}–{100 * j.interval[1]:.1f} %)" if j.interval else ""
    verdicts = ", ".join(f"{n} {verdict}" for verdict, n in j.verdicts.items())
    calibrated = (f"judge's accuracy on the calibration set {100 * j.calibration:.1f} %" if j.calibration is not None
                  else "judge not calibrated (wikic eval --calibrate)")
    return f"supported {rate}{interval}; {verdicts}; {calibrated}"


def render_calibration(result: Calibration) -> str:
    """`wikic eval --calibrate`'s report: the judge's accuracy on each label of the calibration set."""
    accuracy = result.accuracy
    lines = [f"judge {result.model}: {'—' if accuracy is None else f'{100 * accuracy:.1f} %'} right on "
             f"{result.pairs} labelled pairs"]
    width = max((len(label) for label in result.total), default=0)
    lines += [f"  {label:<{width}}  {result.right.get(label, 0)} of {n} ({100 * result.right.get(label, 0) / n:.0f} %)"
              for label, n in result.total.items() if n]
    return "\n".join(lines)
