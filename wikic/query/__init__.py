"""Questions answered from the wiki: retrieval from the palace, a cited answer, write-back as a query page.

    from wikic.query import QueryOptions, answer_question, save_answer, refresh_query

    result = answer_question(vault, "Who leads OpenAI?", QueryOptions(), on_text=print)
    saved = save_answer(vault, result)               # queries/who-leads-openai.md, index.md, log.md, palace
    refreshed = refresh_query(vault, "queries/who-leads-openai.md", QueryOptions())

Modules: `retrieve.py` (context within a token budget; pages first, raw passages where pages fall short),
`answer.py` (prompt, streaming, the citation check), `citations.py` (the check itself, also on a stream),
`writeback.py` (query pages, "Asked about" blocks, index/log/palace), `fingerprint.py` (what lint compares).
Names are imported lazily: lint imports `wikic.query.fingerprint` and must not pay for the rest.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "QueryOptions": "wikic.query.answer",
    "QueryResult": "wikic.query.answer",
    "answer_question": "wikic.query.answer",
    "generate_answer": "wikic.query.answer",
    "Retrieval": "wikic.query.retrieve",
    "ContextItem": "wikic.query.retrieve",
    "retrieve": "wikic.query.retrieve",
    "SavedQuery": "wikic.query.writeback",
    "save_answer": "wikic.query.writeback",
    "refresh_query": "wikic.query.writeback",
    "page_fingerprint": "wikic.query.fingerprint",
}

__all__ = [
    "ContextItem",
    "QueryOptions",
    "QueryResult",
    "Retrieval",
    "SavedQuery",
    "answer_question",
    "generate_answer",
    "page_fingerprint",
    "refresh_query",
    "retrieve",
    "save_answer",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'wikic.query' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
