"""The built wheel carries every file of the repository's templates/ and schema/, readable through
wikic.resources from an installed copy, and `wikic init` from it makes the same vault as from the checkout.
It also carries the py.typed marker, so type checkers read wikic's type hints."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from wikic.hubs.setup import init_with_hubs

REPO = Path(__file__).resolve().parents[1]

# Runs inside the fresh environment, isolated from the checkout (-I: no PYTHONPATH, no current folder).
READ_SHIPPED = r"""
import hashlib, json
import wikic, wikic.resources as r
print(json.dumps({
    "wikic": wikic.__file__,
    "version": wikic.__version__,
    "folders": {name: str(r.folder(name)) for name in (r.TEMPLATES, r.SCHEMA)},
    "files": {name: {f: hashlib.sha256(r.folder(name).joinpath(*f.split("/")).read_bytes()).hexdigest()
                     for f in r.file_names(name)} for name in (r.TEMPLATES, r.SCHEMA)},
}))
"""


def repository_files(folder: str) -> dict[str, str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(REPO / folder):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            path = Path(dirpath) / name
            out[path.relative_to(REPO / folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def tree(root: Path) -> dict[str, bytes | None]:
    """Every folder (None) and file (its bytes) under `root`; a cache by its name alone (it records mtimes)."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for name in dirnames:
            out[(here / name).relative_to(root).as_posix() + "/"] = None
        for name in filenames:
            rel = (here / name).relative_to(root).as_posix()
            out[rel] = None if rel.startswith(".wikic/cache/") else (here / name).read_bytes()
    return out


@pytest.mark.slow
def test_wheel_ships_templates_and_schema_and_init_makes_the_same_vault(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    build = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)],
        cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = dist.glob("wikic-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "wikic/py.typed" in archive.namelist()  # without it a type checker ignores wikic's hints (PEP 561)

    env_dir = tmp_path / "fresh venv"
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)  # ensurepip is slow; this pip installs into it
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            "--quiet",
            str(wheel),
        ],
        cwd=tmp_path,
        env=clean_env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr

    read = subprocess.run(
        [str(python), "-I", "-c", READ_SHIPPED],
        cwd=tmp_path,
        env=clean_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert read.returncode == 0, read.stderr
    data = json.loads(read.stdout)
    assert Path(data["wikic"]).resolve().is_relative_to(env_dir.resolve())  # the installed copy, not the source tree
    assert data["version"] == "0.1.0"
    for name in ("templates", "schema"):
        assert Path(data["folders"][name]).resolve().is_relative_to(env_dir.resolve()), name  # inside the wheel
        assert data["files"][name] == repository_files(name), name
    assert "vault/.obsidian/app.json" in data["files"]["templates"]  # dot-folders are easy to lose in a wheel
    assert "frontmatter/entity.schema.json" in data["files"]["schema"]

    # `wikic init` from the wheel: its dependencies come from the environment running this test (a path
    # in a .pth file; the .pth files *there*, such as an editable wikic's, are not read), wikic from the wheel.
    (site,) = (env_dir / "lib").glob("python*/site-packages")
    (site / "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = tmp_path / "from the wheel"
    init = subprocess.run(
        [str(env_dir / "bin" / "wikic"), "init", str(installed)],
        cwd=tmp_path,
        env=clean_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert init.returncode == 0, init.stdout + init.stderr
    checkout = tmp_path / "from the checkout"
    init_with_hubs(checkout)  # what `wikic init` runs: the skeleton, then the overview
    assert tree(installed) == tree(checkout)
    assert b"# Wiki Schema" in (installed / "SCHEMA.md").read_bytes()
