"""`wikic serve` and `wikic search` asking it: the same results as a search in its own process, and a
search in its own process whenever the server cannot answer it as that process would."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from processes import wikic_script
from typer.testing import CliRunner

from wikic.cli import app
from wikic.config_file import config_fingerprint
from wikic.context import VaultContext
from wikic.errors import UsageError, VaultError
from wikic.palace.served import served_search, socket_address
from wikic.search_server import Served, serve

runner = CliRunner()
NOTED: list[str] = []  # what the last server of `serving` said went wrong


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@contextmanager
def serving(vault: Path, idle: float = 0) -> Iterator[tuple[Served, threading.Event, threading.Thread]]:
    """A server of `vault` in a thread, until the block ends (or it stops by itself)."""
    ready, stop = threading.Event(), threading.Event()
    done: list[Served] = []
    failed: list[BaseException] = []
    noted: list[str] = []

    def run() -> None:
        try:
            with VaultContext(vault) as context:
                done.append(serve(context, idle=idle, stop=stop, ready=lambda _: ready.set(), note=noted.append))
        except BaseException as exc:  # noqa: BLE001 - shown by the test
            failed.append(exc)
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(60) and not failed, failed
    served = Served()
    try:
        yield served, stop, thread
    finally:
        stop.set()
        thread.join(30)
        assert not thread.is_alive() and not failed, failed
        served.answered, served.stopped = done[0].answered, done[0].stopped
        NOTED[:] = noted


def test_a_served_search_is_the_search_made_in_its_own_process(vault: Path) -> None:
    invoke("index", "--vault", str(vault))
    asked = [("who trains Claude", ()), ("vector search", ("--json",)), ("company", ("--wing", "entities")),
             ("company", ("--tag", "company", "--path", "entities/open", "--json", "--k", "1"))]
    alone = [invoke("search", query, *flags, "--vault", str(vault)) for query, flags in asked]
    assert '"served": false' in invoke("status", "--json", "--no-lint", "--vault", str(vault))
    with serving(vault) as (served, _, _):
        assert (vault / ".wikic" / "search.sock").exists()
        assert json.loads(invoke("status", "--json", "--no-lint", "--vault", str(vault)))["palace"]["served"] is True
        assert "; answering searches: wikic serve" in invoke("status", "--no-lint", "--vault", str(vault))
        assert [invoke("search", query, *flags, "--vault", str(vault)) for query, flags in asked] == alone
    assert served.answered == len(asked) and served.stopped == "stopped"
    assert not (vault / ".wikic" / "search.sock").exists()
    assert json.loads(alone[1])["results"], "the comparison is of real hits"


def test_another_environment_or_model_help_is_searched_by_the_asker(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke("index", "--vault", str(vault))
    with serving(vault) as (served, _, thread):
        assert served_search(vault, "Claude", 3) is not None
        assert served_search(vault, "Claude", 3, rerank=True) is None  # the asker calls the model itself
        with monkeypatch.context() as patched:
            patched.setenv("WIKIC_LLM_MODEL", "another")
            assert served_search(vault, "Claude", 3) is None
        assert served_search(vault, "Claude", 3, wing="nowhere") is None  # refused: the asker says why
        result = runner.invoke(app, ["search", "Claude", "--wing", "nowhere", "--vault", str(vault)])
        assert result.exit_code == 2 and "unknown wing" in result.output
        assert thread.is_alive()
    assert served.answered == 1


def test_an_edited_config_stops_the_server(vault: Path) -> None:
    invoke("index", "--vault", str(vault))
    with serving(vault) as (served, _, thread):
        (vault / "wikic.toml").write_text('[embedding]\nprovider = "static"\n\n[search]\nrerank = "none"\n')
        assert served_search(vault, "Claude", 3) is None
        thread.join(30)
        assert not thread.is_alive()
    assert served.stopped == "configuration changed"
    assert not (vault / ".wikic" / "search.sock").exists()
    assert "anthropic" in invoke("search", "who trains Claude", "--vault", str(vault))


def test_an_idle_server_stops(vault: Path) -> None:
    with serving(vault, idle=0.5) as (served, _, thread):
        thread.join(30)
    assert served.stopped == "idle" and served.answered == 0
    assert not (vault / ".wikic" / "search.sock").exists()


def test_one_server_a_vault_and_a_dead_ones_socket_is_taken_over(vault: Path) -> None:
    with serving(vault), VaultContext(vault) as context, pytest.raises(UsageError, match="already answers"):
        serve(context, idle=1)
    sock = vault / ".wikic" / "search.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(sock))  # a killed server's socket: bound, nobody listening
    dead.close()
    assert served_search(vault, "Claude", 3) is None
    with serving(vault) as (served, _, _):
        assert served_search(vault, "Claude", 3) is not None
    assert served.answered == 1


def test_a_socket_of_another_user_is_never_asked(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    invoke("index", "--vault", str(vault))
    with serving(vault) as (served, _, _):
        assert served_search(vault, "Claude", 3) is not None
        owner = os.stat(vault / ".wikic" / "search.sock").st_uid
        with monkeypatch.context() as patched:  # this process as another user than the socket's owner
            patched.setattr("wikic.palace.served.os.getuid", lambda: owner + 1)
            assert served_search(vault, "Claude", 3) is None
    assert served.answered == 1


def test_what_is_no_socket_of_this_users_is_never_asked(vault: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    (elsewhere / "SCHEMA.md").write_text((vault / "SCHEMA.md").read_text())
    (elsewhere / "wikic.toml").write_text((vault / "wikic.toml").read_text())
    with serving(elsewhere) as (served, _, _):
        # a cloned vault's `.wikic/search.sock` leading to another program's socket
        (vault / ".wikic").mkdir(exist_ok=True)
        (vault / ".wikic" / "search.sock").symlink_to(elsewhere / ".wikic" / "search.sock")
        assert served_search(vault, "Claude", 3) is None
        with VaultContext(vault) as context, pytest.raises(VaultError, match="leads outside the vault"):
            serve(context, idle=1)
    assert served.answered == 0
    (vault / ".wikic" / "search.sock").unlink()
    (vault / ".wikic" / "search.sock").write_text("a file of the vault's")
    assert served_search(vault, "Claude", 3) is None
    with VaultContext(vault) as context, pytest.raises(UsageError, match="in the way"):
        serve(context, idle=1)
    assert (vault / ".wikic" / "search.sock").read_text() == "a file of the vault's"


def test_a_reply_that_is_no_search_result_is_not_shown(vault: Path) -> None:
    sock = vault / ".wikic" / "search.sock"
    sock.parent.mkdir(exist_ok=True)
    replies = [b'{"results": [{"path": 1}]}\n', b'{"results": "x"}\n', b"[" * 100_000 + b"\n", b"no json\n",
               json.dumps({"results": [{"path": "a.md", "score": True, "heading": "", "snippet": "",
                                        "line_start": 1, "line_end": 1, "wing": "", "title": ""}]}).encode() + b"\n"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as fake:
        fake.bind(str(sock))
        fake.listen(1)

        def answer() -> None:
            for reply in replies:
                conn, _ = fake.accept()
                with conn:
                    conn.recv(65536)
                    conn.sendall(reply)

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        assert [served_search(vault, "Claude", 3) for _ in replies] == [None] * len(replies)
        thread.join(10)


def test_a_vault_deeper_than_a_socket_address_is_served(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    vault = make_vault()
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "vault"
    deep.parent.mkdir(parents=True)
    vault.rename(deep)
    assert len(os.fspath(deep / ".wikic" / "search.sock")) > 108
    invoke("index", "--vault", str(deep))
    alone = invoke("search", "who trains Claude", "--vault", str(deep))
    with serving(deep) as (served, _, _):
        assert invoke("search", "who trains Claude", "--vault", str(deep)) == alone
        with socket_address(deep / ".wikic" / "search.sock") as address:
            assert len(address) < 100
    assert served.answered == 1


def test_config_fingerprint_follows_what_settings_are_made_of(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = config_fingerprint(vault)
    assert config_fingerprint(vault) == first
    monkeypatch.setenv("WIKIC_PALACE_PATH", "elsewhere")
    assert config_fingerprint(vault) != first
    monkeypatch.delenv("WIKIC_PALACE_PATH")
    monkeypatch.setenv("UNRELATED_VARIABLE", "1")
    assert config_fingerprint(vault) == first
    (vault / "wikic.toml").write_text((vault / "wikic.toml").read_text() + "\n")
    assert config_fingerprint(vault) != first


def test_wikic_serve_as_a_process_answers_and_stops_on_sigterm(vault: Path) -> None:
    invoke("index", "--vault", str(vault))
    alone = invoke("search", "who trains Claude", "--json", "--vault", str(vault))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    proc = subprocess.Popen([sys.executable, "-m", "wikic", "serve", "--vault", str(vault)], env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "answering searches of" in line, line
        asked = subprocess.run([sys.executable, "-m", "wikic", "search", "who trains Claude", "--json", "--vault",
                                str(vault)], env=env, capture_output=True, text=True, timeout=60)
        assert asked.returncode == 0 and asked.stdout == alone
        script = subprocess.run([sys.executable, "-c", "from wikic.cli import main; main()", "search",
                                 "who trains Claude", "--json", "--vault", str(vault)], env=env, capture_output=True,
                                text=True, timeout=60)  # the `wikic` script: its fast path for a plain search
        assert script.returncode == 0 and script.stdout == alone
        second = subprocess.run([sys.executable, "-m", "wikic", "serve", "--vault", str(vault)], env=env,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and "already answers" in second.stderr
        # another process writes the palace: the server's next search catches up with it
        (vault / "entities" / "mistral.md").write_text("---\ntitle: Mistral\ntype: entity\n---\n# Mistral\n\n"
                                                       "Mistral is a French company that trains open-weight models.\n")
        indexed = subprocess.run([sys.executable, "-m", "wikic", "index", "--vault", str(vault)], env=env,
                                 capture_output=True, text=True, timeout=120)
        assert indexed.returncode == 0, indexed.stderr
        again = [subprocess.run([sys.executable, "-m", "wikic", "search", "open-weight models from France", "--json",
                                 "--vault", str(vault)], env={**env, **extra}, capture_output=True, text=True,
                                timeout=60).stdout for extra in ({}, {"WIKIC_SEARCHED_ALONE": "1"})]
        assert json.loads(again[0])["results"][0]["path"] == "entities/mistral.md"
        assert again[0] == again[1]
        from_server = served_search(vault, "open-weight models from France", 10)  # the server answers: same hits
        assert from_server is not None and from_server == json.loads(again[1])["results"]
        # another process rebuilds the palace (the collection is dropped and made again): the server goes on
        rebuilt = subprocess.run([sys.executable, "-m", "wikic", "index", "--rebuild", "--vault", str(vault)], env=env,
                                 capture_output=True, text=True, timeout=120)
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert served_search(vault, "open-weight models from France", 10) == from_server
    finally:
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=30)[1]
    assert proc.returncode == 143, rest
    assert "stopped (SIGTERM)" in rest
    deadline = time.monotonic() + 5
    while (vault / ".wikic" / "search.sock").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not (vault / ".wikic" / "search.sock").exists()


def test_a_search_failing_in_the_server_is_made_by_the_asker(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    invoke("index", "--vault", str(vault))
    with serving(vault) as (served, _, thread):
        def broken(*_: object, **__: object) -> None:
            raise RuntimeError("a store that fails")

        with monkeypatch.context() as patched:
            patched.setattr("wikic.query.assist.search_with_settings", broken)
            assert served_search(vault, "Claude", 3) is None
        assert thread.is_alive()
        assert served_search(vault, "Claude", 3) is not None
    assert served.answered == 1
    assert NOTED == ["a search failed: RuntimeError: a store that fails"]


def test_your_own_config_may_have_search_start_a_server(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke("index", "--vault", str(vault))
    config = tmp_path / "config"
    (config / "wikic").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    sock = vault / ".wikic" / "search.sock"
    alone = invoke("search", "who trains Claude", "--vault", str(vault))
    assert not sock.exists()  # not asked for: no server

    (config / "wikic" / "config.toml").write_text("[search]\nserve = true\nserve_idle = 3\n")
    assert invoke("search", "who trains Claude", "--vault", str(vault)) == alone  # searched alone, then starts one
    deadline = time.monotonic() + 60
    while served_search(vault, "who trains Claude", 10) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert served_search(vault, "who trains Claude", 10) is not None
    assert invoke("search", "who trains Claude", "--vault", str(vault)) == alone
    deadline = time.monotonic() + 60  # it stops after serve_idle seconds without a search
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not sock.exists()


PLAIN = [["who trains Claude"], ["who trains Claude", "--json"], ["company", "--k", "3"], ["company", "--k=3"],
         ["-k", "2", "company"], ["company", "--wing", "entities"], ["company", "--wing=entities", "--json"],
         ["company", "--tag", "company", "--path", "entities/open"], ["company", "--k", "03"]]
NOT_PLAIN = [["company", "-k=3"], ["company", "-k3"], ["company", "--k", "0"], ["company", "--k", "1001"],
             ["company", "--k", "x"], ["company", "--k", "３"], ["company", "--k", "+3"], [""], ["   "],
             ["company", "--json", "--json"], ["company", "claude"], ["--batch", "q.jsonl"],
             ["company", "--rerank"], ["company", "--help"], ["--", "-x"], ["company", "--k"],
             ["company", "--wing", "nowhere"]]


def test_the_served_fast_path_prints_what_the_full_command_prints(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wikic.cli.search_fast import served_fast

    invoke("index", "--vault", str(vault))
    assert served_fast(["company", "--vault", str(vault)]) is None  # no server: the full command runs
    with serving(vault) as (served, _, _):
        for words in PLAIN:
            for where in (["--vault", str(vault)], ["-C", str(vault)], [f"--vault={vault}"]):
                capsys.readouterr()
                assert served_fast([*words, *where]) == 0, words
                fast = capsys.readouterr()
                assert fast.out == invoke("search", *words, *where) and fast.err == "", words
        for words in NOT_PLAIN:
            capsys.readouterr()
            assert served_fast([*words, "--vault", str(vault)]) is None, words
            assert capsys.readouterr().out == "", words
        for where in (["--vault", ""], ["--vault", str(vault / "missing")], ["--vault"]):
            assert served_fast(["company", *where]) is None, where
    assert served.answered == 3 * len(PLAIN) * 2  # the fast path's and the full command's (an unknown wing is refused)


def test_a_closed_pipe_ends_the_served_search_quietly_with_exit_1(vault: Path) -> None:
    """`wikic search ... | head`, the reader gone before the answer is written: as the full command ends."""
    invoke("index", "--vault", str(vault))
    with serving(vault) as (served, _, _):
        read, write = os.pipe()
        os.close(read)
        try:
            done = wikic_script(["search", "company", "--vault", str(vault)], stdout=write, stderr=subprocess.PIPE)
        finally:
            os.close(write)
    assert served.answered == 1  # the fast path asked the server
    assert done.returncode == 1 and done.stderr == "False\n", done.stderr
