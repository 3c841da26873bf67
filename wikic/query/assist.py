"""Optional model help for search: query rewriting and listwise reranking (off unless asked for).

`[search] rewrite = true` (or `wikic search --rewrite`) asks the configured `[llm]` model for one search
query that says the question in other words; both are searched and their rankings merged by reciprocal rank
(the question's own ranking first on ties). `[search] rerank = "llm"` (or `--rerank`) shows the model the
best `rerank_candidates` fused hits (title, path, heading, snippet) and asks for their order as JSON,
`{"ranking": [3, 1, 7, ...]}`. Code checks the reply: every number must be a candidate's, none twice; the
candidates the model leaves out follow in their fused order. A reply that breaks a rule, a model error or a
timeout, and a request that would not fit `token_budget` (prompt and reply tokens of one search) all keep the
fused order: the search still answers, and the report says why the model's help was not used. Replies are
cached by request in the vault's reply cache, so the same search costs one call.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from wikic.errors import ConfigError, LLMError
from wikic.llm.cache import ReplyCache
from wikic.llm.client import LLM
from wikic.llm.structured import Usage, ask
from wikic.palace.hybrid import Retrieval, SearchHit, search
from wikic.palace.palace import Palace
from wikic.settings import SearchSettings, Settings
from wikic.text.tokens import estimate_messages

# Part of every prompt: bump when a prompt changes meaning, so cached replies are not replayed for it.
PROMPT_VERSION = "1"
# Reciprocal-rank constant for merging the question's and the rewrite's rankings (Cormack et al., 2009).
MERGE_K = 60
SNIPPET_CHARS = 240
REWRITE_TOKENS = 200


class RerankReply(BaseModel):
    ranking: list[int] = Field(max_length=100)


class RewriteReply(BaseModel):
    query: str = Field(max_length=500)


@dataclass
class AssistReport:
    """What the model did for one search. `fallback` says why the fused order was kept (None: it was not)."""

    rewrite: str | None = None
    reranked: bool = False
    fallback: list[str] = field(default_factory=list)
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def spent(self, usage: Usage) -> None:
        self.calls, self.cached_calls = usage.calls, usage.cached_calls
        self.prompt_tokens, self.completion_tokens = usage.prompt_tokens, usage.completion_tokens


@dataclass
class AssistedHits:
    hits: list[SearchHit]
    report: AssistReport


@dataclass(frozen=True)
class Assist:
    """Which help to ask for, and within what budget (the `[search]` settings, or flags over them)."""

    rerank: bool = False
    rewrite: bool = False
    candidates: int = 30
    token_budget: int = 8000

    @classmethod
    def of(cls, settings: SearchSettings, *, rerank: bool | None = None, rewrite: bool | None = None) -> Assist:
        return cls(
            rerank=settings.rerank == "llm" if rerank is None else rerank,
            rewrite=settings.rewrite if rewrite is None else rewrite,
            candidates=settings.rerank_candidates,
            token_budget=settings.token_budget,
        )

    @property
    def active(self) -> bool:
        return self.rerank or self.rewrite


def rerank_order(reply: RerankReply, n: int) -> list[int]:
    """Candidate positions (0-based) in the model's order, the ones it left out after them in fused order.
    Raises ValueError when the reply names a number that is no candidate's or one twice."""
    seen: list[int] = []
    for number in reply.ranking:
        if not 1 <= number <= n:
            raise ValueError(f"the reply names {number}, which is not a candidate (1-{n})")
        if number - 1 in seen:
            raise ValueError(f"the reply names {number} twice")
        seen.append(number - 1)
    return seen + [i for i in range(n) if i not in seen]


def merge_rankings(first: list[SearchHit], second: list[SearchHit]) -> list[SearchHit]:
    """Reciprocal rank fusion of two rankings of files; `first` wins ties."""
    score: dict[str, float] = {}
    hit_of: dict[str, SearchHit] = {}
    for hits in (first, second):
        for rank, hit in enumerate(hits, 1):
            score[hit.path] = score.get(hit.path, 0.0) + 1 / (MERGE_K + rank)
            hit_of.setdefault(hit.path, hit)
    order: dict[str, int] = {}
    for i, hit in enumerate([*first, *second]):
        order.setdefault(hit.path, i)
    return sorted(hit_of.values(), key=lambda h: (-score[h.path], order[h.path]))


def _rewrite_messages(query: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": (
            f"[wikic search rewrite v{PROMPT_VERSION}] You turn a question into one search query for a personal "
            "wiki searched by meaning and by words. Keep names, dates and numbers; add the words a page answering "
            "it would use; keep the question's language. Reply with JSON only: {\"query\": \"...\"}."
        )},
        {"role": "user", "content": query},
    ]


