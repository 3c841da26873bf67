"""Servers the tests start on loopback and stop again: a free port, one way to start chroma, one way to stop
a process."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path


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
