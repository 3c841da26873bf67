"""The palace: every page and raw source of a vault, as drawers with vectors and BM25 terms.

`Palace.sync()` brings it in line with the vault (only changed drawers are embedded); `update_paths()` does
the same for a few files (ingest and query call it); `search()` answers with the best distinct files.
One writer at a time (a file lock under .wikic/); readers never take the lock.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import filelock
import numpy as np

from wikic.embed import Embedder, configured_model, make_embedder
from wikic.errors import LockTimeout, PalaceDamaged, PalaceError, require_extra
from wikic.palace.chunking import CHUNKER_VERSION, Document, Drawer, chunk_document
from wikic.palace.damage import set_aside
from wikic.palace.manifest import DrawerRecord, FileRecord, Manifest, ManifestDamaged, damage_reported
from wikic.palace.sources import SourceFile, classify, extracted_originals, file_hash, read_document, scan
from wikic.palace.store_process import GENERATION_KEY, PalaceUnresponsive, open_store
from wikic.palace.summary import PALACE_IDENTITY, palace_manifest, recorded_identity
from wikic.progress import ProgressCallback, ProgressEvent
from wikic.settings import Settings
from wikic.vault.layout import require_vault
from wikic.vault.paths import confined, inside_lexically
from wikic.vault.state import PALACE_LOCK, lock_file, state_path

REBUILD_HINT = "run `wikic index --rebuild` to re-embed the whole palace with the configured model"


# Files are written in batches of about this many new drawers (or files): one chromadb call per batch.
WRITE_BATCH = 256
# Drawers embedded per embedding call: small enough for steady progress (a few per second with the default
# model), large enough that the per-call cost does not show.
EMBED_STEP = 32


@dataclass
class _Pending:
    record: FileRecord
    drawers: list[Drawer]
    fresh: list[Drawer]
    stale: list[str]
    restamped: list[Drawer]  # kept drawers whose place or file fields moved: their stored metadata is rewritten
    is_new: bool
    hash_changed: bool
    size: int  # bytes of the file, for progress


class _Writes(ThreadPoolExecutor):
    """The thread that writes a palace write's batches into chromadb, one after the other; once one failed,
    none after it is written."""

    failed = False


@dataclass
class _Stored:
    """A batch whose chromadb writes were handed to the writing thread: its manifest rows wait for them."""

    pending: list[_Pending]
    fresh: list[Drawer]
    vectors: np.ndarray
    written: Future[None]


class _Indexing:
    """How far a palace write is, reported as `embed` events: the changed files (known after the hash pass)
    are the work, and a batch being embedded counts by the share of its drawers done, weighted by the bytes
    of its files, so one big file moves the bar as smoothly as many small ones."""

    def __init__(self, files: int, size: int, progress: ProgressCallback | None) -> None:
        self.files, self.size, self.progress = files, max(1, size), progress
        self.files_done = self.bytes_done = self.drawers = 0
        self.bytes_sent = 0  # of batches embedded whose writes are not done yet

    def skip(self, size: int) -> None:
        self.files_done += 1
        self.bytes_done += size

    def embedded(self, drawers: int, batch: list[_Pending], share: float) -> None:
        self.drawers += drawers
        self.report(sum(p.size for p in batch) * share)

    def sent(self, batch: list[_Pending]) -> None:
        self.bytes_sent += sum(p.size for p in batch)

    def written(self, batch: list[_Pending]) -> None:
        self.files_done += len(batch)
        self.bytes_sent -= sum(p.size for p in batch)
        self.bytes_done += sum(p.size for p in batch)
        self.report()

    def report(self, partial: float = 0.0) -> None:
        if self.progress is not None and self.files:
            fraction = (self.bytes_done + self.bytes_sent + partial) / self.size
            self.progress(ProgressEvent("embed", self.files_done, self.files, "files", fraction, self.drawers))


@dataclass
class SyncReport:
    """What a sync changed. Paths are vault-relative; `embedded` counts drawers whose vectors were computed."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    drawers_embedded: int = 0
    drawers_removed: int = 0
    drawers_total: int = 0
    files_total: int = 0
    rebuilt: bool = False
    seconds: float = 0.0
    model: str = ""
    damage: str = ""  # why the palace could not be read, when this run set it aside and rebuilt it
    set_aside: str = ""  # where the damaged palace was moved

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _tags_field(tags: list[str]) -> str:
    return "|" + "|".join(tags) + "|" if tags else ""


