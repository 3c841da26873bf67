"""`wikic status`: what the vault holds and what it has cost, from files alone (no model call).

Pages per type, raw sources (and how many are compiled), the palace (size and embedding model), the last
operations from log.md, a lint summary (the page rules' findings counted apart), and token totals summed
from log.md's rows (each row's notes carry "N tokens"; ingest and saved queries write them). A model reply
is counted once: by the row of the first source compiled with it, also when the run that paid for it was
stopped, killed or failed before writing (that row says "N tokens (cached, first paid DAY)"), and never by
a later row that takes it from the cache again ("0 tokens (cached)"): `wikic.llm.cache`.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.conversations.queue import quarantined
from wikic.errors import MissingExtra, PalaceError, VaultError, WikicError, require_extra
from wikic.pages.log_file import LogRow, read_rows
from wikic.palace.served import server_answers
from wikic.palace.summary import palace_manifest, read_palace_summary, read_server_summary
from wikic.review.store import listed
from wikic.settings import Settings
from wikic.vault import parse_cache
from wikic.vault.formats.compiled import CompiledEntry, read_compiled
from wikic.vault.formats.conversations import read_conversations
from wikic.vault.formats.set_aside import SetAside
from wikic.vault.layout import LOG_FILE, RAW_DIR, STATE_DIR, is_export, require_vault
from wikic.vault.lead import plain_line
from wikic.vault.load import FileInfo, Vault, load_vault, walk
from wikic.vault.paths import read_text_inside
from wikic.vault.schema_md import Schema
from wikic.vault.state import CAPTURE_QUARANTINE


@dataclass
class VaultStatus:
    root: str
    wikic_vault: bool  # SCHEMA.md present (else a plain Obsidian vault)
    pages: dict[str, int] = field(default_factory=dict)  # page type -> count
    raw_sources: int = 0
    compiled_sources: int = 0
    palace: dict[str, Any] | None = None
    palace_error: str | None = None
    palace_unavailable: str | None = None  # why the palace could not be read here (its extra is not installed)
    last_operations: list[LogRow] = field(default_factory=list)
    lint: dict[str, Any] | None = None
    tokens: dict[str, Any] = field(default_factory=dict)
    extraction: dict[str, Any] = field(default_factory=dict)
    contested: list[str] = field(default_factory=list)  # pages whose claims contradict each other
    set_aside: list[dict[str, str]] = field(default_factory=list)  # raw files ingest refused: path, reason, since
    quarantined: int = 0  # capture queue entries ingest set aside (they are no captures)
    quarantine: str = ""  # where they are, vault-relative
    proposals: int = 0  # runs kept for review and not accepted or rejected yet (`wikic review`)

    @property
    def pages_total(self) -> int:
        return sum(self.pages.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "vault": self.root,
            "wikic_vault": self.wikic_vault,
            "pages": {"total": self.pages_total, "by_type": self.pages},
            "sources": {"raw": self.raw_sources, "compiled": self.compiled_sources},
            "palace": self.palace,
            "palace_error": self.palace_error,
            "palace_unavailable": self.palace_unavailable,
            "last_operations": [r.to_dict() for r in self.last_operations],
            "lint": self.lint,
            "tokens": self.tokens,
            "extraction": self.extraction,
            "contested": self.contested,
            "set_aside": self.set_aside,
            "capture_quarantine": {"entries": self.quarantined, "folder": self.quarantine},
            "proposals": self.proposals,
        }


def read_log(root: Path) -> list[LogRow]:
    """Every row of log.md's table, oldest first (a missing or unreadable log is empty, and so is one that
    leads outside the vault: lint's unsafe-path finding, which status shows, names it)."""
    try:
        text = read_text_inside(root, root / LOG_FILE)
    except (OSError, UnicodeDecodeError, VaultError):
        return []
    return read_rows(text or "")


