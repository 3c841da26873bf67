"""The compile half of an ingest run: the run's sources compiled one at a time, in the run's order, each
as soon as its plan and the plans of every source before it are in, while later sources are still with
the model.

Compiling reads the vault (pages, raw/ file names, identity.md, the compiled and mentions ledgers), and
reading it before the vault lock is taken is safe only if nothing changes meanwhile. So a session started
early stamps the vault first (every file's size and modification time, and the ledgers' and journal's),
and under the lock, once a journal a killed run left is finished, the stamp is taken again. The same stamp
means the early compile read what a compile under the lock reads, so its pages, index entries, ledgers
and reports are the ones compiling after extraction gives, byte for byte. A different stamp
(another run committed, a person edited a page, a journal was finished) throws the early work away, and a
new session compiles every source under the lock, as when nothing is done early.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.compile.compiler import Compiler, CompileSetting
from wikic.compile.mentions import Mentions
from wikic.compile.result import SourceResult
from wikic.errors import WikicError, describe
from wikic.ingest.compiled import Compiled
from wikic.ingest.report import SourceReport, fill
from wikic.memory.identity import read_identity
from wikic.memory.merge import packaged_embedder, packaged_vectors
from wikic.settings import Settings
from wikic.text.name_use import ANOTHER_PAGE
from wikic.vault.collector import collector_paused
from wikic.vault.link_text import LinkNames
from wikic.vault.load import FileInfo, Vault, load_vault, walk
from wikic.vault.names import PageNames, names_of
from wikic.vault.schema_md import Schema
from wikic.vault.state import COMPILED, JOURNAL, MENTIONS, state_path

if TYPE_CHECKING:
    from wikic.ingest.capture import CapturedSource
    from wikic.ingest.extract.run import ExtractionResult
    from wikic.ingest.gate import Gate

def vault_stamp(root: Path) -> tuple[Any, ...]:
    """What a compile reads of the vault, as file sizes and modification times: the vault's files (raw/
    included; dot-folders, as the compiler never reads them, left out) and the ledgers and journal."""
    files, _ = walk(root)
    return _stamp_of(root, files)


def _stamp_of(root: Path, files: Mapping[str, FileInfo]) -> tuple[Any, ...]:
    listed = tuple(sorted((path, info.size, info.mtime_ns) for path, info in files.items()))
    return listed, tuple(_state_stamp(state_path(root, name)) for name in (COMPILED, MENTIONS, JOURNAL))


@dataclass(frozen=True)
class VaultReading:
    """The vault as a run reads it once, before its sources go to the model: stamped first, then its pages
    parsed, their names and every note's link name. What finds each source's relevant pages reads it, and
    so does the compile session, on copies of the names (compiling adds to them), as long as the stamp
    holds: the vault is then read once per run, not once for each of its readers."""

    stamp: tuple[Any, ...]
    vault: Vault
    names: PageNames
    links: LinkNames


def read_vault(root: Path, schema: Schema) -> VaultReading:
    """The vault at `root` as a compile reads it, with its stamp (`vault_stamp`), from one listing."""
    with collector_paused():
        listed = walk(root)
        stamp = _stamp_of(root, listed[0])
        vault = load_vault(root, use_cache=True, schema=schema, walked=listed)
        names, links = names_of(vault)
    return VaultReading(stamp, vault, names, links)


def _state_stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


@dataclass(frozen=True)
class CompileJob:
    """What every source of a run is compiled with."""

    root: Path
    schema: Schema
    settings: Settings
    today: dt.date
    force: bool
    dry_run: bool
    context_pages: Mapping[str, int]  # raw path -> existing pages the model was told about
    reading: VaultReading | None = None  # the vault as the run read it (None: each session reads it)
    gate: Gate | None = None  # what a review keeps out of each plan: rejections, a part not accepted


class CompileSession:
    """One compiler for a whole run, fed the sources in the run's order; `reports[i]` is `todo[i]`'s."""

    def __init__(self, job: CompileJob, *, early: bool = False) -> None:
        """`early`: started before the vault lock is taken, so the vault is stamped before it is read (a
        later change then shows in the next stamp); under the lock there is nothing to check."""
        self.job = job
        reading = job.reading
        if reading is None or (not early and vault_stamp(job.root) != reading.stamp):
            reading = read_vault(job.root, job.schema)  # none given, or the vault changed since it was read
        self.stamp = reading.stamp if early else None
        self.compiled = Compiled.load(job.root)
        self.mentions = Mentions.load(job.root)
        setting = CompileSetting(job.root, job.schema, job.today, read_identity(job.root))
        self.compiler = Compiler(setting, reading.names.snapshot(), self.mentions, reading.links.copy(),
                                 embed=packaged_embedder, kept=packaged_vectors(job.root), vault=reading.vault)
        self.reports: list[SourceReport] = []
        self.recorded: list[str] = []  # the raw paths compiled, in order (each gets its log.md row)
        self.replies: dict[str, list[str]] = {}  # raw path -> the cached replies its log.md row counts

    @property
    def done(self) -> int:
        return len(self.reports)

    def still_current(self) -> bool:
        """Whether the vault is as it was when this session started reading it (call under the vault lock)."""
        return self.stamp is None or vault_stamp(self.job.root) == self.stamp

    def compile_ready(self, todo: Sequence[CapturedSource], results: Mapping[str, Any]) -> None:
        """Compile the next sources whose extraction has ended, up to the first one still with the model."""
        with collector_paused():  # the compile builds many objects beside the vault's millions, none of them garbage
            while self.done < len(todo) and todo[self.done].raw_path in results:
                src = todo[self.done]
                self.reports.append(self._report(src, results[src.raw_path], interrupted=False))

    def finish(self, todo: Sequence[CapturedSource], results: Mapping[str, Any], *, interrupted: bool) -> None:
        """Compile or report every source not done yet: one without a plan was interrupted (Ctrl-C) or left
        for a later run (the token budget)."""
        while self.done < len(todo):
            src = todo[self.done]
            self.reports.append(self._report(src, results.get(src.raw_path), interrupted=interrupted))

    def _report(self, src: CapturedSource, got: ExtractionResult | Exception | None, interrupted: bool) -> SourceReport:
        ref = src.text_path
        if got is None and interrupted:
            return SourceReport(ref, src.title, "interrupted", error="stopped before its extraction finished")
        if got is None:
            return SourceReport(ref, src.title, "over-budget", error="token budget reached before this source")
        if isinstance(got, WikicError):  # the model's failure, with what to do about it
            return SourceReport(ref, src.title, "failed", error=got.message + (f" ({got.hint})" if got.hint else ""))
        if isinstance(got, Exception):
            return SourceReport(ref, src.title, "failed", error=str(got))
        if self.compiled.is_current(ref, src.sha256) and not self.job.force:
            return SourceReport(ref, src.title, "unchanged")  # another process compiled it
        return self._compile(src, got)

    def _compile(self, src: CapturedSource, got: ExtractionResult) -> SourceReport:
        ref = src.text_path
        usage = got.usage
        # its row counts what was paid now and what cached replies cost when no row counted them yet
        prompt, completion = usage.counted_prompt_tokens, usage.counted_completion_tokens
        r = SourceReport(
            ref,
            src.title,
            "compiled",
            calls=usage.calls,
            cached_calls=usage.cached_calls,
            prompt_tokens=prompt,
            completion_tokens=completion,
            earlier_tokens=usage.earlier_tokens,
            first_paid=usage.first_paid,
            cost=self.job.settings.llm.cost(prompt, completion),
            context_pages=self.job.context_pages.get(src.raw_path, 0),
        )
        try:
            plan = self.job.gate.apply(got.plan, ref) if self.job.gate else got.plan
            result: SourceResult = self.compiler.compile(plan, ref)
        except Exception as exc:  # noqa: BLE001 - this source alone fails; compile() left no trace of it in the compiler
            r.status, r.error = "failed", describe(exc)
            return r
        fill(r, result)
        r.dropped, r.repaired_quotes, r.invented = plan.dropped(), got.plan.repaired_count, list(got.plan.invented)
        r.sentences_found, r.titles = got.plan.sentences_found, list(got.plan.titles)
        r.names_refused = [{"name": name, "reason": why} for name, why in got.plan.refused]
        r.aliases_refused = [{"name": name, "alias": alias, "reason": why}
                             for name, alias, why in got.plan.refused_aliases]
        r.aliases_refused += [{"name": name, "alias": alias, "reason": ANOTHER_PAGE}
                              for name, alias in result.aliases_refused]
        r.names_found = list(got.plan.missed)
        r.rules_found = got.plan.rules_found
        r.strategy, r.nothing_extracted = got.strategy, got.nothing_extracted
        r.left_out = list(got.left_out)
        if not self.job.dry_run:
            self._record(src, r, result)
            self.replies[src.text_path] = list(usage.replies)
        return r

    def _record(self, src: CapturedSource, r: SourceReport, result: SourceResult) -> None:
        ref, today = src.text_path, self.job.today
        self.compiled.record(ref, src.sha256, result.compiled_pages, today.isoformat(), strategy=r.strategy,
                             dropped=r.dropped, repaired=r.repaired_quotes, sentences=r.sentences_found,
                             nothing_extracted=r.nothing_extracted,
                             superseded=r.superseded, refused=len(r.rejected),
                             names_refused=_by_reason(r.names_refused), aliases_refused=_by_reason(r.aliases_refused))
        self.recorded.append(ref)


def _by_reason(refused: list[dict[str, str]]) -> dict[str, int]:
    """How many of `refused` (each with its "reason") each reason refused."""
    counted = Counter(item["reason"] for item in refused)
    return dict(sorted(counted.items()))


class EarlyCompile:
    """The session that compiles while extraction goes on, kept only while it can be trusted.

    `advance` runs on the thread that waits for the model (Ctrl-C lands there). A step cut short by Ctrl-C,
    or one that raised, leaves the session in a state nobody checked: it is dropped, and the sources are
    compiled under the lock as if nothing had been done early."""

    def __init__(self, job: CompileJob, todo: Sequence[CapturedSource]) -> None:
        self._job = job
        self._todo = todo
        self._session: CompileSession | None = None
        self._busy = False  # a step started and has not ended
        self._off = False

    def advance(self, results: Mapping[str, Any]) -> None:
        """Compile what can be compiled now (nothing until the run's first source has its plan)."""
        if self._off or not self._todo or self._todo[0].raw_path not in results:
            return
        self._busy = True
        try:
            if self._session is None:
                self._session = CompileSession(self._job, early=True)
            self._session.compile_ready(self._todo, results)
        except Exception:  # noqa: BLE001 - the compile under the lock meets it again and reports it as it always did
            self._drop()
        self._busy = False  # not in a `finally`: a step cut by Ctrl-C stays busy, so the session is dropped

    def compiled(self) -> list[SourceReport]:
        """The reports of the sources compiled so far, in the run's order (none once the session is dropped)."""
        return list(self._session.reports) if self._session is not None and not self._busy else []

    def take(self) -> CompileSession | None:
        """The early session, if it is whole and the vault is still what it read (call under the vault lock)."""
        session, self._off = self._session, True
        if session is None or self._busy or not session.still_current():
            return None
        return session

    def _drop(self) -> None:
        self._session, self._off = None, True


__all__ = ["CompileJob", "CompileSession", "EarlyCompile", "VaultReading", "read_vault", "vault_stamp"]
