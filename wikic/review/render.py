"""Proposals, and what became of them, as `wikic review` prints them (the MCP tools return the same text)."""

from __future__ import annotations

from wikic.review.accept import Accepted, Rejected
from wikic.review.show import Listed, ProposalView
from wikic.review.summary import ClaimChange


def render_list(listed: list[Listed]) -> str:
    if not listed:
        return "No open proposal. `wikic ingest --review SOURCE` makes one."
    lines = []
    for p in listed:
        state = "" if p.state == "open" else f" [{p.state}]"
        changed = f"; {len(p.base_changed)} file(s) changed since: accepting merges" if p.base_changed else ""
        lines.append(
            f"{p.id}{state}  {p.kind}: {p.title}\n"
            f"    {len(p.pages_created)} page(s) created, {len(p.pages_updated)} updated; claims "
            f"+{p.claims_added} -{p.claims_dropped}, {p.claims_refused} refused; {p.tokens:,} tokens{changed}"
        )
    return "\n".join(lines)


def _claim_lines(sign: str, claims: list[ClaimChange], quotes: dict[str, str]) -> list[str]:
    out = []
    for c in claims:
        out.append(f"  {sign} {c.text}  ^{c.id}")
        for cited in c.cited:
            quote = " ".join(quotes.get(cited, "").split())
            out.append(f"      {cited}: {quote[:300]}" if quote else f"      {cited}")
    return out


def render_view(view: ProposalView) -> str:
    p = view.proposal
    lines = [f"proposal {p.id} ({p.kind}: {p.title}), made {p.created}"]
    if p.base_changed:
        lines.append(f"changed in the vault since: {', '.join(p.base_changed)}")
    for page in view.pages:
        since = " (changed in the vault since)" if page.changed_since else ""
        lines += ["", f"== {page.path}: {page.kind}{since}"]
        if page.added or page.dropped:
            lines.append("claims:")
            lines += _claim_lines("+", page.added, page.quotes) + _claim_lines("-", page.dropped, page.quotes)
        lines += ["", page.text.rstrip("\n")]
    if view.other_files:
        lines += ["", f"also written: {', '.join(view.other_files)}"]
    return "\n".join(lines)


def render_accepted(done: Accepted) -> str:
    notes = [p for p in done.written if p.endswith(".md") and not p.startswith(("raw/", ".wikic/"))]
    subjects = [p for p in notes if "/" in p and not p.startswith("sources/")]
    hubs = [p for p in notes if p not in subjects]
    wrote = ", ".join(subjects) if subjects else "no subject page"
    lines = [f"accepted {done.proposal}: wrote {wrote}" + (f"; and {', '.join(hubs)}" if hubs else "")
             + ("" if done.closed else "; the rest stays in the proposal")]
    for path in done.conflicts:
        lines.append(f"{path}: left out, a person changed the same part of it since the proposal was made")
    for path in done.left:
        lines.append(f"{path}: left as it is, it changed while the accept was written")
    errors = done.lint_errors()
    if errors:
        lines.append(f"lint: {len(errors)} error(s) in what was written (wikic lint shows them)")
    return "\n".join(lines)


def render_rejected(done: Rejected) -> str:
    what = f"{done.claims} claim(s) and {done.pages} page name(s)"
    tail = "the proposal is dropped" if done.closed else "the rest stays in the proposal"
    return (f"rejected {what} of {done.proposal}, kept in .wikic/rejected.md (later runs of those sources do not "
            f"propose them again); {tail}")