def token_totals(rows: list[LogRow]) -> dict[str, Any]:
    by_action: dict[str, dict[str, Any]] = {}
    for r in rows:
        entry = by_action.setdefault(r.action, {"tokens": 0, "operations": 0})
        entry["tokens"] += r.tokens
        entry["operations"] += 1
    costs = [r.cost for r in rows if r.cost is not None]
    return {"total": sum(r.tokens for r in rows), "by_action": by_action,
            "cost": round(sum(costs), 6) if costs else None}


def palace_status(root: Path, settings: Settings) -> dict[str, Any] | None:
    """Files, drawers, model and location of the palace, and whether `wikic serve` answers its searches; None
    when it was never built (nothing is created).

    An embedded palace answers from its manifest (no store process, no model: `read_palace_summary`), a chroma
    server's from its collection's metadata and the manifest while that is current (`read_server_summary`);
    otherwise (a manifest behind the server's collection, or last written before it recorded the model) the
    store is asked, which needs the palace extra (MissingExtra without it)."""
    palace = settings.palace
    if not palace.url and not palace.path.exists():
        return None
    manifest = palace_manifest(palace.path, palace.collection)
    summary = read_server_summary(*palace.host_port, palace.collection, manifest) if palace.url else \
        read_palace_summary(manifest)
    if summary is not None:
        status = {
            "files": summary["files"],
            "drawers": summary["drawers"],
            "model": f"{summary.get('wikic_provider')}:{summary.get('wikic_model')}",
            "dim": summary.get("wikic_dim"),
            "location": palace.url or str(palace.path),
        }
    else:
        require_extra("palace")
        from wikic.palace import Palace

        with Palace(root, settings) as store:
            status = store.status()
        if not status.get("model"):
            return None
    return {**status, "served": server_answers(root)}


def extraction_counts(entries: Mapping[str, CompiledEntry]) -> dict[str, Any]:
    """What the model's plans came to, summed over the compiled sources as their ledger entries record it:
    the sources that were compiled with nothing extracted (the source names things, the model proposed
    none of them), claims dropped by reason, quotes repaired, and the strategy each source was asked with."""
    dropped: Counter[str] = Counter()
    strategies: Counter[str] = Counter()
    empty, repaired, found, superseded, refused = [], 0, 0, 0, 0
    for raw_path, entry in sorted(entries.items()):
        if entry.nothing_extracted:
            empty.append(raw_path)
        for reason, n in (entry.dropped or {}).items():
            dropped[reason] += n
        repaired += entry.repaired or 0
        found += entry.sentences or 0
        superseded += entry.superseded or 0
        refused += entry.refused or 0
        if entry.strategy:
            strategies[entry.strategy] += 1
    return {"nothing_extracted": empty, "dropped": dict(sorted(dropped.items())), "repaired_quotes": repaired,
            "sentences_found": found,
            "strategies": dict(sorted(strategies.items())), "superseded": superseded, "pairings_refused": refused}


def contested_from_cache(root: Path, schema: Schema, files: Mapping[str, FileInfo]) -> list[str] | None:
    """The pages whose frontmatter says `contested: true`, from the parse cache alone, or None when it does not
    hold every page as it is now (its size and mtime). Only the rows that name `contested` are decoded: on a
    large vault a few in a hundred, where decoding every note took seconds."""
    rows = parse_cache.rows_by_path(root, every=True)
    if rows is None:
        return None
    view = Vault(root, schema, dict(files), {})
    for path, info in files.items():
        if rows.stamp(path) != (info.size, info.mtime_ns) and view.is_page(path):
            return None  # a page changed since, or one the cache cannot hold: it is parsed
    try:  # how the key is written in any row whose frontmatter has it
        notes = [entry.note for entry in parse_cache.decode(rows.rows_holding(b'"contested"'))]
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None  # a damaged row: the pages are parsed
    return sorted(n.path for n in notes if (n.frontmatter or {}).get("contested") is True
                  and n.path in files and view.is_page(n.path))


