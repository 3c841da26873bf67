"""An embedded palace's vector store runs in a child process that never sees a secret.

hnswlib (inside chromadb) saves its index files from buffers it does not zero, so whatever the saving
process once held in freed memory can land in `.wikic/palace/*.bin`. chromadb's embedded mode saves them on
writes and on reads too (each query first applies the log to the index and persists it). The process that
talks to the LLM holds the API key, so it must never run chromadb on an embedded palace: every store call
goes to a child started with each secret-looking variable removed from its environment. The child receives
only vectors, drawer text and metadata, so there is no key in its memory to leak. (A chroma server saves
its index in its own process; the caller then uses the store directly.)

Protocol: length-prefixed pickle frames on the child's stdin/stdout, request `(method, palace folder,
collection, args, kwargs)`, reply `("ok", value)`, `("error", message)` or `("damaged", message)` (the
palace's files may be damaged: damage.py). Both ends are this module, run by the same user, so pickle carries
nothing the parent did not create.

The child is started with `python -I` (no current folder on its path, no PYTHON* variable) and given the
parent's import path without the current folder, so a folder holding a `wikic/` or a `chromadb.py` never
runs its code in it (`child_command`).
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import re
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import IO, Any

import numpy as np

from wikic.errors import PalaceDamaged, PalaceError
from wikic.palace.summary import GENERATION_KEY as GENERATION_KEY
from wikic.settings import PalaceSettings

# Variables whose value may be a credential: never passed to the child.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
# The VectorStore methods the child runs; every one is idempotent, so a request can be sent again.
METHODS = frozenset({
    "exists", "create", "metadata", "fresh", "drop", "add", "update_metadata", "delete", "all_ids", "get",
    "mark_written", "query", "vectors", "check",
})
# The methods that write: the child holds the palace's writing lock while it runs one (`writing`).
WRITES = frozenset({"create", "drop", "add", "update_metadata", "delete", "mark_written"})
# A file in the palace's folder: locked by a child while it writes, holding that child's pid.
WRITING_LOCK = "writing.lock"
# How long a writer waits for the child of a killed writer to finish its last call before killing it.
ORPHAN_SECONDS = 60.0
# How a child that died of native code (chromadb or hnswlib on a damaged file) ends; any other end (killed,
# out of memory) says nothing about the palace.
CRASHES = frozenset({-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS, -signal.SIGILL, -signal.SIGFPE})
# How long opening a palace, reading its metadata or one query may take before the palace counts as hung
# (loading the HNSW index of a million drawers from a slow disk takes a few tens of seconds).
CHECK_SECONDS = 120.0
# How long a child that let go of a damaged palace may take to exit before it is killed.
RELEASE_SECONDS = 5.0
# Palaces the child keeps open at once (a process that touches many, like the test suite, stays small).
MAX_OPEN = 4
_HEADER = struct.Struct("!Q")


class PalaceUnresponsive(PalaceDamaged):
    """The store child did not answer in time (chromadb hung on the palace's files)."""


def child_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The parent's environment minus anything that may be a secret."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if not SECRET_NAME.search(name)}


def child_import_path(
    path: Sequence[str] | None = None, cwd: str | None = None, environ: dict[str, str] | None = None
) -> list[str]:
    """The folders the child imports from: the parent's, without those that depend on the current folder.

    Python puts the current folder first for `-c`, `-m` and a prompt (as `''` or spelled out), and an
    empty or relative PYTHONPATH entry means it too; a folder holding a `chromadb.py` or a `wikic/` would
    then run its code in the child. So `''`, relative entries and the current folder itself are left out,
    unless the user's PYTHONPATH names that folder. Everything else stays, in order: the user's PYTHONPATH,
    the user site, a venv's site-packages and the folders editable installs add.
    """
    entries = sys.path if path is None else path
    here = os.path.realpath(os.getcwd() if cwd is None else cwd)
    named = {
        os.path.realpath(entry)
        for entry in (os.environ if environ is None else environ).get("PYTHONPATH", "").split(os.pathsep)
        if os.path.isabs(entry)
    }
    out: list[str] = []
    for entry in entries:
        if not os.path.isabs(entry) or entry in out:
            continue
        real = os.path.realpath(entry)
        if real == here and real not in named:
            continue
        out.append(entry)
    return out


# The child's first lines. `-I` starts it with no current folder on its path, no PYTHON* variable and no user
# site; these lines then give it the parent's path (`child_import_path`) and load this very wikic from the
# folder the parent's came from, and nothing else from there (in a checkout, that folder may be the current one).
_BOOTSTRAP = """\
import importlib.util, json, os, sys
package, sys.path[:] = sys.argv[1], json.loads(sys.argv[2])
spec = importlib.util.spec_from_file_location(
    "wikic", os.path.join(package, "__init__.py"), submodule_search_locations=[package])
wikic = importlib.util.module_from_spec(spec)
sys.modules["wikic"] = wikic
spec.loader.exec_module(wikic)
from wikic.palace.store_process import main
main()
"""


def child_command() -> list[str]:
    """The command line of the store child."""
    package = str(Path(__file__).resolve().parents[1])
    return [sys.executable, "-I", "-c", _BOOTSTRAP, package, json.dumps(child_import_path())]


@contextmanager
def writing(folder: Path) -> Iterator[None]:
    """Held by the child while it writes the palace in `folder`. A writer killed with SIGKILL leaves its child
    running the call it was sent; the next writer waits for it (`settle`) instead of writing beside it."""
    try:
        import fcntl
    except ImportError:  # Windows: no orphaned writes to wait for (a killed parent takes the pipe with it)
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / WRITING_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)  # and with it the lock


