"""What an ingest run says about each of its sources: the report's entry, the notes of its log.md row, and the
report as `wikic ingest` prints it and the MCP server's ingest tool returns it (`render_report`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wikic.pages.log_file import listed, notes, usage
from wikic.vault.layout import OVERVIEW_FILE

if TYPE_CHECKING:
    from wikic.compile.result import SourceResult
    from wikic.ingest.pipeline import IngestReport
    from wikic.ingest.prose_step import Composing


@dataclass
class SourceReport:
    raw_path: str
    title: str
    status: str  # compiled | unchanged | failed | over-budget | interrupted | estimated | asset | in review
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    memories: int = 0  # memories written on pages as new items (transcripts)
    memories_merged: int = 0  # memories that matched one already on the page: its anchor was added
    dropped_facts: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # claims not written, by reason (see plan_model)
    repaired_quotes: int = 0  # near-copied quotes snapped to the source span they copy
    sentences_found: int = 0  # claims that are the source's own sentences, found for names the model could not quote
    rules_found: int = 0  # rules the user set in so many words, remembered though the model proposed no memory of them
    strategy: str = ""  # how the model was asked (see wikic.ingest.extract.run)
    nothing_extracted: bool = False  # the source names things and the model proposed none of them
    invented: list[str] = field(default_factory=list)  # proposed names the source never writes
    titles: list[str] = field(default_factory=list)  # proposed names that are the source's own title
    # proposed names the source does not use as a subject's ({"name", "reason"}), and aliases not kept
    # ({"name", "alias", "reason"}): `wikic/text/name_use.py`
    names_refused: list[dict[str, str]] = field(default_factory=list)
    aliases_refused: list[dict[str, str]] = field(default_factory=list)
    names_found: list[str] = field(default_factory=list)  # names the model passed over that code found (`missed`)
    rejected: list[str] = field(default_factory=list)  # pairings and intervals refused, each with its reason
    superseded: int = 0  # claims moved to a page's history: a later value holds now
    contested: list[str] = field(default_factory=list)  # pages whose current claims contradict each other
    dropped_items: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # pages named by a word that is no subject, removed
    removed_why: list[str] = field(default_factory=list)  # "'Keeping' is no subject (sentence opener)", each
    calls: int = 0
    cached_calls: int = 0
    # the tokens its log.md row counts: paid now, and what cached replies cost when no row counted them yet
    prompt_tokens: int = 0
    completion_tokens: int = 0
    earlier_tokens: int = 0  # of those, the tokens paid by an earlier run (it was stopped, or the source failed)
    first_paid: str = ""  # the day the first of those was paid (YYYY-MM-DD)
    left_out: list[str] = field(default_factory=list)  # replies' items over their schema's limits ("where: label")
    context_pages: int = 0
    prompt_counted: bool = False  # estimated: the prompt tokens are the endpoint's count (else an estimate)
    cost: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def fill(r: SourceReport, result: SourceResult) -> None:
    """Copy what compiling the source did into its report."""
    r.created = result.created
    r.updated = result.updated
    r.pending = result.pending
    r.memories, r.memories_merged = result.memories, result.memories_merged
    r.dropped_facts = result.dropped_facts
    r.dropped_items = result.dropped_items
    r.kept_edits = result.kept_edits
    r.rejected, r.superseded, r.contested = result.rejected, result.superseded, result.contested
    r.removed = [gone.path for gone in result.removed]
    r.removed_why = [f"'{gone.title}' is no subject ({gone.reason})" for gone in result.removed]


def log_notes(r: SourceReport, link: Callable[[str], str]) -> str:
    """The notes of the source's log.md row: the pages it created and updated, as links (`link` writes one
    for a page path), what else happened, then its tokens and cost."""
    from wikic.compile.plan import UNSUPPORTED_SUMMARY, dropped_claims

    created = listed("created", [link(p) for p in dict.fromkeys(r.created)])
    updated = listed("updated", [link(p) for p in dict.fromkeys(r.updated) if p not in r.created])
    parts = [created, updated] if created or updated else ["no page written"]
    if r.memories or r.memories_merged:
        parts.append(f"{r.memories} memories" + (f" ({r.memories_merged} merged)" if r.memories_merged else ""))
    if r.pending:
        parts.append(f"{len(r.pending)} pending")
    if r.removed:
        parts.append(listed("removed", [f"{p} ({why})" for p, why in zip(r.removed, r.removed_why, strict=True)]))
    claims = dropped_claims(r.dropped)
    if claims:
        total = sum(claims.values())
        parts.append(f"{total} claim{'' if total == 1 else 's'} dropped ({dropped_reasons(claims)})")
    if r.dropped.get(UNSUPPORTED_SUMMARY):
        n = r.dropped[UNSUPPORTED_SUMMARY]
        parts.append(f"{n} {'summary' if n == 1 else 'summaries'} replaced by a claim (unsupported)")
    if r.repaired_quotes:
        parts.append(f"{r.repaired_quotes} quote{'' if r.repaired_quotes == 1 else 's'} repaired")
    if r.sentences_found:
        parts.append(f"{r.sentences_found} sentence{'' if r.sentences_found == 1 else 's'} found")
    if r.rules_found:
        parts.append(f"{r.rules_found} rule{'' if r.rules_found == 1 else 's'} remembered")
    if r.superseded:
        parts.append(f"{r.superseded} superseded")
    if r.contested:
        parts.append(f"{len(r.contested)} contested")
    if r.rejected:
        parts.append(f"{len(r.rejected)} pairings refused")
    if r.left_out:
        parts.append(f"{len(r.left_out)} left out over the plan's limits")
    cached = bool(r.cached_calls and not r.calls - r.cached_calls)
    parts.append(usage(r.prompt_tokens + r.completion_tokens, r.cost, cached=cached, earlier=r.earlier_tokens,
                       paid=r.first_paid))
    return notes(*parts)


def dropped_reasons(dropped: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items()))


def render_report(report: IngestReport) -> str:
    """The run's report as `wikic ingest` prints it, and the MCP server's ingest tool returns it."""
    lines = [f"finished an interrupted run first: {', '.join(report.resumed)}"] if report.resumed else []
    if report.rebuilt:
        lines.append(f"no .wikic/compiled.json: {len(report.rebuilt)} source(s) recorded as compiled, as the pages "
                     "that cite them show (no model call)")
    lines += conversation_lines(report)
    for s in report.sources:
        lines += source_lines(s)
    for text_path, encoding in sorted(report.converted.items()):
        lines.append(f"{text_path}: converted from {encoding} (the original is kept beside it)")
    if not report.estimate:
        lines += _totals_lines(report)
    if report.composed is not None and (report.composed.pages or report.composed.failed):
        lines.extend(composed_lines(report.composed))
    if report.lint is not None:
        lines += _lint_lines(report)
    if report.proposal is not None:
        lines.append(f"proposal {report.proposal}: nothing written in the vault. Look at it: wikic review show "
                     f"{report.proposal}; then wikic review accept {report.proposal} (or reject)")
    return "\n".join(lines)


def _totals_lines(report: IngestReport) -> list[str]:
    """The run's totals, the hubs it wrote and the advice it has."""
    t = report.totals()
    lines: list[str] = []
    cost = f", ${t['cost']:.4f}" if t["cost"] is not None else ""
    skipped = f", {t['interrupted']} interrupted" if t["interrupted"] else ""
    skipped += f", {t['skipped']} skipped" if t["skipped"] else ""
    skipped += f", {t['nothing_extracted']} with nothing extracted" if t["nothing_extracted"] else ""
    earlier = f" ({t['earlier_tokens']:,} of them first paid by an earlier run)" if t["earlier_tokens"] else ""
    lines.append(
        f"{t['compiled']} compiled, {t['unchanged']} unchanged, {t['failed']} failed{skipped}: "
        f"{t['created']} page(s) created, {t['updated']} updated, "
        f"{t['prompt_tokens'] + t['completion_tokens']:,} tokens{earlier}{cost}"
    )
    if t["skipped"]:
        lines.append("the token budget (--max-tokens) was reached: run `wikic ingest` again to compile the rest")
    if report.hubs:
        sources = [p for p in report.hubs if p != OVERVIEW_FILE]
        said = [OVERVIEW_FILE] if OVERVIEW_FILE in report.hubs else []
        said += [f"{len(sources)} source page(s) ({', '.join(sources[:3])}{', ...' if len(sources) > 3 else ''})"
                 ] if sources else []
        lines.append("hubs written: " + ", ".join(said))
    advice = report.advice()
    if advice:
        lines.append(advice)
    return lines


