"""The MCP tests drive `python -m wikic mcp` with the SDK's own client; the vault is the query tests' wiki
(built once per session through the real ingest path), answered by a stand-in model over HTTP."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS / "query", TESTS):  # querykit, standin_openai
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from querykit import QueryWiki, build_template  # noqa: E402 - after the sys.path entries above
from standin_openai import StandinServer  # noqa: E402 - after the sys.path entries above


@pytest.fixture(scope="module")
def mcp_wiki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueryWiki]:
    base = tmp_path_factory.mktemp("mcp")
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith(("WIKIC_", "OPENAI_")):
                mp.delenv(name)
        mp.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
        mp.setenv("OMP_NUM_THREADS", "1")
        root = build_template(base / "wiki", base / "inbox")
    with StandinServer() as server:
        yield QueryWiki(root, server)

