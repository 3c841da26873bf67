"""The MCP tests drive `python -m wikic mcp` with the SDK's own client; the vault is the query tests' wiki
(built once per session through the real ingest path), answered by a stand-in model over HTTP."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from querykit import QueryWiki, build_template
from standin_openai import StandinServer


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

