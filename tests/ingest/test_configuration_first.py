"""`wikic ingest` with no model configured says so at once: before that error, nothing imports what only a run
with work for the model needs (the extraction, the prose step and the compiler's prose), since a newcomer's
first run, and every run of a vault whose model is misnamed, waits for those imports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import init_wiki

LATER = ("wikic.ingest.prose_step", "wikic.compile.prose", "wikic.ingest.extract.run", "wikic.review.plans")


@pytest.mark.slow  # a fresh Python process
def test_ingest_without_a_model_stops_before_importing_the_run(tmp_path: Path) -> None:
    root = init_wiki(tmp_path / "wiki", toml="# no model configured\n")
    source = tmp_path / "note.md"
    source.write_text("# Note\n\nAcme Corp makes widgets.\n", encoding="utf-8")
    probe = (
        "import sys; from typer.testing import CliRunner; from wikic.cli import app; "
        f"r = CliRunner().invoke(app, ['ingest', {str(source)!r}, '--vault', {str(root)!r}]); "
        f"print(r.exit_code, sorted(m for m in {LATER!r} if m in sys.modules))"
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL",
                        "OPENAI_API_KEY")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env,
                         cwd=tmp_path).stdout
    assert out.split()[0] == "2" and out.strip().endswith("[]"), out
    assert not (root / "raw/articles/note.md").exists()  # the configuration error left raw/ as it was