def vault_status(
    context: VaultContext, *, lint: bool = True, recent: int = 10, today: dt.date | None = None
) -> VaultStatus:
    """What the vault holds and how it stands."""
    root = Path(context.root).resolve()
    require_vault(root)
    schema = context.checked_schema()  # pages per type follow SCHEMA.md's page types: refused when it is misread
    out = VaultStatus(str(root), schema.present)
    # lint first: the vault's listing is its walk, and its parse cache then holds every page as it is now
    files = _linted(context, out, today) if lint else walk(root)[0]
    contested = contested_from_cache(root, schema, files)
    if contested is None:  # parsed, and the cache written for the next look
        loaded = load_vault(root, use_cache=True, schema=schema)
        files = loaded.files
        contested = [p for p in loaded.pages if (loaded.notes[p].frontmatter or {}).get("contested") is True]
        view = loaded
    else:
        view = Vault(root, schema, dict(files), {})  # the cache holds each page among its files
    counts = Counter(kind for kind in map(view.page_type, view.files) if kind is not None)
    order = list(schema.page_folders) or ["note"]
    out.pages = {kind: counts.get(kind, 0) for kind in order} | {k: v for k, v in counts.items() if k not in order}
    kept = read_conversations(root).kept_exports()
    # a kept conversation export is not a source: the transcripts made from it are
    out.raw_sources = sum(1 for p in files if p.startswith(RAW_DIR + "/") and not is_export(p) and p not in kept)
    compiled = read_compiled(root)
    out.compiled_sources = len(compiled)
    out.extraction = extraction_counts(compiled)
    out.contested = sorted(contested)
    out.set_aside = SetAside.load(root).listed()
    out.quarantined, out.quarantine = len(quarantined(root)), f"{STATE_DIR}/{CAPTURE_QUARANTINE}"
    out.proposals = len(listed(root))
    try:
        out.palace = palace_status(root, context.settings)
    except MissingExtra as exc:
        out.palace_unavailable = f"{exc.message}; {exc.hint}"
    except (PalaceError, OSError) as exc:
        out.palace_error = str(exc)
    rows = read_log(root)
    out.last_operations = list(reversed(rows[-recent:])) if recent else []
    out.tokens = token_totals(rows)
    return out


def _linted(context: VaultContext, out: VaultStatus, today: dt.date | None) -> Mapping[str, FileInfo]:
    """Lint's summary into `out`; the vault's files as lint walked them."""
    from wikic.lint.rule import PAGE_RULES
    from wikic.lint.run import LintOptions, lint_and_vault

    try:
        report, files, _, _ = lint_and_vault(context, LintOptions(use_cache=True, today=today))
    except WikicError as exc:
        out.lint = {"error": exc.message}
        return walk(Path(context.root).resolve())[0]
    summary = report.summary()
    summary["info"] = report.count("info")
    rules = Counter(f.rule for f in report.findings)
    summary["by_rule"] = dict(rules.most_common())
    # what a reader of the pages trips over, every rule named (0 included): a vault's page quality
    summary["page_quality"] = {rule: rules.get(rule, 0) for rule in PAGE_RULES}
    out.lint = summary
    return files


def _extraction_lines(counts: dict[str, Any]) -> list[str]:
    lines = []
    empty = counts.get("nothing_extracted") or []
    if empty:
        lines.append(f"Nothing extracted: {len(empty)} compiled source(s) gave no page or claim: "
                     + ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else ""))
        lines.append("  (try a larger model, or `wikic ingest --strategy two-pass --force FILE` to compile it again)")
    dropped = counts.get("dropped") or {}
    if dropped or counts.get("repaired_quotes") or counts.get("sentences_found"):
        reasons = ", ".join(f"{n} {reason}" for reason, n in dropped.items())
        lines.append(f"Claims: {sum(dropped.values())} dropped" + (f" ({reasons})" if reasons else "")
                     + f", {counts.get('repaired_quotes', 0)} quote(s) repaired, "
                     + f"{counts.get('sentences_found', 0)} the sources' own sentences found for names the model "
                     "could not quote")
    if counts.get("superseded") or counts.get("pairings_refused"):
        lines.append(f"Facts over time: {counts.get('superseded', 0)} claim(s) superseded (in their pages' history), "
                     f"{counts.get('pairings_refused', 0)} pairing(s) or interval(s) refused")
    return lines


