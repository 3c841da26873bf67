"""`wikic watch` as a person runs it: it says what it watches, and Ctrl-C stops it cleanly with exit 130 (a
service manager's SIGTERM with 143)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from convkit import finish, wikic_process


@pytest.mark.slow  # a watch process, stopped after two seconds
@pytest.mark.parametrize(("sent", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_a_service_managers_sigterm_stops_watch_cleanly(vault: Path, sent: int, exit_code: int) -> None:
    # a model is configured but never called: the catch-up run finds nothing to compile
    env = {"WIKIC_LLM_MODEL": "m", "WIKIC_LLM_BASE_URL": "http://127.0.0.1:9/v1", "WIKIC_EMBEDDING_PROVIDER": "static"}
    process = wikic_process(["watch", "--vault", str(vault), "--no-palace", "--debounce", "100"], env=env)
    assert process.stderr is not None
    line = process.stderr.readline()
    assert b"watching" in line
    time.sleep(2)  # inside the watch loop by now
    process.send_signal(sent)
    code, _, err = finish(process, timeout=60)
    assert code == exit_code, err
    assert b"stopped" in err and b"Traceback" not in err
