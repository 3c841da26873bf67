"""The built wheel carries every template `wikic init` writes, readable through importlib.resources from an
installed copy (no dependencies installed, no source tree on the path)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "wikic" / "templates"

# Runs inside the fresh environment: the stdlib only.
READ_TEMPLATES = r"""
import hashlib, json, sys
from importlib import resources
import wikic

def walk(node, prefix=""):
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        name = prefix + child.name
        if child.is_dir():
            if child.name != "__pycache__":
                yield from walk(child, name + "/")
        elif not child.name.endswith(".pyc"):
            yield name, hashlib.sha256(child.read_bytes()).hexdigest(), child.read_text(encoding="utf-8")

root = resources.files("wikic.templates")
files = {name: digest for name, digest, _text in walk(root)}
# what `wikic init` reads: wikic.vault.init.template_text("SCHEMA.md") etc.
schema = root.joinpath("vault", "SCHEMA.md").read_text(encoding="utf-8")
print(json.dumps({"wikic": wikic.__file__, "version": wikic.__version__, "files": files, "schema_head": schema.splitlines()[0]}))
"""


def source_templates() -> dict[str, str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(TEMPLATES):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.endswith(".pyc"):
                continue
            path = Path(dirpath) / name
            out[path.relative_to(TEMPLATES).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.mark.slow
def test_wheel_ships_every_template(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    build = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)],
        cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = dist.glob("wikic-*.whl")

    env_dir = tmp_path / "fresh venv"
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)  # ensurepip is slow; this pip installs into it
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--disable-pip-version-check", "--quiet", str(wheel)],
        cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr

    read = subprocess.run([str(python), "-I", "-c", READ_TEMPLATES], cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=120, check=False)
    assert read.returncode == 0, read.stderr
    data = json.loads(read.stdout)
    assert Path(data["wikic"]).resolve().is_relative_to(env_dir.resolve())  # the installed copy, not the source tree
    assert data["version"] == "0.1.0"
    expected = source_templates()
    assert ".obsidian/app.json" in "\n".join(expected)  # dot-folders are easy to lose in a wheel
    assert data["files"] == expected
    assert data["schema_head"] == "# Wiki Schema"
