"""A folder holding code under the names wikic imports (`wikic/`, `chromadb.py`, `numpy.py`) never has it
run: not by `wikic index` or `wikic search` started there, whether the vault is elsewhere or that folder.

wikic's one child process, the palace's store, is started with `python -I` and the parent's import path
without the current folder; the parent runs as the `wikic` script does (its own folder first on the path, not
the current one: `python -P -m wikic` here).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gkit
import pytest

from wikic.palace.store_process import child_import_path

BAIT = ("wikic/__init__.py", "wikic/palace/__init__.py", "chromadb.py", "numpy.py", "sitecustomize.py")


def _hostile_folder(folder: Path, marker: Path) -> Path:
    for name in BAIT:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\nraise ImportError('hostile {name}')\n",
            encoding="utf-8",
        )
    return folder


def _wikic(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "wikic", *args], capture_output=True, text=True,
                          timeout=240, check=False, env=gkit.env(), cwd=cwd)


@pytest.mark.parametrize("vault_there", [False, True], ids=["vault-elsewhere", "vault-is-the-folder"])
def test_index_and_search_never_import_from_the_current_folder(tmp_path: Path, vault_there: bool) -> None:
    marker = tmp_path / "imported.txt"
    folder = tmp_path / "folder"
    folder.mkdir()
    vault = gkit.make_vault(folder if vault_there else tmp_path / "vault", "http://127.0.0.1:9")
    (vault / "entities" / "acme.md").write_text("---\ntitle: Acme\n---\n# Acme\n\nAcme builds widgets.\n")
    _hostile_folder(folder, marker)

    index = _wikic(folder, "index", "--json", "--vault", str(vault))
    assert index.returncode == 0, index.stderr
    search = _wikic(folder, "search", "widgets", "--json", "--vault", str(vault))
    assert search.returncode == 0, search.stderr
    assert '"entities/acme.md"' in search.stdout
    assert not marker.exists(), marker.read_text()


def test_the_child_import_path_leaves_out_what_depends_on_the_current_folder(tmp_path: Path) -> None:
    here, lib, user = str(tmp_path / "here"), str(tmp_path / "lib"), str(tmp_path / "user")
    for d in (here, lib, user):
        os.makedirs(d)
    parent = ["", here, "relative/dir", ".", lib, user, lib]
    assert child_import_path(parent, cwd=here, environ={}) == [lib, user]
    # an empty PYTHONPATH entry means the current folder too; only one that names it keeps it
    assert child_import_path(parent, cwd=here, environ={"PYTHONPATH": f":{user}"}) == [lib, user]
    assert child_import_path(parent, cwd=here, environ={"PYTHONPATH": here}) == [here, lib, user]
    # the same folder through a symbolic link is the same folder
    link = tmp_path / "link"
    link.symlink_to(here)
    assert child_import_path([str(link), lib], cwd=here, environ={}) == [lib]