def _lint_lines(report: IngestReport) -> list[str]:
    """What the lint after the run found."""
    from wikic.lint.render import finding_line

    assert report.lint is not None
    lines: list[str] = []
    s = report.lint.summary()
    own = len(report.lint_errors_in_written())
    where = f"{own} in what this ingest wrote" if own else "none in what this ingest wrote"
    lines.append(
        f"lint: {s['errors']} error(s) ({where}), {s['warnings']} warning(s)"
        if s["errors"]
        else f"lint: 0 errors, {s['warnings']} warning(s)"
    )
    for f in report.lint.findings[:20]:
        lines.append(f"  {finding_line(f)}")
    return lines


def source_lines(s: SourceReport) -> list[str]:
    """One source's lines of the report: its status, the pages it wrote, and what it dropped or kept."""
    lines: list[str] = []
    if s.status == "estimated":
        cost = f", at most ${s.cost:.4f}" if s.cost is not None else ""
        counted = "(the endpoint's count)" if s.prompt_counted else "(estimated, 35% added)"
        lines.append(
            f"{s.raw_path}: ~{s.prompt_tokens:,} prompt tokens {counted}, at most {s.completion_tokens:,} completion "
            f"tokens in {s.calls} call(s) ({s.cached_calls} cached){cost}; {s.context_pages} related page(s) "
            "in context"
        )
        return lines
    created = list(dict.fromkeys(s.created))  # a name both an entity and a concept is one page: said once
    updated = [p for p in dict.fromkeys(s.updated) if p not in created]
    head = f"{s.raw_path}: {s.status}"
    if s.status == "compiled":
        head += (
            f" — {len(created)} created, {len(updated)} updated, "
            f"{s.prompt_tokens + s.completion_tokens:,} tokens"
        )
        said = ["from cache"] if s.cached_calls and s.cached_calls == s.calls else []
        if s.earlier_tokens:  # paid by a run that wrote nothing for this source: its row counts them now
            whole = bool(said) and s.earlier_tokens == s.prompt_tokens + s.completion_tokens
            share = "" if whole else f"{s.earlier_tokens:,} of them "
            said.append(f"{share}first paid {s.first_paid or 'earlier'}, counted now")
        head += f" ({', '.join(said)})" if said else ""
    if s.error:
        head += f" — {s.error}"
    lines.append(head)
    for p in created:
        lines.append(f"  + {p}")
    for p in updated:
        lines.append(f"  ~ {p}")
    if s.pending:
        lines.append(f"  waiting for more sources (below threshold): {', '.join(dict.fromkeys(s.pending))}")
    if s.dropped:
        lines.append(f"  {sum(s.dropped.values())} not written: {dropped_reasons(s.dropped)}")
    if s.left_out:
        lines.append(f"  left out, over the plan's limits (the best-supported items kept): {_left_out(s.left_out)}")
    if s.invented:
        lines.append(f"  names the source never writes (dropped as invented): {', '.join(dict.fromkeys(s.invented))}")
    if s.titles:
        lines.append(f"  the source's own title, not a subject (its source page covers it): {', '.join(s.titles)}")
    if s.names_refused:
        lines.append(f"  no subject (the source does not use them as names): {_by_reason(s.names_refused, 'name')}")
    if s.aliases_refused:
        lines.append(f"  {len(s.aliases_refused)} alias(es) not kept: {_by_reason(s.aliases_refused, 'alias')}")
    if s.removed:
        lines += [f"  - {p}: removed, {why}" for p, why in zip(s.removed, s.removed_why, strict=True)]
    if s.names_found:
        lines.append(f"  names the model passed over, found in the source by code: {', '.join(s.names_found)}")
    if s.nothing_extracted:
        lines.append("  nothing extracted, although the source names things: the model proposed none of them"
                     " (try a larger model, or --strategy two-pass, and --force to compile it again)")
    if s.repaired_quotes:
        lines.append(f"  {s.repaired_quotes} quote(s) repaired: snapped to the source text they nearly copied")
    if s.sentences_found:
        lines.append(f"  {s.sentences_found} claim(s) are the source's own sentences, found for names the model"
                     " could not quote")
    if s.rules_found:
        lines.append(f"  {s.rules_found} rule(s) the user set in so many words (\"From now on…\"), remembered as"
                     " instructions: the model proposed no memory of them")
    if s.superseded:
        lines.append(f"  {s.superseded} claim(s) superseded by a later value: moved to the page's history")
    for page in s.contested:
        lines.append(f"  contested: {page} states claims that contradict each other (see `wikic lint`)")
    lines += _refused_lines(s.rejected)
    for item in s.dropped_items:
        lines.append(f"  skipped: {item}")
    for item in s.kept_edits:
        lines.append(f"  kept hand edit: {item}")
    return lines


