"""Source text -> the model's plan for it: windows, the strategy that asks, merge, anchor.

Nothing is truncated silently: a long source is split into overlapping windows, each is asked about, and
the window plans are merged. A window whose reply hits the output cap is split in two and asked again
rather than dropped. Any window that still fails fails the whole source (LLMError) and the caller writes
nothing for it.

Strategies (`[llm] strategy`):
- `single`: one call per window for the whole plan. Best with capable models.
- `two-pass`: the names in the window first (short and cheap), then the claims about a few names at a
  time. Small local models answer this far better than one large schema (they fill a big schema with
  empty lists, which a grammar makes the easiest reply).
- `auto` (default): the strategy this endpoint and model worked best with before (remembered like its
  response format), `single` at first; a window whose plan comes back empty or thin while the text names
  things is asked the other way too, both plans are merged, and when the other way gave more it becomes
  the endpoint's strategy from then on.
An explicit strategy still asks the other way once for a plan that is empty although the window names
things: a source with names in it is never compiled into nothing in silence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, wait
from dataclasses import dataclass
from typing import Any, Protocol

from wikic.compile.plan import Plan
from wikic.errors import LLMError
from wikic.ingest.anchor import AnchorIndex, anchor_plan
from wikic.ingest.extract.limits import quote_support
from wikic.ingest.extract.merge import merge_plans
from wikic.ingest.extract.prompt import (
    INTERVAL_FIELDS,
    PAIRING_FIELD,
    PromptContext,
    asked_schema,
    build_messages,
    claims_messages,
    fact_fields,
    memories_messages,
    names_messages,
)
from wikic.ingest.extract.signals import name_signals
from wikic.ingest.extract.windows import Chunk, halves, split_chunks
from wikic.ingest.plan_model import (
    CLAIMS_SCHEMA_NAME,
    MEMORIES_SCHEMA_NAME,
    NAMES_PER_ASK,
    NAMES_SCHEMA_NAME,
    SCHEMA_NAME,
    TRANSCRIPT_SCHEMA_NAME,
    ChunkPlan,
    ClaimsPlan,
    MemoriesPlan,
    NamesPlan,
    TranscriptPlan,
    WireEntity,
)
from wikic.ingest.workers import DaemonPool
from wikic.llm.cache import ReplyCache
from wikic.llm.client import LLM
from wikic.llm.replies import TruncatedReply
from wikic.llm.structured import Usage, ask
from wikic.settings import Settings
from wikic.text.data_urls import without_data_urls
from wikic.text.tokens import estimate_messages
from wikic.vault.formats.transcript import is_transcript as transcript_text
from wikic.vault.names import normalize_name

MAX_SPLIT_DEPTH = 3
THIN = 3  # a plan is thin when it names fewer than one in THIN of the things the window looks like it names
EXPECTED_NAMES_PER_WINDOW = 8  # what an estimate of the two-pass strategy assumes before the names are asked


class SourceText(Protocol):
    """What extraction needs from a source (a CapturedSource has it)."""

    @property
    def text(self) -> str: ...
    @property
    def text_path(self) -> str: ...
    @property
    def title(self) -> str: ...


@dataclass(frozen=True)
class ExtractionResult:
    plan: Plan  # merged and anchored
    usage: Usage
    chunks: int  # window replies merged (more than the windows if a truncated one was split)
    strategy: str = "single"  # how it was asked: single, two-pass, or both ("single+two-pass")
    signals: tuple[str, ...] = ()  # what the source looks like it names
    left_out: tuple[str, ...] = ()  # items of replies over their schema's limits not kept (`limits.py`)

    @property
    def nothing_extracted(self) -> bool:
        """The source names things, and the model's plan proposes none of them: the model failed on it (names code
        found in the source, which the model passed over, do not make up for it)."""
        plan = self.plan
        proposed = [e for e in plan.entities if not e.found]
        return bool(self.signals) and not (proposed or plan.concepts or plan.comparisons or plan.memories)


def is_transcript(source: SourceText) -> bool:
    """A conversation: a source in raw/transcripts/, or one whose text has timed turn headers (the
    transcript format of `wikic.vault.formats.transcript`). Only these are asked for memories."""
    return transcript_text(source.text_path, source.text)


@dataclass(frozen=True)
class Estimate:
    chunks: int
    prompt_tokens: int
    max_completion_tokens: int  # upper bound: every reply uses the whole output cap
    cached_chunks: int  # windows whose reply is already cached: free
    max_cost: float | None  # with the configured prices; None when no price is set
    counted: bool = False  # the prompts were counted by the endpoint's tokenizer; else estimated, MARGIN added


# What an estimated prompt is raised by: a small model's tokenizer splits Markdown, links and code finer than the
# estimate assumes (Qwen2.5's counted 4,166 tokens of a prompt estimated at 3,161), and a prompt counted short
# may not fit the model's context beside max_output_tokens.
MARGIN = 1.35


def prompt_tokens_of(llm: LLM | None, messages: Sequence[Mapping[str, str]]) -> tuple[int, bool]:
    """(the prompt tokens of `messages`, whether the endpoint's tokenizer counted them): its count when its server
    has a tokenizer to ask (`count_tokens`), else the offline estimate with MARGIN added."""
    count = getattr(llm, "count_tokens", None)
    counted = count(messages) if callable(count) else None
    if isinstance(counted, int):
        return counted, True
    return math.ceil(estimate_messages(messages) * MARGIN), False


def source_chunks(source: SourceText, settings: Settings) -> list[Chunk]:
    """The windows `extract_plan` asks the model about."""
    return split_chunks(
        source.text, max_tokens=settings.ingest.chunk_tokens, overlap_tokens=settings.ingest.chunk_overlap_tokens
    )


def preferred_strategy(llm: LLM, settings: Settings) -> str:
    """The strategy to start with: the configured one, or for `auto` what this endpoint worked best with."""
    configured = settings.llm.strategy
    if configured != "auto":
        return configured
    remembered = getattr(llm, "preferred_strategy", None)
    choice = remembered() if callable(remembered) else None
    return choice if choice in ("single", "two-pass") else "single"


def extract_plan(
    llm: LLM,
    source: SourceText,
    *,
    context: PromptContext,
    existing_pages: Sequence[str] = (),
    existing_claims: Sequence[str] = (),
    settings: Settings | None = None,
    cache: ReplyCache | None = None,
    chunks: Sequence[Chunk] | None = None,
    on_chunk: Callable[[], None] | None = None,
    on_tokens: Callable[[int], None] | None = None,
    known_names: Sequence[str] = (),
) -> ExtractionResult:
    """Ask the model for a plan of `source`, merged over windows and anchored into `source.text_path`.

    `chunks`: the source's `source_chunks`, when the caller has them already. `on_chunk` is called (from a
    worker thread) each time one of them is answered, `on_tokens(n)` as reply tokens arrive. `known_names`:
    names waiting in the wiki's ledger that the source writes; they and `existing_pages` are found in the
    source by code when the model passes them over (`anchor.missed_names`). Raises LLMError (nothing to
    write for this source) if any window fails after the one re-ask.
    """
    settings = settings or Settings()
    if not source.text.strip():
        raise LLMError(
            f"{source.text_path or source.title}: no text to extract from", hint="images are not sent to the model"
        )
    if chunks is None:
        chunks = source_chunks(source, settings)
    asker = _Asker(llm, source, context, existing_pages, settings, cache, on_tokens)
    asker.existing_claims = existing_claims

    def answered(chunk: Chunk) -> list[ChunkPlan]:
        plans = asker.window(chunk)
        if on_chunk is not None:
            on_chunk()
        return plans

    workers = max(1, min(settings.llm.concurrency, len(chunks)))
    if workers == 1:
        plans = [plan for chunk in chunks for plan in answered(chunk)]
    else:
        with DaemonPool(workers, "wikic-extract") as pool:
            futures: list[Future[list[ChunkPlan]]] = [pool.submit(answered, chunk) for chunk in chunks]
            done, pending = wait(futures, return_when=FIRST_EXCEPTION)
            for future in pending:
                future.cancel()
            for future in futures:  # in window order; re-raises the first failure
                if future in done and future.exception() is not None:
                    raise future.exception()  # type: ignore[misc]
            plans = [plan for future in futures for plan in future.result()]

    merged = merge_plans(plans, source_path=source.text_path)
    strategy = "+".join(s for s in ("single", "two-pass") if s in asker.used) or "single"
    signals = tuple(name_signals(without_data_urls(source.text)))  # base64 is no name
    known = [*existing_pages, *known_names]  # names the source may write that the model passed over
    return ExtractionResult(anchor_plan(merged, source.text, known), asker.usage, len(plans), strategy, signals,
                            tuple(asker.left_out))


class _Asker:
    """The calls for one source: each window asked by the preferred strategy, and the other way when the
    plan is empty or thin although the window names things."""

    def __init__(self, llm: LLM, source: SourceText, context: PromptContext, existing_pages: Sequence[str],
                 settings: Settings, cache: ReplyCache | None, on_tokens: Callable[[int], None] | None) -> None:
        self.llm = llm
        self.source = source
        self.context = context
        self.existing_pages = existing_pages
        self.existing_claims: Sequence[str] = ()  # current claims of those pages, with ids, for `replaces`
        self.settings = settings
        self.cache = cache
        self.on_tokens = on_tokens
        self.usage = Usage()
        self.left_out: list[str] = []  # items of replies over their limits, not kept
        self.transcript = is_transcript(source)
        self.used: set[str] = set()
        self.auto = settings.llm.strategy == "auto"
        self.first = preferred_strategy(llm, settings)
        remembered = getattr(llm, "preferred_strategy", None)
        # auto, before this endpoint has shown which way it answers better: a thin plan is asked the other
        # way too; once it has, only an empty one is (no second call for every window)
        self.learning = self.auto and not (callable(remembered) and remembered() in ("single", "two-pass"))

    def window(self, chunk: Chunk) -> list[ChunkPlan]:
        first, other = self.first, ("two-pass" if self.first == "single" else "single")
        failure: LLMError | None = None
        try:
            plans = self._ask(first, chunk)
        except LLMError as exc:
            if not self.auto:
                raise
            plans, failure = [], exc  # auto: a model that cannot answer one way may answer the other
        signals = name_signals(chunk.text)
        found = _named(plans)
        thin = bool(signals) and (found == 0 or (self.learning and found * THIN < len(signals)))
        if failure is None and not thin:
            return plans
        try:
            more = self._ask(other, chunk)
        except LLMError:
            if failure is not None:
                raise failure from None
            return plans  # thin, but what the first way gave stands
        if self.learning and _named(more) > found:
            remember = getattr(self.llm, "remember_strategy", None)
            if callable(remember):
                remember(other)  # this endpoint answers better the other way: start with it from now on
        return plans + more

    def _ask(self, strategy: str, chunk: Chunk, depth: int = 0) -> list[ChunkPlan]:
        self.used.add(strategy)
        try:
            if strategy == "two-pass":
                return [self._two_pass(chunk)]
            return [self._single(chunk)]
        except TruncatedReply:
            parts = halves(chunk)
            if depth >= MAX_SPLIT_DEPTH or parts is None:
                raise
            return self._ask(strategy, parts[0], depth + 1) + self._ask(strategy, parts[1], depth + 1)

    def _call(self, messages: list[dict[str, str]], output: Any, schema_name: str, chunk: Chunk | None = None) -> Any:
        """Ask for `output`; with `chunk`, its facts carry only the optional fields that can hold there, and a
        reply over a list limit keeps the items whose quotes the chunk writes most."""
        fields = fact_fields(chunk, self.existing_claims) if chunk is not None else (*INTERVAL_FIELDS, PAIRING_FIELD)
        support = quote_support(chunk.text, self.source.text_path) if chunk is not None else None
        got = ask(
            self.llm, messages, output, schema_name=schema_name, max_tokens=self.settings.llm.max_output_tokens,
            cache=self.cache, schema=asked_schema(output, fields), usage=self.usage, on_tokens=self.on_tokens,
            support=support,
        )
        self.left_out += got.left_out
        return got.value

    def _single(self, chunk: Chunk) -> ChunkPlan:
        messages = build_messages(
            chunk, title=self.source.title, source_path=self.source.text_path, context=self.context,
            existing_pages=self.existing_pages, existing_claims=self.existing_claims, transcript=self.transcript,
        )
        if self.transcript:
            transcript: TranscriptPlan = self._call(messages, TranscriptPlan, TRANSCRIPT_SCHEMA_NAME, chunk)
            return transcript
        plan: ChunkPlan = self._call(messages, ChunkPlan, SCHEMA_NAME, chunk)
        return plan

    def _two_pass(self, chunk: Chunk) -> ChunkPlan:
        listed: NamesPlan = self._call(
            names_messages(chunk, title=self.source.title, context=self.context, existing_pages=self.existing_pages),
            NamesPlan, NAMES_SCHEMA_NAME,
        )
        index = AnchorIndex(chunk.text, self.source.text_path)
        kinds: dict[str, str] = {}
        for item in listed.names:
            name = item.name.strip()
            if name and normalize_name(name) not in {normalize_name(n) for n in kinds} and index.contains(name):
                kinds[name] = item.kind.strip()  # a name the window does not write is not asked about
        names = list(kinds)
        entities: list[WireEntity] = []
        for start in range(0, len(names), NAMES_PER_ASK):
            group = names[start : start + NAMES_PER_ASK]
            claims: ClaimsPlan = self._call(
                claims_messages(chunk, group, title=self.source.title, context=self.context,
                                existing_claims=self.existing_claims),
                ClaimsPlan, CLAIMS_SCHEMA_NAME, chunk,
            )
            said = {normalize_name(item.name): item for item in claims.items}
            for name in group:
                claim = said.get(normalize_name(name))
                facts = list(claim.facts) if claim is not None else []
                summary = facts[0].text[:300] if facts else ""  # a claim the compiler checks, not free text
                # Built from parts already validated; a name's claims may number more than one plan's entity
                # asks for (the claims pass lets a small model list more), and all of them are kept.
                entities.append(WireEntity.model_construct(name=name, kind=kinds[name][:40], aliases=[],
                                                           summary=summary, facts=facts))
        if self.transcript:
            remembered: MemoriesPlan = self._call(
                memories_messages(chunk, title=self.source.title, context=self.context),
                MemoriesPlan,
                MEMORIES_SCHEMA_NAME,
            )
            return TranscriptPlan.model_construct(summary="", entities=entities, concepts=[], comparisons=[],
                                                  relations=[], memories=remembered.memories)
        # built from replies already validated, each within its own limits: the plan's limit on entities is
        # the one-call schema's, and every name the names pass found is kept with its claims
        return ChunkPlan.model_construct(summary="", entities=entities, concepts=[], comparisons=[], relations=[])


def _named(plans: Sequence[ChunkPlan]) -> int:
    """How many distinct things the plans propose (with at least one fact, for a plan of names alone says
    nothing)."""
    names = {normalize_name(e.name) for p in plans for e in p.entities if e.facts}
    names |= {normalize_name(c.name) for p in plans for c in p.concepts if any(s.facts for s in c.sections)}
    names |= {normalize_name(c.name) for p in plans for c in p.comparisons}
    names |= {normalize_name(m.subject) for p in plans for m in getattr(p, "memories", ())}
    return len(names)


def estimate_extraction(
    source: SourceText,
    *,
    context: PromptContext,
    existing_pages: Sequence[str] = (),
    existing_claims: Sequence[str] = (),
    settings: Settings | None = None,
    llm: LLM | None = None,
    cache: ReplyCache | None = None,
) -> Estimate:
    """What `extract_plan` would send, without sending it (by the strategy it would start with). With `llm`
    and `cache`, cached windows count as free. Two-pass claims calls are estimated for a few names a window."""
    settings = settings or Settings()
    chunks = source_chunks(source, settings)
    strategy = (
        preferred_strategy(llm, settings)
        if llm is not None
        else ("single" if settings.llm.strategy == "auto" else settings.llm.strategy)
    )
    transcript = is_transcript(source)
    prompt_tokens = cached = calls = 0
    counted = bool(chunks)
    for chunk in chunks:
        key_output: Any
        if strategy == "two-pass":
            names = names_messages(chunk, title=source.title, context=context, existing_pages=existing_pages)
            claims = claims_messages(chunk, ["a name"] * NAMES_PER_ASK, title=source.title, context=context,
                                     existing_claims=existing_claims)
            asks = 1 + math.ceil(EXPECTED_NAMES_PER_WINDOW / NAMES_PER_ASK)
            key_messages, key_output, key_name = names, NamesPlan, NAMES_SCHEMA_NAME
            asked = [(names, 1), (claims, asks - 1)]
            if transcript:
                asks += 1
                asked.append((memories_messages(chunk, title=source.title, context=context), 1))
        else:
            key_messages = build_messages(
                chunk, title=source.title, source_path=source.text_path, context=context, existing_pages=existing_pages,
                existing_claims=existing_claims, transcript=transcript,
            )
            asks = 1
            key_output, key_name = (TranscriptPlan, TRANSCRIPT_SCHEMA_NAME) if transcript else (ChunkPlan, SCHEMA_NAME)
            asked = [(key_messages, 1)]
        if llm is not None and cache is not None:
            schema = asked_schema(key_output, fact_fields(chunk, existing_claims))  # as `_Asker._call` asks
            key = ReplyCache.key(llm.identity, key_messages, key_name, schema, settings.llm.max_output_tokens)
            if cache.get(key) is not None:
                cached += 1
                continue
        for messages, times in asked:
            tokens, by_endpoint = prompt_tokens_of(llm, messages)
            prompt_tokens += times * tokens
            counted = counted and by_endpoint
        calls += asks
    max_completion = calls * settings.llm.max_output_tokens
    return Estimate(
        len(chunks), prompt_tokens, max_completion, cached, settings.llm.cost(prompt_tokens, max_completion), counted
    )
