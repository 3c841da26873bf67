"""Several processes, one palace: a long-running reader sees another process's writes; a chroma server
shared by two checkouts of a vault keeps both in step."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from library import open_palace, sync

from wikic.palace import search

pytestmark = pytest.mark.slow  # other wikic processes, and a chroma server

WRITER = """
import sys
from pathlib import Path
from wikic.context import VaultContext
from wikic.palace import sync
root = Path(sys.argv[1])
report = sync(root, VaultContext(root).settings)
print(report.drawers_embedded)
"""


def _run_writer(vault: Path) -> int:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", WRITER, str(vault)], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def test_long_running_reader_sees_writes_from_another_process(vault: Path) -> None:
    sync(vault)
    with open_palace(vault) as palace:
        assert all(h.path != "entities/mistral.md" for h in search(palace, "French model maker", k=10))
        (vault / "entities/mistral.md").write_text(
            "---\ntitle: Mistral\n---\n# Mistral\n\nMistral AI is a French model maker from Paris.\n")
        assert _run_writer(vault) >= 1
        # same Palace object, same chroma client as before the write: vectors and BM25 must both be fresh
        vector = palace.embedder.embed(["Mistral\nMistral AI is a French model maker from Paris."])[0]
        assert search(palace, "French model maker Paris", k=1)[0].path == "entities/mistral.md"
        top_id, sim = palace.store.query(vector, 1)[0]
        assert sim > 0.99 and palace.manifest.drawers_by_id([top_id])[top_id].path == "entities/mistral.md"


def test_chroma_server_palace_shared_by_two_checkouts(vault: Path, tmp_path: Path, chroma_server: str) -> None:
    toml = f'[embedding]\nprovider = "static"\n[palace]\nurl = "{chroma_server}"\ncollection = "shared_wiki"\n'
    (vault / "wikic.toml").write_text(toml)
    first = sync(vault)
    assert first.drawers_embedded == first.drawers_total > 0
    assert not (vault / ".wikic/palace/chroma.sqlite3").exists()  # vectors live on the server

    # a second machine: same files, same server, its own empty local cache
    other = tmp_path / "other"
    shutil.copytree(vault, other, ignore=shutil.ignore_patterns(".wikic"))
    with open_palace(other) as palace:
        hits = search(palace, "who trains the Claude models", k=1)
        assert hits[0].path == "entities/anthropic.md" and hits[0].heading
    again = sync(other)
    assert again.drawers_embedded == 0 and again.unchanged == 6

    # a change made through one checkout is seen by a long-running reader of the other
    with open_palace(other) as reader:
        search(reader, "warm up", k=1)
        (vault / "entities/anthropic.md").unlink()
        assert sync(vault).removed == ["entities/anthropic.md"]
        assert all(h.path != "entities/anthropic.md" for h in search(reader, "Claude models", k=10))


REBUILDER = WRITER.replace("sync(root, VaultContext(root).settings)",
                           "sync(root, VaultContext(root).settings, rebuild=True)")


def test_a_long_running_writer_writes_after_another_process_rebuilt_the_palace(vault: Path) -> None:
    sync(vault)
    with open_palace(vault) as palace:
        search(palace, "warm up", k=1)  # the store has opened the collection
        env = {**os.environ, "OMP_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1"}
        subprocess.run([sys.executable, "-c", REBUILDER, str(vault)], capture_output=True, text=True, env=env,
                       timeout=120, check=True)  # the collection it opened is gone, another made in its place
        (vault / "entities/mistral.md").write_text(
            "---\ntitle: Mistral\n---\n# Mistral\n\nMistral AI is a French model maker from Paris.\n")
        report = palace.update_paths(["entities/mistral.md"])
        assert report.drawers_embedded >= 1
        assert search(palace, "French model maker Paris", k=1)[0].path == "entities/mistral.md"


def test_status_of_a_palace_on_a_chroma_server_without_the_store(
    vault: Path, chroma_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from typer.testing import CliRunner

    from wikic.cli import app
    from wikic.palace.store_process import store_process

    toml = f'[embedding]\nprovider = "static"\n[palace]\nurl = "{chroma_server}"\ncollection = "status_wiki"\n'
    (vault / "wikic.toml").write_text(toml)
    sync(vault)
    with open_palace(vault) as palace:
        through_the_store = palace.status()
    store_process().close()

    def status() -> dict[str, object]:
        result = CliRunner().invoke(app, ["status", "--json", "--no-lint", "--vault", str(vault)])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["palace"]

    # the collection's metadata over HTTP and this machine's manifest: no store process, no chromadb
    with monkeypatch.context() as patched:
        patched.setitem(sys.modules, "chromadb", None)
        quick = status()
    assert quick == {**through_the_store, "served": False} and quick["model"] == "static:tokenlearn-static-64"
    assert store_process().pid is None

    # another machine wrote the collection since: this manifest is behind, and the store is asked
    manifest = vault / ".wikic" / "palace" / "lexical-status_wiki.sqlite3"
    with sqlite3.connect(manifest) as db:
        db.execute("UPDATE meta SET value='behind' WHERE key='generation'")
    with monkeypatch.context() as patched:
        patched.setitem(sys.modules, "chromadb", None)
        result = CliRunner().invoke(app, ["status", "--json", "--no-lint", "--vault", str(vault)])
    assert "chromadb" in result.output  # the store was needed (and is blocked here)
    assert status()["files"] == through_the_store["files"]
