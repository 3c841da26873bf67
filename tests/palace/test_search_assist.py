"""Optional model help for search: listwise rerank and query rewrite through a scripted OpenAI-compatible
server, including hostile replies. Whatever the model does, search answers; only a valid reply reorders."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from library import open_palace, sync
from pydantic import SecretStr
from standin_openai import StandinServer, error, malformed, reply, slow
from typer.testing import CliRunner

from wikic.cli.application import app
from wikic.errors import ConfigError
from wikic.llm.cache import ReplyCache
from wikic.llm.client import OpenAICompatible
from wikic.palace import search
from wikic.palace.hybrid import SearchHit
from wikic.query.assist import (
    Assist,
    RerankReply,
    assisted_search,
    merge_rankings,
    rerank_order,
    search_with_settings,
)
from wikic.settings import LLMSettings, load_settings

QUERY = "vector database nearest neighbour"
@pytest.fixture
def standin() -> Iterator[StandinServer]:
    with StandinServer() as server:
        yield server


@pytest.fixture
def make_llm(standin: StandinServer, tmp_path: Path) -> Iterator[Callable[..., OpenAICompatible]]:
    clients: list[OpenAICompatible] = []

    def make(**overrides: Any) -> OpenAICompatible:
        values: dict[str, Any] = {"base_url": standin.base_url, "model": "standin-model", "timeout": 5.0,
                                  "max_retries": 0, "api_key": SecretStr("sk-test")}
        values.update(overrides)
        client = OpenAICompatible(LLMSettings(**values), state_dir=tmp_path / "llm-state")
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def indexed(vault: Path) -> Path:
    sync(vault)
    return vault


def _hit(path: str) -> SearchHit:
    return SearchHit(path, 0.5, "", "", 1, 1, "concepts", path)


def _paths(hits: list[SearchHit]) -> list[str]:
    return [h.path for h in hits]


def _run(vault: Path, llm: OpenAICompatible, assist: Assist, cache: ReplyCache | None = None, k: int = 6):
    with open_palace(vault) as palace:
        fused = search(palace, QUERY, k)
        found = assisted_search(palace, QUERY, k, assist, llm=llm, cache=cache)
    return fused, found


# -- the rules, in code ----------------------------------------------------------------------------------------
def test_the_model_order_comes_first_and_omitted_candidates_keep_their_fused_order() -> None:
    assert rerank_order(RerankReply(ranking=[3, 1]), 5) == [2, 0, 1, 3, 4]
    assert rerank_order(RerankReply(ranking=[]), 3) == [0, 1, 2]


@pytest.mark.parametrize(("ranking", "problem"), [([1, 9], "9, which is not a candidate"), ([0], "0, which"),
                                                  ([-2], "-2, which"), ([2, 1, 2], "names 2 twice")])
def test_a_reply_naming_no_candidate_or_one_twice_is_refused(ranking: list[int], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        rerank_order(RerankReply(ranking=ranking), 3)


def test_merging_two_rankings_by_reciprocal_rank() -> None:
    first = [_hit("a"), _hit("b"), _hit("c")]
    second = [_hit("c"), _hit("d"), _hit("a")]
    assert _paths(merge_rankings(first, second)) == ["a", "c", "b", "d"]
    assert _paths(merge_rankings(first, [])) == ["a", "b", "c"]


def test_settings_and_flags(tmp_path: Path) -> None:
    default = load_settings(tmp_path, env={})
    assert Assist.of(default.search) == Assist(rerank=False, rewrite=False, candidates=30, token_budget=8000)
    (tmp_path / "wikic.toml").write_text(
        '[search]\nrerank = "llm"\nrewrite = true\nrerank_candidates = 12\ntoken_budget = 3000\n', encoding="utf-8")
    settings = load_settings(tmp_path, env={}).search
    assert Assist.of(settings) == Assist(rerank=True, rewrite=True, candidates=12, token_budget=3000)
    assert Assist.of(settings, rerank=False, rewrite=False).active is False


@pytest.mark.parametrize(("toml", "message"), [
    ('[search]\nrerank = "yes"\n', "[search] rerank: Input should be 'none' or 'llm'"),
    ("[search]\nrerank_candidates = 1\n", "[search] rerank_candidates: Input should be greater than or equal to 2"),
    ("[search]\ntoken_budget = 10\n", "[search] token_budget: Input should be greater than or equal to 500"),
    ('[search]\nrewrite = "on"\n', "[search] rewrite: Input should be a valid boolean"),
])
def test_bad_search_settings_are_config_errors(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "wikic.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, env={})
    assert message in err.value.message


# -- against a scripted endpoint -------------------------------------------------------------------------------
def test_without_help_no_model_is_needed(indexed: Path) -> None:
    with open_palace(indexed) as palace:
        found = assisted_search(palace, QUERY, 6, Assist(), llm=None)
        assert found.hits == search(palace, QUERY, 6) and found.report.calls == 0
        with pytest.raises(ConfigError, match="needs a model"):
            assisted_search(palace, QUERY, 6, Assist(rerank=True), llm=None)


def test_a_valid_ranking_reorders(indexed: Path, standin: StandinServer, make_llm) -> None:
    standin.enqueue(reply({"ranking": [3, 1]}))
    fused, found = _run(indexed, make_llm(), Assist(rerank=True))
    assert _paths(found.hits) == [fused[2].path, fused[0].path, fused[1].path, *_paths(fused[3:])]
    assert found.report.reranked and not found.report.fallback and found.report.calls == 1
    prompt = standin.chat_requests()[-1].body["messages"][-1]["content"]
    assert QUERY in prompt and all(f"({h.path}" in prompt for h in fused)


@pytest.mark.parametrize(("behaviour", "reason"), [
    (reply({"ranking": [1, 99]}), "99, which is not a candidate"),
    (reply({"ranking": [2, 2, 1]}), "names 2 twice"),
    (reply({"order": [1, 2]}), "invalid reply"),
    (reply({"ranking": ["entities/openai.md"]}), "invalid reply"),
    (malformed("the best one is number 2"), "invalid reply"),
    # no RecursionError: 200,000 brackets for a rerank of at most 62 tokens are cut off before they are parsed
    (malformed("[" * 100_000 + "]" * 100_000), "went on past"),
    (error(500, should_retry=False), "500"),
])
def test_hostile_replies_keep_the_fused_order(
    indexed: Path, standin: StandinServer, make_llm, behaviour: Any, reason: str
) -> None:
    standin.enqueue(behaviour, behaviour)  # the client re-asks once after a reply it cannot read
    fused, found = _run(indexed, make_llm(), Assist(rerank=True))
    assert found.hits == fused
    assert not found.report.reranked and len(found.report.fallback) == 1 and reason in found.report.fallback[0]


def test_a_bad_reply_then_a_good_one_reranks(indexed: Path, standin: StandinServer, make_llm) -> None:
    standin.enqueue(malformed("number two"), reply({"ranking": [2]}))
    fused, found = _run(indexed, make_llm(), Assist(rerank=True))
    assert found.hits[0] == fused[1] and found.report.reranked and found.report.calls == 2


def test_a_timeout_keeps_the_fused_order(indexed: Path, standin: StandinServer, make_llm) -> None:
    standin.enqueue(slow(3.0, reply({"ranking": [2]})))
    fused, found = _run(indexed, make_llm(timeout=0.5), Assist(rerank=True))
    assert found.hits == fused and "rerank:" in found.report.fallback[0]


def test_a_request_over_the_budget_is_never_sent(indexed: Path, standin: StandinServer, make_llm) -> None:
    fused, found = _run(indexed, make_llm(), Assist(rerank=True, token_budget=60))
    assert found.hits == fused and found.report.fallback == ["rerank: over the token budget"]
    assert standin.chat_requests() == []


def test_a_tight_budget_shows_fewer_candidates(indexed: Path, standin: StandinServer, make_llm) -> None:
    standin.enqueue(reply({"ranking": [2, 1]}))
    fused, found = _run(indexed, make_llm(), Assist(rerank=True, token_budget=260))
    prompt = standin.chat_requests()[-1].body["messages"][-1]["content"]
    shown = [line for line in prompt.splitlines() if line.startswith("[")]
    assert 2 <= len(shown) < len(fused)
    assert _paths(found.hits) == [fused[1].path, fused[0].path, *_paths(fused[2:])]  # the rest keep their place


def test_replies_are_cached_by_request(indexed: Path, standin: StandinServer, make_llm, tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path / "cache")
    standin.enqueue(reply({"ranking": [2]}))
    _, first = _run(indexed, make_llm(), Assist(rerank=True), cache)
    _, second = _run(indexed, make_llm(), Assist(rerank=True), cache)
    assert first.hits == second.hits and len(standin.chat_requests()) == 1
    assert (second.report.calls, second.report.cached_calls) == (1, 1)


def test_a_rewrite_is_searched_beside_the_question(indexed: Path, standin: StandinServer, make_llm) -> None:
    standin.enqueue(reply({"query": "zymurgy club Tuesday"}))
    with open_palace(indexed) as palace:
        own = search(palace, "when do the brewers meet", 6)
        found = assisted_search(palace, "when do the brewers meet", 6, Assist(rewrite=True), llm=make_llm())
        rewritten = search(palace, "zymurgy club Tuesday", 6)
    assert found.report.rewrite == "zymurgy club Tuesday"
    assert _paths(found.hits) == _paths(merge_rankings(own, rewritten)[:6])
    assert "raw/articles/openai-history.md" in _paths(found.hits)[:2]


def test_a_failed_rewrite_still_reranks(indexed: Path, standin: StandinServer, make_llm) -> None:
    standin.enqueue(error(500, should_retry=False), reply({"ranking": [2]}))
    fused, found = _run(indexed, make_llm(), Assist(rerank=True, rewrite=True))
    assert found.report.rewrite is None and found.report.fallback[0].startswith("rewrite:")
    assert found.report.reranked and found.hits[0] == fused[1]


def test_search_with_settings_reads_the_search_section(indexed: Path, standin: StandinServer) -> None:
    (indexed / "wikic.toml").write_text(
        '[embedding]\nprovider = "static"\n[search]\nrerank = "llm"\n'
        f'[llm]\nbase_url = "{standin.base_url}"\nmodel = "standin-model"\nmax_retries = 0\n', encoding="utf-8")
    standin.enqueue(reply({"ranking": [2]}))
    settings = load_settings(indexed, env={})
    with open_palace(indexed) as palace:
        fused = search(palace, QUERY, 6)
        found = search_with_settings(palace, QUERY, 6, settings)
        plain = search_with_settings(palace, QUERY, 6, settings, rerank=False)
    assert found.hits[0] == fused[1] and plain.hits == fused and len(standin.chat_requests()) == 1
    assert (indexed / ".wikic").is_dir() and any((indexed / ".wikic").rglob("*.json"))  # the vault's reply cache


# -- the command line ------------------------------------------------------------------------------------------
def test_cli_rerank_reports_a_fallback_and_still_answers(
    indexed: Path, standin: StandinServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIC_LLM_BASE_URL", standin.base_url)
    monkeypatch.setenv("WIKIC_LLM_MODEL", "standin-model")
    (indexed / "wikic.toml").write_text('[embedding]\nprovider = "static"\n[llm]\nmax_retries = 0\n', encoding="utf-8")
    standin.enqueue(reply({"ranking": [7, 7]}))
    result = CliRunner().invoke(app, ["search", QUERY, "--rerank", "--json", "--vault", str(indexed)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["results"] and data["assist"]["reranked"] is False
    assert "note: rerank: the reply names" in result.stderr and "fused order is kept" in result.stderr


def test_cli_rerank_without_a_model_is_a_config_error(indexed: Path) -> None:
    result = CliRunner().invoke(app, ["search", QUERY, "--rerank", "--vault", str(indexed)])
    assert result.exit_code == 2 and "need a model" in result.stderr
