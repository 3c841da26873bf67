"""`--estimate` counts a prompt with the endpoint's own tokenizer when its server has one (llama.cpp's
`/tokenize`), found once per endpoint and model and remembered; without one, the offline estimate with a margin.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.ingest.extract.prompt import PromptContext
from wikic.ingest.extract.run import MARGIN, estimate_extraction, source_chunks
from wikic.llm.client import OpenAICompatible
from wikic.settings import IngestSettings, LLMSettings, Settings
from wikic.text.tokens import MESSAGE_OVERHEAD, estimate_messages
from wikic.vault.init import init_vault

# Markdown and links: a small model's tokenizer splits them much finer than the offline estimate does
TEXT = "".join(f"- [[Note {n}|note {n}]]: see `#{n}` and ![[icon-{n}.svg#icon]] (a *{n}th* example).\n"
               for n in range(60))


class _Source:
    text_path = raw_path = "raw/articles/links.md"
    title = "Links"
    text = TEXT


def _by_chars(text: str) -> int:
    return len(text) // 2  # a tokenizer that counts a token every two characters


def _tokenize_requests(server: StandinServer) -> list[str]:
    return [r.path for r in server.requests if not r.path.endswith("/chat/completions")]


def test_an_endpoint_with_a_tokenizer_counts_the_prompts(standin: StandinServer,
                                                        make_llm: Callable[..., OpenAICompatible],
                                                        tmp_path: Path) -> None:
    standin.tokenize = _by_chars
    settings = Settings(ingest=IngestSettings(chunk_tokens=300, chunk_overlap_tokens=0))
    llm = make_llm()
    estimate = estimate_extraction(_Source(), context=PromptContext(), settings=settings, llm=llm)
    sent = [r.body["content"] for r in standin.requests if r.path == "/tokenize"]
    chunks = source_chunks(_Source(), settings)
    assert estimate.counted and len(sent) == len(chunks) > 1  # one request a window
    assert sent == ["\n".join(m["content"] for m in messages) for messages in _prompts(settings)]
    assert estimate.prompt_tokens == sum(_by_chars(text) + MESSAGE_OVERHEAD * len(messages) + 2
                                         for text, messages in zip(sent, _prompts(settings), strict=True))
    assert estimate.prompt_tokens > estimate_messages([{"content": TEXT}])  # more than the estimate said
    assert standin.chat_requests() == []  # no model call
    # found once, remembered with the endpoint: a later client asks it straight away
    memory = json.loads((tmp_path / ".wikic" / "llm-endpoints.json").read_text(encoding="utf-8"))
    assert memory["endpoints"][standin.base_url]["models"]["standin-model"]["tokenizer"] == "llama.cpp"
    before = len(standin.requests)
    again = estimate_extraction(_Source(), context=PromptContext(), settings=settings, llm=make_llm())
    assert again.prompt_tokens == estimate.prompt_tokens
    assert [r.path for r in standin.requests[before:]] == ["/tokenize"] * len(chunks)


def test_an_endpoint_without_one_is_estimated_with_a_margin_and_not_asked_again(
    standin: StandinServer, make_llm: Callable[..., OpenAICompatible], tmp_path: Path
) -> None:
    settings = Settings(ingest=IngestSettings(chunk_tokens=300, chunk_overlap_tokens=0))
    estimate = estimate_extraction(_Source(), context=PromptContext(), settings=settings, llm=make_llm())
    offline = estimate_extraction(_Source(), context=PromptContext(), settings=settings)
    assert not estimate.counted and estimate.prompt_tokens == offline.prompt_tokens
    asked = _tokenize_requests(standin)
    assert asked == ["/tokenize", "/tokenize", "/extras/tokenize/count"]  # each shape once: none answered
    estimate_extraction(_Source(), context=PromptContext(), settings=settings, llm=make_llm())
    assert _tokenize_requests(standin) == asked  # remembered: never asked again
    # the margin: every window's prompt as estimated, a third and more added
    windows = len(source_chunks(_Source(), settings))
    assert offline.prompt_tokens >= windows and offline.prompt_tokens == sum(
        math.ceil(estimate_messages(m) * MARGIN) for m in _prompts(settings))


def _prompts(settings: Settings) -> list[list[dict[str, str]]]:
    from wikic.ingest.extract.prompt import build_messages

    return [build_messages(chunk, title="Links", source_path=_Source.text_path, context=PromptContext())
            for chunk in source_chunks(_Source(), settings)]


def test_an_unreachable_server_is_estimated_and_judged_another_time(tmp_path: Path) -> None:
    llm = OpenAICompatible(LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", timeout=2.0, max_retries=0),
                           state_dir=tmp_path / ".wikic")
    assert llm.count_tokens([{"role": "user", "content": "hello"}]) is None
    assert not (tmp_path / ".wikic" / "llm-endpoints.json").exists()  # nothing learned: asked again next run


def test_the_cli_estimate_says_how_it_counted(tmp_path: Path, standin: StandinServer) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    (root / "wikic.toml").write_text(f'[llm]\nbase_url = "{standin.base_url}"\nmodel = "standin-model"\n',
                                     encoding="utf-8")
    (tmp_path / "links.md").write_text("# Links\n\n" + TEXT, encoding="utf-8")
    args = ["ingest", str(tmp_path / "links.md"), "--vault", str(root), "--estimate", "--no-palace"]
    estimated = CliRunner().invoke(app, args)
    assert estimated.exit_code == 0, estimated.output
    assert "prompt tokens (estimated, 35% added)" in estimated.stdout
    standin.tokenize = _by_chars
    (root / ".wikic" / "llm-endpoints.json").unlink()  # a server that has one now
    counted = CliRunner().invoke(app, [*args, "--json"])
    data: dict[str, Any] = json.loads(counted.stdout)
    assert [s["prompt_counted"] for s in data["sources"]] == [True] and standin.chat_requests() == []