def _refused_lines(rejected: list[str]) -> list[str]:
    """The pairings and intervals refused, each on its line; dates that are no dates, which a model may give
    by the dozen, are counted on one line with the first of them."""
    from wikic.facts.intervals import NOT_A_DATE

    no_date = [item for item in rejected if item.endswith(NOT_A_DATE)]
    lines = [f"  refused: {item}" for item in rejected if len(no_date) < 2 or not item.endswith(NOT_A_DATE)]
    if len(no_date) > 1:
        lines.append(f"  refused: {len(no_date)} dates that are not dates (YYYY, YYYY-MM or YYYY-MM-DD), the first: "
                     f"{no_date[0].removesuffix(NOT_A_DATE).rstrip()}")
    return lines


def composed_lines(composed: Composing) -> list[str]:
    """What composing the run's pages did: pages, sentences written and refused, tokens."""
    refused = sum(composed.refused.values())
    said = f" ({dropped_reasons(composed.refused)})" if refused else ""
    tokens = composed.prompt_tokens + composed.completion_tokens
    lines = [f"composed {len(composed.pages)} page(s) as prose: {composed.sentences} sentence(s), {refused} refused"
             f"{said} (replaced by their claims as written), {tokens:,} tokens"]
    lines += [f"  not composed: {page} keeps its claim lists ({why})" for page, why in sorted(composed.failed.items())]
    lines += [f"  not composed: {page} changed meanwhile" for page in composed.left]
    return lines


