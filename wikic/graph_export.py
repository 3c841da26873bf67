"""`wikic graph`: the link graph's health, and exports to GraphML and node-link JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from wikic.errors import UsageError
from wikic.vault.graph import build, health
from wikic.vault.layout import is_vault
from wikic.vault.load import load_vault
from wikic.vault.schema_md import Schema


def _portable(graph: nx.MultiDiGraph[str]) -> nx.MultiDiGraph[str]:
    """GraphML accepts only scalar attributes; drop None values."""
    out: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for node, attrs in graph.nodes(data=True):
        out.add_node(node, **{k: v for k, v in attrs.items() if v is not None})
    for u, v, key, attrs in graph.edges(keys=True, data=True):
        out.add_edge(u, v, key=key, **{k: v2 for k, v2 in attrs.items() if v2 is not None})
    return out


def graph_report(
    root: Path, schema: Schema, *, graphml: Path | None = None, json_file: Path | None = None, top: int = 10
) -> dict[str, Any]:
    for target in (graphml, json_file):  # before the vault is read: a long read must not end in this error
        if target is not None and not Path(target).expanduser().absolute().parent.is_dir():
            raise UsageError(
                f"cannot write {target}: its folder does not exist", hint="give a path in a folder that exists"
            )
    vault = load_vault(root, use_cache=is_vault(root), schema=schema)  # a plain folder is read, never written to
    lg = build(vault)
    report = health(lg, vault, top=top)
    written = []
    if graphml is not None:
        try:
            nx.write_graphml(_portable(lg.graph), graphml)
        except OSError as exc:
            raise UsageError(f"cannot write {graphml}: {exc.strerror}", hint="give a file path you may write") from exc
        written.append(str(graphml))
    if json_file is not None:
        data = nx.node_link_data(lg.graph, edges="links")
        try:
            Path(json_file).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        except OSError as exc:
            raise UsageError(
                f"cannot write {json_file}: {exc.strerror}", hint="give a file path you may write"
            ) from exc
        written.append(str(json_file))
    report["written"] = written
    return report