def _rerank_messages(query: str, hits: list[SearchHit], snippet_chars: int) -> list[dict[str, str]]:
    lines = []
    for number, hit in enumerate(hits, 1):
        snippet = hit.snippet if len(hit.snippet) <= snippet_chars else hit.snippet[: snippet_chars - 1] + "…"
        heading = f" > {hit.heading}" if hit.heading else ""
        lines.append(f"[{number}] {hit.title or hit.path} ({hit.path}{heading}): {snippet}")
    return [
        {"role": "system", "content": (
            f"[wikic search rerank v{PROMPT_VERSION}] You order search results by how well they answer a "
            "question. Reply with JSON only: {\"ranking\": [numbers of the results, best first]}. Use only the "
            "numbers shown, each at most once; you may leave out results that do not help."
        )},
        {"role": "user", "content": f"Question: {query}\n\nResults:\n" + "\n".join(lines)},
    ]


def _rerank_tokens(n: int) -> int:
    return 32 + 5 * n


def _fit(query: str, hits: list[SearchHit], budget: int) -> tuple[list[dict[str, str]], int] | None:
    """The rerank prompt for as many of `hits` as `budget` allows (shorter snippets first, then fewer
    candidates), with how many it shows; None when not even two fit."""
    for n in range(len(hits), 1, -1):
        for chars in (SNIPPET_CHARS, SNIPPET_CHARS // 2):
            messages = _rerank_messages(query, hits[:n], chars)
            if estimate_messages(messages) + _rerank_tokens(n) <= budget:
                return messages, n
    return None


def assisted_search(
    palace: Palace,
    query: str,
    k: int,
    assist: Assist,
    *,
    llm: LLM | None,
    cache: ReplyCache | None = None,
    wing: str | None = None,
    tag: str | None = None,
    path: str | None = None,
    retrieval: Retrieval | None = None,
) -> AssistedHits:
    """`search`, with the model's rewrite and rerank when `assist` asks for them. Model failures never raise:
    the fused order is kept and `report.fallback` says why."""
    report = AssistReport()
    pool = max(k, assist.candidates) if assist.rerank else k
    hits = search(palace, query, pool, wing=wing, tag=tag, path=path, retrieval=retrieval)
    if not assist.active or not hits:
        return AssistedHits(hits[:k], report)
    if llm is None:
        raise ConfigError("search help needs a model", hint="set [llm] model (and base_url) or drop --rerank/--rewrite")
    usage = Usage()
    budget = assist.token_budget
    if assist.rewrite:
        messages = _rewrite_messages(query)
        if estimate_messages(messages) + REWRITE_TOKENS > budget:
            report.fallback.append("rewrite: over the token budget")
        else:
            try:
                reply = ask(llm, messages, RewriteReply, schema_name="search_rewrite", max_tokens=REWRITE_TOKENS,
                            cache=cache, usage=usage)
            except LLMError as exc:
                report.fallback.append(f"rewrite: {exc.message}")
            else:
                rewritten = " ".join(reply.value.query.split())
                if rewritten and rewritten != query:
                    report.rewrite = rewritten
                    other = search(palace, rewritten, pool, wing=wing, tag=tag, path=path, retrieval=retrieval)
                    hits = merge_rankings(hits, other)[:pool]
        budget -= usage.total_tokens
    if assist.rerank:
        head = hits[: assist.candidates]
        fitted = _fit(query, head, budget)
        if fitted is None:
            report.fallback.append("rerank: over the token budget")
        else:
            messages, n = fitted
            try:
                reply_rr = ask(llm, messages, RerankReply, schema_name="search_rerank", max_tokens=_rerank_tokens(n),
                               cache=cache, usage=usage)
                order = rerank_order(reply_rr.value, n)
            except LLMError as exc:
                report.fallback.append(f"rerank: {exc.message}")
            except ValueError as exc:
                report.fallback.append(f"rerank: {exc}")
            else:
                hits = [head[i] for i in order] + head[n:] + hits[len(head):]
                report.reranked = True
    report.spent(usage)
    return AssistedHits(hits[:k], report)


def search_with_settings(
    palace: Palace,
    query: str,
    k: int,
    settings: Settings,
    *,
    rerank: bool | None = None,
    rewrite: bool | None = None,
    llm: LLM | None = None,
    wing: str | None = None,
    tag: str | None = None,
    path: str | None = None,
) -> AssistedHits:
    """What `wikic search` runs: the `[search]` settings with the flags over them; the model (the vault's
    `[llm]` endpoint unless `llm` is given) is only opened when help is asked for."""
    assist = Assist.of(settings.search, rerank=rerank, rewrite=rewrite)
    cache = None
    if assist.active:

        if llm is None:
            from wikic.llm.client import vault_llm

            if not settings.llm.model:
                raise ConfigError(
                    "--rerank and --rewrite need a model",
                    hint="set [llm] model in wikic.toml or WIKIC_LLM_MODEL",
                )
            llm = vault_llm(palace.vault, settings.llm)
        cache = ReplyCache.for_vault(palace.vault)
    return assisted_search(palace, query, k, assist, llm=llm, cache=cache, wing=wing, tag=tag, path=path)
