"""Every file wikic keeps under a vault's `.wikic/` folder is named here, and read and written through here.

    sources.json            the source ledger: each raw file's sha256, kind and origin (capture writes it)
    compiled.json           raw path -> sha256 and pages written, so an unchanged source costs nothing, and
                            what its run refused by reason (claims, names, aliases, pairings)
    composed.json           page -> the day it was last composed as prose, its sentences written and refused
                            by reason (`wikic/ingest/prose_step.py`)
    mentions.json           names seen below their SCHEMA.md threshold, with what each source said of them
    journal.json            the writes a run planned and has not finished (`wikic/pages/journal.py`)
    palace-todo/<run>.json  paths a run wrote and the palace has not re-read yet, and the process that wrote them
    vault.lock              one writer of wiki content at a time (`wikic/pages/lock.py`)
    palace.lock             one writer of the palace at a time
    search.sock             where a running `wikic serve` answers searches (`wikic/search_server.py`)
    palace/                 the palace itself, unless `[palace] path` puts it elsewhere (its files are named
                            by `wikic/palace/summary.py`, which also reads what status shows of it)
    llm-endpoints.json      what each model endpoint turned out to accept
    conversations.json      each conversation brought in: its transcript parts, how much of it they hold
                            (turns, or bytes of an append-only session file), and the exports already read
    conversations.json.lock one writer of conversations.json (ingest of exports, draining the queue)
    set-aside.json          files in raw/ that ingest refused (empty, binary, a zip bomb, a named pipe...), by
                            size, mtime and sha256, with the reason: reported once, then left alone until
                            they change (`formats/set_aside.py`; `wikic status` lists them)
    set-aside.json.lock     one writer of set-aside.json
    capture/<key>.json      how far `wikic capture` has copied one session file (its key: a hash of the path)
    capture/<key>.lock      one capture of that session file at a time
    capture/queue/          what capture copied and ingest has not turned into transcripts yet
    capture/quarantine/     queue entries that are no capture (a folder, a file with no capture header),
                            moved aside by ingest so they never stop it; `wikic status` counts them
    proposals/<id>/         a run kept for review: proposal.json, before/ and after/ files, plans.json
                            (`wikic/review/store.py`)
    rejected.md             what a person rejected in review, obeyed by every later run of its source
                            (`wikic/ingest/rejections.py`; versioned with the vault)
    cache/llm/              validated model replies, by request
    cache/parse-cache.jsonl parsed notes, one JSON line each, by size and mtime
    cache/lint-report.json  the last lint report, by the vault's listing
    cache/eval-pages.json   what `wikic eval` found on each page, by size and mtime and its sources' sha256
    cache/memories.json     the memory items on the pages, by size and mtime (derived from the pages; rebuilt
                            from them whenever it is missing, stale or unreadable)

State is written atomically, so a crash or a parallel reader never sees half a file; every file here can be
rebuilt (or, for the journal, redone), so a missing or unreadable one reads as empty.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from typing import Any

from wikic.errors import LockTimeout, VaultError
from wikic.vault.layout import STATE_DIR
from wikic.vault.paths import confined, escape, make_folder, map_inside, read_inside
from wikic.vault.write import write_atomic, write_bytes_atomic

SOURCES = "sources.json"
SOURCES_LOCK = "sources.json.lock"
COMPILED = "compiled.json"
COMPOSED = "composed.json"  # each page composed as prose: its sentences written and refused, by reason
MENTIONS = "mentions.json"
JOURNAL = "journal.json"
PALACE_TODO = "palace-todo"
COMPOSE_TODO = "compose-todo"  # pages a run wrote that its composing has not written as prose yet
VAULT_LOCK = "vault.lock"
PALACE_LOCK = "palace.lock"
SEARCH_SOCKET = "search.sock"  # where a running `wikic serve` answers searches
ENDPOINTS = "llm-endpoints.json"
REPLY_CACHE = "cache/llm"
PARSE_CACHE = "cache/parse-cache.jsonl"
LINT_REPORT = "cache/lint-report.json"
JUDGED = "judged.json"  # the judge's last verdicts on the vault's claims and sentences (`wikic eval --judge`)
JUDGE_CALIBRATION = "judge-calibration.json"  # the judge's last accuracy on the calibration set, with its model
EVAL_PAGES = "cache/eval-pages.json"  # what `wikic eval` found on each page, while it and its sources are unchanged
PAGE_JUDGEMENTS = "cache/page-rules.json"  # the page rules' findings on each page, while it is unchanged
SETTINGS_CHECKED = "cache/settings-checked.json"  # what the settings gave lint when last validated, and from what
RESOLVED_LINKS = "cache/resolved-links.json"  # where each note's links land, while the vault holds the same files
CLOSE_NAMES = "cache/close-names.json"  # broken-wikilink's "did you mean" names, while the page names are the same
MEMORY_INDEX = "cache/memories.json"
MEMORY_VECTORS = "cache/memory-vectors.npz"  # the embeddings of memory texts duplicates are judged by
CONVERSATIONS = "conversations.json"
CONVERSATIONS_LOCK = "conversations.json.lock"
SET_ASIDE = "set-aside.json"
SET_ASIDE_LOCK = "set-aside.json.lock"
CAPTURE = "capture"
CAPTURE_QUEUE = "capture/queue"
CAPTURE_QUARANTINE = "capture/quarantine"
PROPOSALS = "proposals"  # runs kept for review, one folder each (`wikic/review/store.py`)
PROPOSAL_FILE = "proposal.json"  # a proposal's record, written last: a folder without one is no proposal
# the folders above, vault-relative: checked not to lead out of the vault whenever a command opens it
STATE_FOLDERS = (STATE_DIR, *(f"{STATE_DIR}/{name}" for name in ("cache", "cache/llm", PALACE_TODO, COMPOSE_TODO,
                                                                   CAPTURE, CAPTURE_QUEUE, CAPTURE_QUARANTINE,
                                                                   "palace")))


# the ledgers an accepted proposal writes whole (`pages/journal.py`), and the capture-queue entries it removes
LEDGERS = frozenset({SOURCES, COMPILED, COMPOSED, MENTIONS, CONVERSATIONS, SET_ASIDE})


def is_ledger(name: str) -> bool:
    """Whether `name` (`.wikic/`-relative) is a ledger a journal may write whole, or a queue entry it removes."""
    if name in LEDGERS:
        return True
    head, _, leaf = name.rpartition("/")
    return head == CAPTURE_QUEUE and bool(leaf) and leaf not in (".", "..") and "\\" not in leaf


def open_proposals(root: Path) -> int:
    """How many proposals wait for review (a folder of `.wikic/proposals/` holding its record)."""
    folder = Path(root) / STATE_DIR / PROPOSALS
    if escape(root, folder) is not None or not folder.is_dir():
        return 0
    return sum(1 for entry in folder.iterdir() if (entry / PROPOSAL_FILE).is_file() and not entry.is_symlink())


def state_dir(root: Path) -> Path:
    """The vault's `.wikic/`; VaultError when it is a link leading outside the vault."""
    return confined(root, Path(root) / STATE_DIR)