def settle(folder: Path, grace: float = ORPHAN_SECONDS) -> None:
    """Wait until no store process of an earlier, killed writer still writes the palace in `folder`; one
    still at it after `grace` seconds has hung and is killed. Only a holder of the palace lock calls this,
    and its own child is idle meanwhile, so whoever holds the writing lock has outlived its writer."""
    try:
        import fcntl
    except ImportError:
        return
    try:
        fd = os.open(folder / WRITING_LOCK, os.O_RDWR)
    except FileNotFoundError:
        return
    try:
        deadline = time.monotonic() + grace
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    with suppress(ValueError, ProcessLookupError, PermissionError):
                        os.kill(int(os.pread(fd, 32, 0).decode() or "0"), signal.SIGKILL)
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    return
                time.sleep(0.05)
    finally:
        os.close(fd)


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class StoreProcess:
    """The parent's handle on its store child: started on first use, one per process, shared by every
    embedded palace the process opens; calls are serialised because there is one pipe."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = os.getpid()
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the child now: importing chromadb takes a second, which can overlap the caller's work."""
        with self._lock:
            self._ensure()

    def _ensure(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        try:
            self._proc = subprocess.Popen(
                child_command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=child_environment(),
                close_fds=True,
            )
        except OSError as exc:
            raise PalaceError(f"cannot start the palace process: {exc}") from None
        return self._proc

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def call(self, method: str, settings: PalaceSettings, *args: Any, **kwargs: Any) -> Any:
        """Run one VectorStore method in the child."""
        return self.call_within(None, method, settings, *args, **kwargs)

    def call_within(self, seconds: float | None, method: str, settings: PalaceSettings, *args: Any,
                    **kwargs: Any) -> Any:
        """`call`, but a child that has not answered after `seconds` is killed and the palace reported
        unresponsive (chromadb can hang for good on a damaged palace)."""
        request = (method, str(settings.path), settings.collection, args, kwargs)
        with self._lock:
            status, value = self._exchange(request, seconds)
        if status == "damaged":
            raise PalaceDamaged(value)
        if status == "error":
            raise PalaceError(value)
        return value

    def _exchange(self, request: tuple[Any, ...], seconds: float | None = None) -> tuple[str, Any]:
        """Send a request, read its reply. A child that died (killed, out of memory) is replaced and the
        request sent once more: every method is idempotent."""
        for attempt in (1, 2):
            proc = self._ensure()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                _send(proc.stdin, request)
                # one request at a time: nothing of an earlier reply is left in the buffer
                if seconds is not None and not select.select([proc.stdout], [], [], seconds)[0]:
                    proc.kill()
                    proc.wait()
                    self._proc = None
                    raise PalaceUnresponsive(f"the palace did not answer within {seconds:.0f} s")
                status, value = _receive(proc.stdout)
                return status, value
            except (EOFError, OSError, pickle.PickleError):
                code = proc.wait()
                self._proc = None
                if attempt == 2:
                    message = f"the palace process stopped unexpectedly (exit code {code})"
                    raise (PalaceDamaged if code in CRASHES else PalaceError)(message) from None
        raise AssertionError("unreachable: the second attempt returns or raises")

    def close(self, grace: float = 60.0) -> None:
        """End the child: it finishes what it has and exits, or is killed after `grace` seconds (a child
        that failed on a damaged palace may never exit: chromadb can deadlock on what it read)."""
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None or os.getpid() != self._pid:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()  # end of input: the child finishes what it has and exits
            proc.wait(timeout=grace)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            if proc.stdout is not None:
                proc.stdout.close()


_process: StoreProcess | None = None
_process_lock = threading.Lock()


def store_process() -> StoreProcess:
    """This process's store child (a forked process gets its own: it must not share its parent's pipe)."""
    global _process
    with _process_lock:
        if _process is None or _process._pid != os.getpid():
            _process = StoreProcess()
            atexit.register(_process.close)
        return _process


class IsolatedStore:
    """VectorStore's interface, run in the store child."""

    def __init__(self, settings: PalaceSettings) -> None:
        self._settings = settings

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return store_process().call(method, self._settings, *args, **kwargs)

    def _read(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """A call that only reads and is quick: a store that hangs on it is reported, not waited for."""
        return store_process().call_within(CHECK_SECONDS, method, self._settings, *args, **kwargs)

    def start(self) -> None:
        store_process().start()

    def check(self) -> None:
        self._read("check")

    def settle(self) -> None:
        """Wait for the store process of a killed writer to finish its last write (see `settle`)."""
        settle(self._settings.path)

    def release(self) -> None:
        """Let go of the palace's files: the child, which holds them open, ends (the next call starts another)."""
        store_process().close(grace=RELEASE_SECONDS)

    def exists(self) -> bool:
        return bool(self._read("exists"))

    def create(self, identity: dict[str, Any]) -> None:
        self._call("create", identity)

    def metadata(self) -> dict[str, Any]:
        return dict(self._read("metadata"))

    def fresh(self) -> dict[str, Any] | None:
        meta: dict[str, Any] | None = self._read("fresh")
        return meta

    def drop(self) -> None:
        self._call("drop")

    def add(self, ids: Sequence[str], vectors: np.ndarray, documents: Sequence[str],
            metadatas: Sequence[dict[str, Any]]) -> None:
        self._call("add", list(ids), vectors, list(documents), list(metadatas))

    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        self._call("update_metadata", list(ids), list(metadatas))

    def delete(self, ids: Sequence[str]) -> None:
        self._call("delete", list(ids))

    def all_ids(self) -> set[str]:
        return set(self._call("all_ids"))

    def get(self, ids: Sequence[str]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
        got: tuple[list[str], list[str], list[dict[str, Any]]] = self._call("get", list(ids))
        return got

    def mark_written(self, metadata: dict[str, Any]) -> str:
        return str(self._call("mark_written", metadata))

    def query(self, vector: np.ndarray, n: int, ids: list[str] | None = None,
              where: dict[str, Any] | None = None, refresh: bool = True) -> list[tuple[str, float]]:
        hits: list[tuple[str, float]] = self._read("query", vector, n, ids=ids, where=where, refresh=refresh)
        return hits

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        got: dict[str, np.ndarray] = self._call("vectors", list(ids))
        return got


def open_store(settings: PalaceSettings) -> Any:
    """The store for these settings: in the keyless child for an embedded palace, here for a server."""
    if settings.url is None:
        return IsolatedStore(settings)
    # chromadb is only imported where it is used
    from wikic.palace.chroma import VectorStore

    return VectorStore(settings)


# -- the child ----------------------------------------------------------------------------------------------
def _serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    from chromadb.api.shared_system_client import SharedSystemClient

    from wikic.palace.chroma import VectorStore

    stores: dict[tuple[str, str], VectorStore] = {}
    while True:
        try:
            method, path, collection, args, kwargs = _receive(requests)
        except EOFError:
            return
        try:
            if method not in METHODS:
                raise PalaceError(f"internal error: unknown palace store method {method!r}")
            key = (path, collection)
            if key in stores and stores[key].files_replaced():
                stores.clear()  # every client of that path holds the old files, and chromadb caches them by path
                SharedSystemClient.clear_system_cache()
            if key not in stores:
                if len(stores) >= MAX_OPEN:
                    stores.clear()
                    SharedSystemClient.clear_system_cache()
                stores[key] = VectorStore(PalaceSettings(path=Path(path), collection=collection))
            with writing(Path(path)) if method in WRITES else nullcontext():
                reply: tuple[str, Any] = ("ok", getattr(stores[key], method)(*args, **kwargs))
        except PalaceDamaged as exc:
            reply = ("damaged", exc.message)
        except PalaceError as exc:
            reply = ("error", exc.message)
        except Exception as exc:  # noqa: BLE001 - any chromadb failure goes back as a message; the child stays up
            reply = ("error", f"palace store failed: {type(exc).__name__}: {exc}")
        _send(replies, reply)


def main() -> None:
    # Ctrl-C reaches the whole process group, and so does the SIGTERM of `timeout` or a service manager: the
    # child finishes its call and leaves when the parent does, which stops in order on either.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    # anything a library prints must not corrupt the reply stream
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    _serve(requests, replies)


if __name__ == "__main__":
    main()
