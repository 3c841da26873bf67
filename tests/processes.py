"""Servers the tests start on loopback and stop again: a free port, one way to start chroma, one way to stop
a process; and the `wikic` script run in a process of its own, saying whether it loaded Typer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop(proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL if it has not exited after `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def chroma_cli() -> list[str]:
    exe = Path(sys.executable).with_name("chroma")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "chromadb.cli.cli"]


@contextmanager
def chroma_server(data: Path, port: int, env: Mapping[str, str], start_timeout: float = 60) -> Iterator[str]:
    """`chroma run` on 127.0.0.1:`port` with its database in `data`; yields its URL once it answers."""
    log = (data / "server.log").open("wb")
    proc = subprocess.Popen(
        [*chroma_cli(), "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env=dict(env),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + start_timeout
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chroma server did not start: {(data / 'server.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        stop(proc, timeout=20)
        log.close()


def wikic_script(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """The `wikic` script's `main` in a process of its own (`kwargs`: `subprocess.run`'s); at exit it says on
    stderr whether Typer was loaded (its fast paths never load it)."""
    code = ("import atexit, sys; atexit.register(lambda: print('typer' in sys.modules, file=sys.stderr)); "
            "from wikic.cli import main; sys.argv = ['wikic', *sys.argv[1:]]; main()")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-c", code, *args], text=True, env=env, timeout=120, **kwargs)