def state_path(root: Path, name: str) -> Path:
    """Where the state file `name` (one of the names above) of the vault at `root` lives; VaultError when
    `.wikic/` or a folder of it leads outside the vault, so nothing is ever written there."""
    return confined(root, Path(root) / STATE_DIR / name)


def state_file(root: Path, name: str) -> Path | None:
    """`state_path` for a reader: None where the state leads outside the vault, read as missing."""
    path = Path(root) / STATE_DIR / name
    return None if escape(root, path) is not None else path


def state_is_ours(root: Path) -> bool:
    """`.wikic/` must be a real folder inside the vault: a symlink there could redirect cache writes."""
    return escape(root, Path(root) / STATE_DIR) is None


@contextmanager
def state_lock(root: Path, name: str, timeout: float, *, holder: str, hint: str) -> Iterator[None]:
    """Hold the lock file `name`; after `timeout` seconds of waiting, LockTimeout ("`holder` for N s")."""
    from filelock import FileLock, Timeout  # here: `wikic capture` imports this module and must start fast

    lock = FileLock(str(lock_file(root, name)))
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise LockTimeout(f"{holder} for {timeout:.0f} s", hint=hint) from None
    try:
        yield
    finally:
        lock.release()


def lock_file(root: Path, name: str) -> Path:
    """The lock file `name`, its folder made; VaultError when it leads outside the vault, or is no file of its
    own (a lock is taken on a file, never through a link: a synced or cloned `.wikic/` may hold a folder or a
    link of its name)."""
    import stat

    path = state_path(root, name)
    make_folder(root, path.parent)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a symbolic link" if stat.S_ISLNK(mode) else "no regular file"
        raise VaultError(f"cannot lock {STATE_DIR}/{name}: it is {kind}", hint=f"move {path} away (wikic makes its "
                         "lock file again), then run the command again")
    return path


# -- JSON state ------------------------------------------------------------------------------------------


def json_bytes(value: Any) -> bytes:
    """`value` as a state file holds it: keys sorted and one per line, so a versioned ledger diffs cleanly."""
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def write_json(path: Path, value: Any, *, root: Path, private: bool = False) -> None:
    """`value` into the state file `path` of the vault at `root`; `private`: readable by its owner only."""
    write_bytes_atomic(path, json_bytes(value), root=root, private=private)


