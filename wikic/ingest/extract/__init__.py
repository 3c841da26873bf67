"""Source text -> the model's plan for it, anchored into the source.

- `windows`: the source cut into overlapping windows by the token estimate (and a cut-off window in two);
- `prompt`: what the model is asked, for each strategy, with a worked example;
- `signals`: whether a text names things (so a plan of nothing is never accepted in silence);
- `run`: the strategies (`single`, `two-pass`, `auto`) and the calls, in parallel, typed and cached;
- `merge`: window plans merged into one plan per source.
"""

from wikic.ingest.extract.merge import merge_plans
from wikic.ingest.extract.prompt import PromptContext, build_messages, claims_messages, names_messages
from wikic.ingest.extract.run import (
    STRATEGIES,
    Estimate,
    ExtractionResult,
    SourceText,
    estimate_extraction,
    extract_plan,
    preferred_strategy,
    source_chunks,
)
from wikic.ingest.extract.signals import name_signals
from wikic.ingest.extract.windows import Chunk, split_chunks
from wikic.vault.names import normalize_name

__all__ = [
    "STRATEGIES", "Chunk", "Estimate", "ExtractionResult", "PromptContext", "SourceText", "build_messages",
    "claims_messages", "estimate_extraction", "extract_plan", "merge_plans", "name_signals", "names_messages",
    "normalize_name", "preferred_strategy", "source_chunks", "split_chunks",
]