def conversation_lines(report: IngestReport) -> list[str]:
    """One line per conversation export or capture queue the run read, and what could not be read."""
    lines = []
    for c in report.conversations:
        if c.already_read:
            lines.append(f"{c.origin}: {c.tool} export read before ({c.conversations} conversation(s)): nothing new")
        elif c.conversations or c.written or not (c.errors or c.error or c.quarantined):
            lines.append(f"{c.origin}: {c.tool}, {c.conversations} conversation(s): {len(c.written)} transcript(s) "
                         f"written, {c.unchanged} with nothing new")
        # an export that failed is one of the sources below, with its error
        lines += [f"  not read (kept for the next run): {error}" for error in c.errors]
        lines += [f"  not a capture: {item}" for item in c.quarantined]
    return lines


def _left_out(items: list[str]) -> str:
    """"entities: A, B; concepts: C" for the items left out, "where: label" each."""
    grouped: dict[str, list[str]] = {}
    for item in items:
        where, _, label = item.partition(": ")
        grouped.setdefault(where, []).append(label)
    return "; ".join(f"{where}: {', '.join(labels)}" for where, labels in grouped.items())


def _by_reason(rows: list[dict[str, str]], key: str) -> str:
    """"reason: a, b; reason: c" for rows of refused names or aliases."""
    grouped: dict[str, list[str]] = {}
    for row in rows:
        grouped.setdefault(row["reason"], []).append(row[key])
    return "; ".join(f"{reason}: {', '.join(dict.fromkeys(names))}" for reason, names in grouped.items())