def render_status(status: VaultStatus) -> str:
    kind = "wikic vault" if status.wikic_vault else "plain Obsidian vault (no SCHEMA.md)"
    lines = [f"Vault: {status.root} ({kind})"]
    parts = ", ".join(f"{n} {k}" for k, n in status.pages.items())
    lines.append(f"Pages: {status.pages_total}" + (f" ({parts})" if parts else ""))
    lines.append(f"Sources: {status.raw_sources} raw file(s), {status.compiled_sources} compiled")
    lines.extend(_extraction_lines(status.extraction))
    if status.set_aside:
        lines.append(f"Set aside: {len(status.set_aside)} raw file(s) ingest refused, left alone until they change:")
        lines.extend(f"  {entry['reason'] or entry['path']} (since {entry['since']})" for entry in status.set_aside)
    if status.contested:
        lines.append(f"Contested: {len(status.contested)} page(s) with contradicting claims: "
                     + ", ".join(status.contested[:5]) + (" ..." if len(status.contested) > 5 else "")
                     + " (see `wikic lint --select contradiction`)")
    if status.proposals:
        lines.append(f"Proposals: {status.proposals} open, not in the wiki yet (see `wikic review`)")
    if status.quarantined:
        lines.append(f"Capture quarantine: {status.quarantined} queue entr{'y' if status.quarantined == 1 else 'ies'} "
                     f"that are no capture, set aside in {status.quarantine}/ (look at them, then delete them)")
    if status.palace_unavailable:
        lines.append(f"Palace: not shown: {status.palace_unavailable}")
    elif status.palace_error:
        lines.append(f"Palace: error: {status.palace_error}")
    elif status.palace is None:
        lines.append("Palace: not built yet (run `wikic index`)")
    else:
        p = status.palace
        dim = f", {p['dim']}-d" if p.get("dim") else ""
        served = "; answering searches: wikic serve" if p.get("served") else ""
        lines.append(
            f"Palace: {p['files']} file(s), {p['drawers']} drawer(s); model {p['model']}{dim}; {p['location']}{served}"
        )
    if status.lint is not None:
        if "error" in status.lint:
            lines.append(f"Lint: cannot run: {status.lint['error']}")
        else:
            s = status.lint
            top = ", ".join(f"{rule} {n}" for rule, n in list(s.get("by_rule", {}).items())[:5])
            lines.append(f"Lint: {s['errors']} error(s), {s['warnings']} warning(s), {s.get('info', 0)} info"
                         + (f" ({top})" if top else ""))
            quality = s.get("page_quality") or {}
            if any(quality.values()):
                found = ", ".join(f"{rule} {n}" for rule, n in quality.items() if n)
                lines.append(f"Page quality: {sum(quality.values())} finding(s) ({found}; see `wikic lint --select "
                             f"{','.join(rule for rule, n in quality.items() if n)}`)")
            elif quality:
                lines.append("Page quality: no finding (" + ", ".join(quality) + ")")
    t = status.tokens
    per = ", ".join(f"{action} {v['tokens']:,} in {v['operations']}" for action, v in t.get("by_action", {}).items())
    cost = f"; cost ${t['cost']:.4f}" if t.get("cost") is not None else ""
    lines.append(f"Tokens: {t.get('total', 0):,}" + (f" ({per})" if per else "") + cost)
    if status.last_operations:
        lines.append("Last operations:")
        for r in status.last_operations:
            # a row's links read as their labels on a terminal
            notes = plain_line(r.notes)
            lines.append(f"  {r.date} {r.action} {plain_line(r.target)}" + (f" — {notes}" if notes else ""))
    else:
        lines.append("Last operations: none yet (log.md is empty)")
    return "\n".join(lines)