class Palace:
    """One vault's palace. Cheap to keep open; `search` notices writes made by other processes."""

    def __init__(self, vault: Path, settings: Settings, embedder: Embedder | None = None) -> None:
        require_extra("palace")
        self.vault = vault.resolve()
        require_vault(self.vault)  # a palace lives in .wikic/: never create one in a folder that is no vault
        self.settings = settings.palace
        if self.settings.url is None and inside_lexically(self.vault, self.settings.path):
            confined(self.vault, self.settings.path)  # an absolute path elsewhere is the user's choice
        self._embedding = settings.embedding
        self._embedder = embedder
        # an embedded palace's process starts when a search or a write first needs it (`search` starts it
        # before loading the model, so the two overlap), never for what the manifest alone answers
        self.store = open_store(self.settings)
        self._manifest: Manifest | None = None
        self._lock = filelock.FileLock(str(state_path(self.vault, PALACE_LOCK)))
        # (generation, search.TitleIndex) for title matching in search; rebuilt after each write
        self.title_cache: tuple[str | None, Any] = (None, None)

    # -- parts ------------------------------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self._embedding)
        return self._embedder

    @functools.cached_property
    def _count_tokens(self) -> Callable[[str], int]:
        """The embedder's token count, remembered for the paragraphs seen last: a page that gained a line is
        cut again whole, and its other paragraphs were counted when it was cut before."""
        return functools.lru_cache(maxsize=8192)(self.embedder.count_tokens)

    @property
    def manifest(self) -> Manifest:
        """The files and drawers indexed, with their BM25 terms (kept on this machine, beside the vectors)."""
        if self._manifest is None:
            self._manifest = Manifest(palace_manifest(self.settings.path, self.settings.collection))
        return self._manifest

    def close(self) -> None:
        if self._manifest is not None:
            self._manifest.close()
            self._manifest = None

    def __enter__(self) -> Palace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def identity(self) -> dict[str, Any]:
        emb = self.embedder
        return {"wikic_provider": emb.provider, "wikic_model": emb.model, "wikic_dim": emb.dim}

    def _chunk_signature(self) -> str:
        return f"{CHUNKER_VERSION}:{self._budget()}:{self.embedder.provider}:{self.embedder.model}"

    def _budget(self) -> int:
        limit = self.embedder.max_tokens
        budget = self.settings.chunk_tokens
        return min(budget, limit) if limit else budget

    def check_identity(self, stored: dict[str, Any]) -> None:
        """Refuse to mix vector spaces: the configured model must be the one the collection was built with."""
        if not stored or "wikic_model" not in stored:
            return
        self._check_model(stored)
        emb = self.embedder
        want = f"{emb.provider}:{emb.model}"
        if stored.get("wikic_dim") is not None and int(stored["wikic_dim"]) != emb.dim:
            raise PalaceError(
                f"the palace holds {stored['wikic_dim']}-d vectors but {want} gives {emb.dim}-d", hint=REBUILD_HINT
            )

    def check_recorded_model(self) -> None:
        """`check_identity`'s test of the model's name against the embedder the manifest says the palace was
        last written with, before the configured model is loaded: a search of a palace built with another
        model is refused at once, not after loading a model it cannot use."""
        recorded = recorded_identity(palace_manifest(self.settings.path, self.settings.collection))
        if recorded and "wikic_model" in recorded:
            self._check_model(recorded)

    def _check_model(self, stored: dict[str, Any]) -> None:
        if self._embedder is not None:
            configured: tuple[str, str] | None = (self._embedder.provider, self._embedder.model)
        else:
            configured = configured_model(self._embedding)
        if configured is None:
            return  # an unknown provider: `make_embedder` says so
        have = f"{stored.get('wikic_provider')}:{stored.get('wikic_model')}"
        want = ":".join(configured)
        if have != want:
            raise PalaceError(
                f"the palace was built with embedding model {have} ({stored.get('wikic_dim')}-d), "
                f"but {want} is configured",
                hint=REBUILD_HINT,
            )

    # -- writing ----------------------------------------------------------------------------------------------
    def _locked(self) -> filelock.BaseFileLock:
        lock_file(self.vault, PALACE_LOCK)  # its folder made; a folder in its place refused by name
        return self._lock

    def _acquire(self, timeout: float) -> None:
        try:
            self._locked().acquire(timeout=timeout)
        except filelock.Timeout:
            raise LockTimeout(
                f"another wikic process is writing the palace (lock {state_path(self.vault, PALACE_LOCK)})",
                hint="wait for it to finish, or raise [palace] lock_timeout",
            ) from None

    def sync(
        self, rebuild: bool = False, *, lock_timeout: float | None = None, progress: ProgressCallback | None = None
    ) -> SyncReport:
        """Bring the palace in line with every file of the vault: embed new or changed drawers, drop the rest.
        `progress` receives `embed` events while the changed files are embedded."""
        return self._write(None, rebuild, lock_timeout, progress)

    def update_paths(
        self,
        paths: Iterable[str | Path],
        *,
        lock_timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> SyncReport:
        """Re-index just these files (vault-relative or absolute). A path that no longer exists is removed."""
        rels = [self._relative(p) for p in paths]
        return self._write(rels, False, lock_timeout, progress)

    def _relative(self, path: str | Path) -> str:
        p = Path(path)
        if p.is_absolute():
            try:
                p = p.resolve().relative_to(self.vault)
            except ValueError:
                raise PalaceError(f"{path} is not inside the vault {self.vault}") from None
        return p.as_posix()

    def _write(
        self, only: list[str] | None, rebuild: bool, lock_timeout: float | None, progress: ProgressCallback | None
    ) -> SyncReport:
        started = time.perf_counter()
        self.store.start()
        self._acquire(self.settings.lock_timeout if lock_timeout is None else lock_timeout)
        try:
            self.store.settle()
            try:
                with damage_reported(self.manifest_path()):
                    report = self._write_locked(only, rebuild, progress)
            except PalaceDamaged as damage:
                # only a whole sync repairs: a few files written (ingest, a saved answer) never rebuild everything
                if only is not None or not self._still_damaged(damage):
                    raise
                report = self._rebuild_damaged(damage, progress)
        finally:
            self._lock.release()
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def manifest_path(self) -> Path:
        """Where the manifest lives (inside the palace's folder)."""
        return palace_manifest(self.settings.path, self.settings.collection)

    def _still_damaged(self, damage: PalaceDamaged) -> bool:
        """Whether the palace is damaged: SQLite's word on the manifest is final, and so is a store that hung;
        chromadb's failures are checked once more by a new store process, so a failure that does not come
        back is only reported."""
        if isinstance(damage, ManifestDamaged | PalaceUnresponsive):
            return True
        self.store.release()
        try:
            self.store.check()
        except PalaceDamaged:
            return True
        return False

    def _rebuild_damaged(self, damage: PalaceDamaged, progress: ProgressCallback | None) -> SyncReport:
        """Move the damaged palace aside, beside itself (nothing in it is lost), and build it again from the
        vault's pages and raw sources."""
        self.close()
        self.store.release()
        folder = self.settings.path
        try:
            moved = set_aside(folder)
        except OSError as exc:
            raise PalaceError(f"the palace at {folder} is damaged ({damage.message}) and cannot be moved aside: {exc}",
                              hint=f"move or delete {folder}, then run `wikic index`") from None
        shown = moved.relative_to(self.vault) if moved.is_relative_to(self.vault) else moved
        reason = damage.message.splitlines()[0] if damage.message else "unknown failure"
        reason = reason if len(reason) <= 240 else reason[:239] + "…"
        if progress is not None:
            progress(ProgressEvent("damaged", note=f"the palace could not be read ({reason}); moved it to "
                                                    f"{shown.as_posix()} and rebuilding it from the vault"))
        report = self._write_locked(None, True, progress)
        report.damage, report.set_aside = damage.message, str(moved)
        return report

    def _write_locked(self, only: list[str] | None, rebuild: bool, progress: ProgressCallback | None) -> SyncReport:
        report = SyncReport(rebuilt=rebuild)
        lex = self.manifest
        if not rebuild:
            # the collection as it is now: another process's rebuild replaced the one this store opened before
            self.store.fresh()
            self.store.check()  # a palace that cannot be opened or queried is found here, before any write
        else:
            self.store.drop()
            lex.begin()
            lex.clear()
            lex.commit()
        existing = self.store.metadata() if not rebuild else {}
        self.check_identity(existing)
        identity = self.identity()
        report.model = f"{identity['wikic_provider']}:{identity['wikic_model']} ({identity['wikic_dim']}-d)"
        if not self.store.exists():
            self.store.create(identity)
        recorded = json.dumps(identity, sort_keys=True)
        if lex.get_meta(PALACE_IDENTITY) != recorded:  # what `wikic status` reads (summary.py)
            lex.set_meta(PALACE_IDENTITY, recorded)
        # files a killed writer may have left half-written are read again, also when only others were named
        redo = self._reconcile(force=lex.get_meta("dirty") == "1")
        if only is not None:
            only = [*only, *sorted(redo.difference(only))]

        signature = self._chunk_signature()
        if rebuild:
            # recorded before the first file: a rebuild killed midway leaves drawers of this cut alone, so the
            # next write goes on from the files it left rather than cutting every file again
            lex.set_meta("chunker", signature)
        cut = lex.get_meta("chunker")
        rechunk_all = cut != signature
        if only is not None and cut is not None and rechunk_all:
            # the palace was cut another way (an older version's chunker, another chunk size): every file is
            # cut again now, once, so that search never ranks drawers of two cuts against each other
            only = None
        # what the manifest holds of the files this write reads (of a few named files: those alone)
        known = lex.files() if only is None else lex.file_records(only)
        if only is None:
            sources = {s.path: s for s in scan(self.vault)}
            gone = [p for p in known if p not in sources]
        else:
            sources = {}
            gone = []
            originals = extracted_originals(self.vault)
            for rel in only:
                source = classify(self.vault, rel, originals)
                if source is not None and source.abspath.is_file():
                    sources[rel] = source
                elif rel in known:
                    gone.append(rel)

        if gone:
            lex.set_meta("dirty", "1")  # until the generation is bumped, the two stores may disagree
        for path in gone:
            ids = lex.drawer_ids(path)
            self.store.delete(sorted(ids))
            lex.begin()
            lex.remove_file(path)
            lex.commit()
            report.removed.append(path)
            report.drawers_removed += len(ids)

        # First only find what changed, so the work is known before it starts (for progress); no file is
        # kept in memory meanwhile: the changed ones are read again below.
        changed: list[tuple[SourceFile, int]] = []
        for path, source in sources.items():
            try:
                data = source.abspath.read_bytes()
            except OSError as exc:
                report.skipped[path] = str(exc)
                continue
            before = known.get(path)
            if before is not None and before.file_hash == file_hash(data) and not rechunk_all:
                report.unchanged += 1
                continue
            changed.append((source, len(data)))
        indexing = _Indexing(len(changed), sum(size for _, size in changed), progress)
        indexing.report()

        pending: list[_Pending] = []
        # chromadb writes a batch in its own thread (its process, or its server, does the work) while this one
        # cuts the next files; a batch's manifest rows are written once chromadb holds it, in order
        storing: _Stored | None = None
        with _Writes(1, thread_name_prefix="wikic-palace-store") as writes:
            try:
                for source, size in changed:
                    try:
                        data = source.abspath.read_bytes()
                        doc = read_document(source, data)
                    except (OSError, PalaceError) as exc:
                        report.skipped[source.path] = exc.message if isinstance(exc, PalaceError) else str(exc)
                        indexing.skip(size)
                        continue
                    planned = self._plan_file(source, doc, file_hash(data), known.get(source.path), len(data))
                    pending.append(planned)
                    if planned.fresh or planned.restamped or planned.stale:
                        lex.set_meta("dirty", "1")  # chromadb is written before the manifest
                    if sum(len(p.fresh) for p in pending) >= WRITE_BATCH or len(pending) >= WRITE_BATCH:
                        sent = self._store(pending, indexing, writes)
                        self._settle(storing, report, indexing)
                        storing, pending = sent, []
                sent = self._store(pending, indexing, writes)
                self._settle(storing, report, indexing)
                storing = None
                self._settle(sent, report, indexing)
            except BaseException:
                writes.shutdown(wait=True, cancel_futures=True)  # nothing is left writing chromadb
                raise

        self._copy_vectors()
        if lex.get_meta("dirty") == "1" or rebuild:
            # a new generation tells long-running readers (other processes, other machines) to catch up
            generation = self.store.mark_written(identity)
            lex.set_meta("generation", generation)
        if only is None:  # files not named in update_paths still carry the old cut
            lex.set_meta("chunker", signature)
        lex.set_meta("dirty", "0")
        report.files_total, report.drawers_total = lex.counts()
        self.title_cache = (None, None)
        return report

    def _plan_file(
        self, source: SourceFile, doc: Document, digest: str, before: FileRecord | None, size: int
    ) -> _Pending:
        """Chunk one file and sort its drawers into new (to embed), kept and stale, by content-hash id."""
        drawers = chunk_document(doc, self._budget(), self._count_tokens)
        old = {r.id: r for r in self.manifest.drawers_of(source.path)}
        new_ids = {d.id for d in drawers}
        record = FileRecord(source.path, digest, source.wing, doc.title, doc.aliases, doc.type, doc.tags)
        kept = [d for d in drawers if d.id in old]
        # chromadb holds what the manifest holds of each kept drawer and its file, but for the file's hash
        restamped = kept if before is None else [
            d for d in kept
            if {**self._drawer_metadata(before, old[d.id]), "file_hash": digest} != self._drawer_metadata(record, d)
        ]
        return _Pending(
            record=record,
            drawers=drawers,
            fresh=[d for d in drawers if d.id not in old],
            restamped=restamped,
            stale=sorted(old.keys() - new_ids),
            is_new=before is None,
            hash_changed=before is None or before.file_hash != digest,
            size=size,
        )

    def _embed(self, texts: list[str], batch: list[_Pending], indexing: _Indexing) -> np.ndarray:
        """The vectors of `texts` (the new drawers of `batch`), embedded a step at a time for progress."""
        parts = []
        for start in range(0, len(texts), EMBED_STEP):
            step = texts[start : start + EMBED_STEP]
            parts.append(self.embedder.embed(step))
            indexing.embedded(len(step), batch, (start + len(step)) / len(texts))
        return np.concatenate(parts)

    def _store(self, pending: list[_Pending], indexing: _Indexing, writes: _Writes) -> _Stored | None:
        """Embed a batch of files and hand its chromadb writes to `writes`: one chromadb call per kind of
        change, because chromadb's per-call cost (tens of ms) dwarfs its per-drawer cost."""
        if not pending:
            return None
        fresh = [(p.record, d) for p in pending for d in p.fresh]
        vectors = np.zeros((0, 1), dtype=np.float32)
        if fresh:
            vectors = self._embed([d.embed_text for _, d in fresh], pending, indexing)
        moved = [(p.record, d) for p in pending for d in p.restamped]
        stale = [i for p in pending for i in p.stale]
        store = self.store

        def write() -> None:
            if writes.failed:
                raise PalaceError("not written: an earlier batch of this write failed")
            try:
                store_batch()
            except BaseException:
                writes.failed = True  # what was handed over after it is not written
                raise

        def store_batch() -> None:
            if fresh:
                store.add([d.id for _, d in fresh], vectors, [d.embed_text for _, d in fresh],
                          [self._drawer_metadata(r, d) for r, d in fresh])
            if moved:
                store.update_metadata([d.id for _, d in moved], [self._drawer_metadata(r, d) for r, d in moved])
            if stale:
                store.delete(stale)

        indexing.sent(pending)
        return _Stored(pending, [d for _, d in fresh], vectors, writes.submit(write))

    def _settle(self, stored: _Stored | None, report: SyncReport, indexing: _Indexing) -> None:
        """Wait until chromadb holds the batch, then write its manifest rows and count it in `report`."""
        if stored is None:
            return
        stored.written.result()
        pending, fresh, vectors = stored.pending, stored.fresh, stored.vectors
        lex = self.manifest
        lex.begin()
        try:
            for p in pending:
                lex.put_file(p.record, [self._record(d) for d in p.drawers], [d.embed_text for d in p.drawers])
            if fresh:
                lex.put_vectors([d.id for d in fresh], vectors)
            lex.commit()
        except BaseException:
            lex.rollback()
            raise
        for p in pending:
            report.drawers_embedded += len(p.fresh)
            report.drawers_removed += len(p.stale)
            if p.is_new:
                report.added.append(p.record.path)
            elif p.hash_changed or p.fresh or p.stale:
                report.updated.append(p.record.path)
            else:
                report.unchanged += 1
        indexing.written(pending)

    def _copy_vectors(self) -> None:
        """Give every drawer its vector copy in the manifest (for exact search): drawers indexed before the
        copies existed, or caught up from a chroma server, get theirs from the store."""
        lex = self.manifest
        missing = lex.missing_vectors()
        for start in range(0, len(missing), 1000):
            stored = self.store.vectors(missing[start : start + 1000])
            if stored:
                lex.set_meta("dirty", "1")  # readers must load the completed copies
                lex.begin()
                lex.put_vectors(list(stored), np.stack(list(stored.values())))
                lex.commit()

    @staticmethod
    def _record(d: Drawer) -> DrawerRecord:
        return DrawerRecord(d.id, d.path, d.ordinal, d.heading, d.text, d.line_start, d.line_end, d.content_hash)

    @staticmethod
    def _drawer_metadata(record: FileRecord, d: Drawer | DrawerRecord) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "path": record.path,
            "wing": record.wing,
            "room": record.path,
            "title": record.title,
            "heading": d.heading,
            "tags": _tags_field(record.tags),
            "aliases": "|".join(record.aliases),
            "file_hash": record.file_hash,
            "content_hash": d.content_hash,
            "line_start": d.line_start,
            "line_end": d.line_end,
            "ordinal": d.ordinal,
        }
        if record.type:
            meta["type"] = record.type
        return meta

    def _reconcile(self, force: bool = False) -> set[str]:
        """Make the local manifest (and its BM25 terms) match the vector collection (the shared truth).

        Needed when another machine wrote to a shared chroma server, or a writer died between the two
        stores. Every file whose drawers the two disagree on is rebuilt here from the drawers chromadb holds
        for it (none left: the file is dropped), so nothing chromadb has is embedded again. Such a file may
        be half-written (a writer of this palace died mid-way: `dirty`, or its drawers carry different file
        hashes); it is then recorded with no file hash, which makes the next sync read it again from the
        vault, and returned, so that the caller can. A write leaves a drawer that neither changed nor moved
        with the hash of the write that stored it (rewriting its metadata costs chromadb more than the rest
        of the write), so a file written again since is read again too: it costs a cut, no embedding.
        """
        lex = self.manifest
        generation = self.store.metadata().get(GENERATION_KEY)
        if not force and (generation is None or lex.get_meta("generation") == generation):
            return set()
        suspect = force or lex.get_meta("dirty") == "1"
        remote = self.store.all_ids()
        local = lex.drawer_ids()
        rows: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        for i, doc, meta in zip(*self.store.get(sorted(remote - local)), strict=True):
            if isinstance(meta.get("path"), str):
                rows.setdefault(meta["path"], []).append((i, doc, meta))
        touched = {r.path for r in lex.drawers_by_id(local - remote).values()} | set(rows)
        # the drawers of those files that both stores hold: their text as embedded is chromadb's
        shared = sorted(d.id for path in touched for d in lex.drawers_of(path) if d.id in remote)
        for i, doc, meta in zip(*self.store.get(shared), strict=True):
            rows.setdefault(str(meta.get("path")), []).append((i, doc, meta))
        redo: set[str] = set()
        lex.begin()
        try:
            for path in sorted(touched):
                found = sorted(rows.get(path, []), key=lambda r: int(r[2].get("ordinal", 0)))
                if not found:
                    lex.remove_file(path)
                    continue
                m0 = found[0][2]
                hashes = {str(m.get("file_hash", "")) for _, _, m in found}
                file_hash = hashes.pop() if len(hashes) == 1 and not suspect else ""
                if not file_hash:
                    redo.add(path)
                tags = [t for t in str(m0.get("tags", "")).split("|") if t]
                aliases = [a for a in str(m0.get("aliases", "")).split("|") if a]
                record = FileRecord(path, file_hash, str(m0.get("wing", "")), str(m0.get("title", "")), aliases,
                                    m0.get("type"), tags)
                drawers = [
                    DrawerRecord(i, path, int(m.get("ordinal", 0)), str(m.get("heading", "")),
                                 doc.split("\n", 1)[1] if "\n" in doc else doc,
                                 int(m.get("line_start", 1)), int(m.get("line_end", 1)),
                                 str(m.get("content_hash", "")))
                    for i, doc, m in found
                ]
                lex.put_file(record, drawers, [doc for _, doc, _ in found])
            if generation is not None:
                lex.set_meta("generation", generation)
            lex.commit()
        except BaseException:
            lex.rollback()
            raise
        self.title_cache = (None, None)
        return redo

    def refresh(self) -> dict[str, Any] | None:
        """Catch up with writes made by other processes (cheap when there were none); returns the
        collection's metadata, or None when the palace has never been indexed."""
        meta = self.store.fresh()
        if meta is None:
            return None
        generation = meta.get(GENERATION_KEY)
        if generation is None or self.manifest.get_meta("generation") == generation:
            return meta
        # Only a writer may touch the manifest; if one is busy, search what we have and catch up later.
        try:
            self._locked().acquire(timeout=0)
        except (filelock.Timeout, OSError):
            return meta
        try:
            self._reconcile()
        finally:
            self._lock.release()
        return meta

    # -- status -----------------------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        meta = self.store.metadata()
        files, drawers = self.manifest.counts()
        return {
            "files": files,
            "drawers": drawers,
            "model": f"{meta.get('wikic_provider')}:{meta.get('wikic_model')}" if meta else None,
            "dim": meta.get("wikic_dim"),
            "location": self.settings.url or str(self.settings.path),
        }


def open_palace(vault: Path, settings: Settings, *, embedder: Embedder | None = None) -> Palace:
    """The palace of `vault` with `settings`, its context's (`VaultContext.palace` opens it: the palace reads
    no wikic.toml of its own)."""
    return Palace(vault, settings, embedder=embedder)
