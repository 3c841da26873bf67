"""An embedded palace runs its vector store in a child process that holds no secret."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from library import open_palace, sync

import wikic
from wikic.errors import PalaceError
from wikic.palace import search
from wikic.palace.store_process import (
    IsolatedStore,
    child_command,
    child_environment,
    open_store,
    store_process,
)
from wikic.settings import PalaceSettings


def test_the_child_environment_keeps_no_credential_but_everything_else() -> None:
    env = child_environment({
        "WIKIC_LLM_API_KEY": "sk-1", "OPENAI_API_KEY": "sk-2", "WIKIC_EMBEDDING_API_KEY": "sk-3",
        "HF_TOKEN": "t", "AWS_SECRET_ACCESS_KEY": "s", "PGPASSWORD": "p", "GOOGLE_APPLICATION_CREDENTIALS": "c",
        "SSH_AUTH_SOCK": "a", "PATH": "/usr/bin", "OMP_NUM_THREADS": "1", "PYTHONPATH": "/extra",
    })
    assert env == {"PATH": "/usr/bin", "OMP_NUM_THREADS": "1", "PYTHONPATH": "/extra"}


def test_the_child_runs_this_wikic_isolated_from_the_current_folder() -> None:
    command = child_command()
    assert command[:3] == [sys.executable, "-I", "-c"]
    package, path = command[4], json.loads(command[5])
    assert Path(package) == Path(wikic.__file__).resolve().parent
    named = {os.path.realpath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)}
    here = os.path.realpath(os.getcwd())
    assert path and all(os.path.isabs(p) and (os.path.realpath(p) != here or here in named) for p in path)


def test_an_embedded_palace_runs_its_store_in_the_child(vault: Path) -> None:
    report = sync(vault)
    assert report.drawers_embedded > 0
    pid = store_process().pid
    assert pid is not None and pid != os.getpid()
    with open_palace(vault) as palace:
        assert isinstance(palace.store, IsolatedStore)
        assert search(palace, "French model maker", k=3)


def test_a_palace_opened_before_another_wrote_sees_the_new_vectors(vault: Path) -> None:
    with open_palace(vault) as reader:
        assert search(reader, "anything", k=1) == []  # opened, nothing indexed yet
        sync(vault)
        assert search(reader, "French model maker", k=1)
        vector = reader.embedder.embed_query("French model maker")
        assert reader.store.query(vector, 3)


@pytest.mark.slow  # kills the child and starts another
def test_a_killed_child_is_replaced_and_the_call_sent_again(vault: Path) -> None:
    sync(vault)
    child = store_process()
    pid = child.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    # noticed at once or only when the pipe breaks: either way the call runs in a new child
    with open_palace(vault) as palace:
        identity = palace.identity()
        settings = palace.settings
    assert child.call("mark_written", settings, identity)
    assert child.pid not in (None, pid)
    (vault / "entities" / "mistral.md").write_text("---\ntitle: Mistral\n---\n# Mistral\n\nA French lab.\n")
    assert "entities/mistral.md" in sync(vault).added


def test_the_child_outlives_the_sigterm_its_process_group_gets(vault: Path) -> None:
    """`timeout` and a service manager send SIGTERM to the whole process group, as a terminal sends Ctrl-C:
    the child finishes its calls and leaves when its parent does, which stops in order."""
    sync(vault)
    child = store_process()
    pid = child.pid
    assert pid is not None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 1.0  # time enough for the signal to end a child that does not ignore it
    while child.pid == pid and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.pid == pid
    with open_palace(vault) as palace:
        assert search(palace, "French model maker", k=3)
    assert child.pid == pid


def test_a_vault_deleted_and_made_again_at_the_same_path_gets_a_new_palace(
    vault: Path, vault_writer: Callable[..., Path]
) -> None:
    """The store child outlives vaults (the MCP server, a test run): one removed and written again at its path
    must not be served by the client of the deleted files ("readonly database", "no such table")."""
    import shutil

    assert sync(vault).drawers_embedded > 0
    shutil.rmtree(vault)
    vault_writer(vault, {"entities/mistral.md": "---\ntitle: Mistral\ntype: entity\n---\n# Mistral\n\nA French lab.\n"})
    report = sync(vault)
    assert report.added == ["entities/mistral.md"] and report.drawers_total == report.drawers_embedded
    with open_palace(vault) as palace:
        assert [hit.path for hit in search(palace, "French lab", k=3)] == ["entities/mistral.md"]


def test_errors_in_the_child_come_back_as_palace_errors(tmp_path: Path) -> None:
    settings = PalaceSettings(path=tmp_path / "palace")
    with pytest.raises(PalaceError, match="never created"):
        store_process().call("delete", settings, ["x"])
    with pytest.raises(PalaceError, match="unknown palace store method"):
        store_process().call("_reopen", settings)
    assert store_process().call("exists", settings) is False


def test_a_server_palace_store_runs_here(tmp_path: Path) -> None:
    from wikic.palace.chroma import VectorStore

    assert type(open_store(PalaceSettings(path=tmp_path, url="http://127.0.0.1:1"))) is VectorStore
    assert type(open_store(PalaceSettings(path=tmp_path))) is IsolatedStore


HOLDER = """
import sys, time
from pathlib import Path
from wikic.palace.store_process import writing
with writing(Path(sys.argv[1])):
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""


@pytest.mark.slow  # processes holding the writing lock
def test_a_writer_waits_for_the_store_process_of_a_killed_writer(tmp_path: Path) -> None:
    import subprocess
    import time

    from wikic.palace.store_process import settle

    folder = tmp_path / "palace"
    settle(folder)  # never written: nothing to wait for
    # the child of a killed writer, still finishing its last call
    orphan = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), "1.5"], stdout=subprocess.PIPE, text=True)
    assert orphan.stdout is not None and orphan.stdout.readline() == "holding\n"
    started = time.monotonic()
    settle(folder, grace=30)
    assert time.monotonic() - started > 0.5 and orphan.wait(timeout=30) == 0
    # one that hangs is killed once the grace is over
    hung = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), "600"], stdout=subprocess.PIPE, text=True)
    assert hung.stdout is not None and hung.stdout.readline() == "holding\n"
    settle(folder, grace=1)
    assert hung.wait(timeout=30) == -signal.SIGKILL


def test_a_server_palace_that_cannot_be_reached_is_named_without_its_credentials(tmp_path: Path) -> None:
    from wikic.palace.chroma import VectorStore

    store = VectorStore(PalaceSettings(path=tmp_path, url="http://wiki:s3cret-pass@127.0.0.1:1"))
    with pytest.raises(PalaceError) as caught:
        store.exists()
    assert "127.0.0.1" in caught.value.message and "s3cret-pass" not in caught.value.message