def read_json(path: Path | None) -> Any | None:
    """The JSON value in `path`, or None when the file is missing or unreadable (state is rebuildable)."""
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested a thousand levels deep
        return None


def read_state(root: Path, name: str) -> Any | None:
    """The JSON value in the state file `name`, or None when it is missing, unreadable or no file at all (a
    folder, a named pipe: never opened): state is rebuildable."""
    text = read_cache(root, name)
    try:
        return json.loads(text) if text else None
    except (ValueError, RecursionError):  # RecursionError: JSON nested a thousand levels deep
        return None


def read_ledger(root: Path, name: str, key: str) -> dict[str, Any]:
    """The map under `key` in the ledger `name` ({} when it is missing or unreadable), as JSON: the package
    that owns the ledger types its entries."""
    data = read_state(root, name)
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def write_ledger(root: Path, name: str, key: str, value: dict[str, Any]) -> None:
    """The ledger `name` holding `value` (JSON) under `key`, beside its version."""
    write_json(state_path(root, name), {"version": 1, key: value}, root=root)


# -- caches ----------------------------------------------------------------------------------------------


def read_cache(root: Path, name: str) -> str | None:
    data = read_cache_bytes(root, name)
    try:
        return None if data is None else data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        return None


def read_cache_json(root: Path, name: str) -> dict[str, Any] | None:
    """A cache file holding one JSON object, or None when it is missing, damaged or holds something else (a
    cache is rebuilt, never trusted)."""
    data = read_state(root, name)
    return data if isinstance(data, dict) else None


def read_cache_bytes(root: Path, name: str) -> bytes | None:
    """The bytes of the state file `name`, or None when it is missing, unreadable, leads outside the vault or
    is no file (a folder, a named pipe: never opened)."""
    path = state_file(root, name)
    try:
        return None if path is None else read_inside(root, path)
    except (OSError, VaultError):
        return None


def map_cache(root: Path, name: str) -> mmap.mmap | bytes | None:
    """`read_cache_bytes`, the file mapped (`paths.map_inside`): for a big cache of which a few rows are read."""
    path = state_file(root, name)
    try:
        return None if path is None else map_inside(root, path)
    except (OSError, ValueError, VaultError):  # ValueError: a file mmap cannot map
        return None


def write_cache(root: Path, name: str, text: str | bytes) -> None:
    """Replace a cache file in one step (a reader never sees half of it), without the fsyncs state gets:
    a cache lost to a power cut costs one rebuild. Nothing is written where `.wikic/` is not the vault's own,
    and a cache that cannot be written is no error (a read-only vault still lints)."""
    path = state_file(root, name)
    if path is None:
        return
    with suppress(OSError):
        write_bytes_atomic(path, text.encode("utf-8") if isinstance(text, str) else text, root=root, durable=False)


# -- the source ledger (sources.json: its rows in `formats/sources.py`) -----------------------------------


def source_ledger_lock(root: Path, timeout: float = 60.0) -> AbstractContextManager[None]:
    """One writer of the source ledger at a time (capture reads it, adds entries, writes it back)."""
    return state_lock(
        root,
        SOURCES_LOCK,
        timeout,
        holder=f"{state_path(root, SOURCES)}: another wikic process has held the source ledger",
        hint="wait for the other ingest to finish",
    )


# -- the journal and the palace's to-do ------------------------------------------------------------------


def save_journal(root: Path, data: dict[str, Any]) -> None:
    write_atomic(state_path(root, JOURNAL), json.dumps(data, ensure_ascii=False), root=root)


def load_journal(root: Path) -> dict[str, Any] | None:
    """The journal a killed run left, or None: missing, or unreadable (it is written atomically, so an
    unreadable one was never completely written)."""
    data = read_state(root, JOURNAL)
    return data if isinstance(data, dict) else None


def journal_exists(root: Path) -> bool:
    path = state_file(root, JOURNAL)
    return path is not None and path.exists()


def drop_journal(root: Path) -> None:
    path = state_path(root, JOURNAL)
    if os.path.isdir(path) and not os.path.islink(path):
        return  # no journal, nor ours to remove: the next one saved says so (`write_atomic`)
    with suppress(FileNotFoundError):
        os.unlink(path)


def refuse_journal(root: Path, why: str) -> NoReturn:
    """Set the journal aside as `journal.refused-<time>.json` (beside it: nothing is lost, and nothing replays
    it) and raise the VaultError that says so: a journal no run of this vault's writer could have left (`why`),
    which a synced or cloned `.wikic/` may bring."""
    import time

    aside = state_path(root, f"journal.refused-{time.strftime('%Y%m%dT%H%M%S')}-{os.urandom(2).hex()}.json")
    os.replace(state_path(root, JOURNAL), aside)
    raise VaultError(
        f"refusing to replay {STATE_DIR}/{JOURNAL}: {why}; nothing of it was written, and it is set aside as "
        f"{aside.relative_to(root).as_posix()}",
        hint="a journal no wikic run wrote may come with a synced or cloned .wikic/ folder: look at it, then run "
             "the command again (it goes on without it)",
    )


