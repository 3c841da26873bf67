"""Runs `wikic` commands in forked children that SIGKILL themselves at a chosen file-system step.

    python crashworker.py        # then one JSON request per line on stdin, one JSON answer per line out
    {"argv": ["ingest", "a.md", "--vault", "V"], "kill_at": 7, "log": "/tmp/x.log"}
    -> {"killed": true, "exit": null, "steps": null}
    {"argv": [...], "kill_at": null, "log": "..."}
    -> {"killed": false, "exit": 0, "steps": 23}
    {"argv": ["index", "--vault", "V"], "kill_in": "wikic.palace.manifest:Manifest.put_file", "kill_at": 2, ...}
    -> {"killed": true, ...}

A step is a call to os.replace, os.rename, os.link or os.unlink: every file wikic writes becomes visible
through one of them (atomic writes rename a temporary file; raw captures link one), and every state file
it removes goes through unlink. `kill_at: N` kills the child with SIGKILL just before its N-th step, so
sweeping N over 1..steps stops a run at every point where the vault's files change. With `kill_in:
"module:Class.method"` the step counted is a call of that function instead (the palace's writes to
chromadb and to its manifest change no file through a rename), and `kill_delay: S` lets that call run for
S seconds before the kill (a call the palace's store process is still running when its writer dies). The worker imports
wikic once and forks per command, so each run costs milliseconds of start-up instead of seconds.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

import wikic.cli
import wikic.ingest.pipeline
import wikic.lint.run  # noqa: F401

STEPS = ("replace", "rename", "link", "unlink")


def child(argv: list[str], kill_at: int | None, log: str, kill_in: str | None = None, kill_delay: float = 0.0) -> int:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    counter = [0]

    def hooked(real: Callable[..., Any]) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            counter[0] += 1
            if kill_at is not None and counter[0] >= kill_at:
                if not kill_delay:
                    os.kill(os.getpid(), signal.SIGKILL)
                threading.Timer(kill_delay, os.kill, (os.getpid(), signal.SIGKILL)).start()
            return real(*args, **kwargs)

        return step

    if kill_in is None:
        for name in STEPS:
            setattr(os, name, hooked(getattr(os, name)))
    else:
        module, _, qualname = kill_in.partition(":")
        owner_name, _, attribute = qualname.rpartition(".")
        owner = importlib.import_module(module)
        for part in filter(None, owner_name.split(".")):
            owner = getattr(owner, part)
        setattr(owner, attribute, hooked(getattr(owner, attribute)))
    from wikic.cli import app

    code = 0
    try:
        result = app(args=argv, prog_name="wikic", standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - a crash is an answer too: the caller checks the log
        import traceback

        traceback.print_exc()
        code = 99
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(fd, f"\n#steps {counter[0]}\n".encode())
    return code


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os._exit(child(request["argv"], request.get("kill_at"), request["log"], request.get("kill_in"),
                           request.get("kill_delay", 0.0)))
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        steps = None
        if not killed:
            with open(request["log"], encoding="utf-8", errors="replace") as fh:
                tail = [ln for ln in fh.read().splitlines() if ln.startswith("#steps ")]
            steps = int(tail[-1].split()[1]) if tail else None
        answer = {"killed": killed, "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, "steps": steps}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
