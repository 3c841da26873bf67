"""The LLM layer: one OpenAI-compatible client, typed replies with one re-ask, a reply cache, a fake.

settings = load_settings(vault)
llm = OpenAICompatible(settings.llm, state_dir=state_dir(vault))        # wikic.vault.state
result = ask(llm, messages, MyReply, schema_name="my_reply", max_tokens=1024,
             cache=ReplyCache.for_vault(vault))
"""

from __future__ import annotations

from wikic.llm.cache import ReplyCache
from wikic.llm.client import LLM, InvalidReply, LLMReply, OpenAICompatible, TruncatedReply
from wikic.llm.fake import FakeLLM
from wikic.llm.structured import Structured, Usage, ask

__all__ = [
    "LLM",
    "FakeLLM",
    "InvalidReply",
    "LLMReply",
    "OpenAICompatible",
    "ReplyCache",
    "Structured",
    "TruncatedReply",
    "Usage",
    "ask",
]
