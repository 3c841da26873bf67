"""Questions answered from the wiki: retrieval from the palace, a cited answer, write-back as a query page.

    from wikic.query import QueryOptions, answer_question, save_answer, refresh_query

    result = answer_question(vault, "Who leads OpenAI?", QueryOptions(), on_text=print)
    saved = save_answer(vault, result)               # queries/who-leads-openai.md, index.md, log.md, palace
    refreshed = refresh_query(vault, "queries/who-leads-openai.md", QueryOptions())

Modules: `retrieve.py` (context within a token budget; pages first, raw passages where pages fall short),
`answer.py` (prompt, streaming, the citation check), `citations.py` (the check itself, also on a stream),
`attribution.py` (which context item an answer's sentence copies, so that it cites that item), `quotes.py`
(the context's own sentences, quoted when the model declines), `writeback.py` (plans a query page, its
"Asked about" blocks, its index.md entry and log row, and hands them to `wikic.pages`). What a query page
records about the pages it cites is `wikic/pages/fingerprint.py`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wikic.query.answer import QueryOptions, QueryResult, answer_question, generate_answer
from wikic.query.retrieve import ContextItem, Retrieval, retrieve

if TYPE_CHECKING:
    from wikic.query.writeback import SavedQuery, refresh_query, save_answer

__all__ = [
    "ContextItem",
    "QueryOptions",
    "QueryResult",
    "Retrieval",
    "SavedQuery",
    "answer_question",
    "generate_answer",
    "refresh_query",
    "retrieve",
    "save_answer",
]

_WRITEBACK = ("SavedQuery", "refresh_query", "save_answer")


def __getattr__(name: str) -> Any:
    """The write-back names are imported when first asked for: answering alone does not need them."""
    if name in _WRITEBACK:
        from wikic.query import writeback

        return getattr(writeback, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