def add_palace_todo(root: Path, run: str, paths: list[str]) -> None:
    _add_todo(root, PALACE_TODO, run, paths)


def palace_todos(root: Path) -> list[tuple[Path, list[str]]]:
    """(to-do file, paths) for every palace update a run planned and has not done."""
    return _todos(root, PALACE_TODO)


def drop_palace_todo(todo: Path) -> None:
    _drop_todo(todo)


def add_compose_todo(root: Path, run: str, paths: list[str]) -> None:
    _add_todo(root, COMPOSE_TODO, run, paths)


def compose_todos(root: Path) -> list[tuple[Path, list[str]]]:
    """(to-do file, pages) for every run whose pages were written and not composed yet (it was killed, or
    stopped, between the two)."""
    return _todos(root, COMPOSE_TODO)


def drop_compose_todo(todo: Path) -> None:
    _drop_todo(todo)


def _add_todo(root: Path, folder: str, run: str, paths: list[str]) -> None:
    # the writing process named, so another run can tell a to-do still in progress from one a run left
    writer = {"pid": os.getpid(), "started": _process_started(os.getpid())}
    write_atomic(state_path(root, f"{folder}/{run}.json"), json.dumps({"paths": sorted(set(paths)), "writer": writer},
                                                                      ensure_ascii=False), root=root)


def _todos(root: Path, name: str) -> list[tuple[Path, list[str]]]:
    folder = state_file(root, name)
    out = []
    for path in sorted(folder.glob("*.json")) if folder is not None and folder.is_dir() else []:
        data = read_state(root, f"{name}/{path.name}")
        paths = data.get("paths") if isinstance(data, dict) else None
        out.append((path, [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []))
    return out


def todo_in_progress(root: Path, todo: Path) -> bool:
    """Whether the to-do file `todo` belongs to a run of another process that is still going (it does the work
    itself once its writes are done), rather than one a run left when it was interrupted or failed, or one an
    earlier wikic wrote without naming its process."""
    data = read_state(root, f"{todo.parent.name}/{todo.name}")
    writer = data.get("writer") if isinstance(data, dict) else None
    pid, recorded = (writer.get("pid"), writer.get("started")) if isinstance(writer, dict) else (None, None)
    if type(pid) is not int or pid <= 0 or pid == os.getpid() or os.name == "nt":  # Windows: signal 0 ends it
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        pass  # running, as another user
    except (OSError, OverflowError):
        return False
    started, ended = _process_stat(pid)
    # a process that ended and was not waited for yet (a zombie) is no run; a later one given the same pid neither
    return not ended and (recorded is None or started in (None, recorded))


def _process_started(pid: int) -> int | None:
    """When process `pid` started, in clock ticks after boot (Linux's /proc), or None where that cannot be read.
    With its pid it names one process, never a later one given the same number."""
    return _process_stat(pid)[0]


def _process_stat(pid: int) -> tuple[int | None, bool]:
    """(when process `pid` started, whether it has ended and waits to be reaped) as Linux's /proc tells it;
    (None, False) where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None, False
    fields = stat[stat.rfind(b")") + 2 :].split()  # after the command's name, which may hold spaces
    started = int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None
    return started, fields[:1] == [b"Z"]


def _drop_todo(todo: Path) -> None:
    with suppress(FileNotFoundError):
        os.unlink(todo)


# -- conversations brought in (conversations.json: its rows in `formats/conversations.py`) ---------------


def conversations_lock(root: Path, timeout: float = 600.0) -> AbstractContextManager[None]:
    """One process brings conversations in at a time (an ingest of exports, the queue's drain)."""
    return state_lock(root, CONVERSATIONS_LOCK, timeout, holder=f"{state_path(root, CONVERSATIONS)}: another wikic "
                      "process has been bringing conversations in", hint="wait for the other ingest or watch to finish")


# -- files in raw/ that ingest refused (set-aside.json: its rows in `formats/set_aside.py`) ---------------


def set_aside_lock(root: Path, timeout: float = 60.0) -> AbstractContextManager[None]:
    """One writer of set-aside.json at a time (an ingest reads it, adds and drops entries, writes it back)."""
    return state_lock(root, SET_ASIDE_LOCK, timeout, holder=f"{state_path(root, SET_ASIDE)}: another wikic process "
                      "has held the list of set-aside files", hint="wait for the other ingest to finish")
