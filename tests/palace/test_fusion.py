"""Fusion of dense and BM25 evidence: reciprocal rank fusion vs the convex combination, as a setting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from library import open_palace, sync

from wikic.errors import ConfigError
from wikic.palace import search
from wikic.palace.hybrid import (
    REACH,
    Retrieval,
    _best_drawers,
    calibrated,
    fuse,
    minmax,
    per_file,
    reciprocal_ranks,
)
from wikic.palace.manifest import DrawerRecord
from wikic.settings import load_settings

# Dense likes a by a wide margin; BM25 likes b and c a little more than a. The two fusions disagree.
DENSE = {"a": 0.9, "b": 0.5, "c": 0.45, "d": 0.4}
LEXICAL = {"b": 10.0, "c": 9.5, "a": 6.0, "d": 0.0}


def _order(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda key: -scores[key])


def test_rrf_scores_are_reciprocal_ranks() -> None:
    fused = fuse(DENSE, [LEXICAL], fusion="rrf", rrf_k=60)
    # dense ranks a, b, c, d; BM25 ranks b, c, a, d: 1 / (60 + rank) per list, scaled by 61 / 2 lists
    assert fused["a"] == pytest.approx((61 / 61 + 61 / 63) / 2)
    assert fused["b"] == pytest.approx((61 / 62 + 61 / 61) / 2)
    assert fused["c"] == pytest.approx((61 / 63 + 61 / 62) / 2)
    assert fused["d"] == pytest.approx(61 / 64)
    assert _order(fused) == ["b", "a", "c", "d"]


def test_rrf_counts_every_list_the_same() -> None:
    # a third list that only knows c: as in Cormack et al., each list adds 1 / (k + rank), dense is not special
    fused = fuse(DENSE, [LEXICAL, {"c": 2.0}], fusion="rrf", rrf_k=60)
    assert fused == pytest.approx({
        "a": (61 / 61 + 61 / 63) / 3,
        "b": (61 / 62 + 61 / 61) / 3,
        "c": (61 / 63 + 61 / 62 + 61 / 61) / 3,
        "d": (61 / 64 + 61 / 64) / 3,
    })
    assert _order(fused) == ["c", "b", "a", "d"]


def test_rrf_ignores_gaps_and_k_flattens_ranks() -> None:
    spread = {"a": 100.0, "b": 1.0, "c": 0.5}
    close = {"a": 0.52, "b": 0.51, "c": 0.5}
    assert reciprocal_ranks(spread, 60) == reciprocal_ranks(close, 60)
    assert reciprocal_ranks(close, 1) == pytest.approx({"a": 1.0, "b": 2 / 3, "c": 2 / 4})


def test_equal_scores_share_a_rank() -> None:
    assert reciprocal_ranks({"x": 2.0, "y": 2.0, "z": 1.0}, 60) == pytest.approx({"x": 1.0, "y": 1.0, "z": 61 / 63})


def test_convex_keeps_score_gaps() -> None:
    fused = fuse(DENSE, [LEXICAL], fusion="convex")
    # min-max: dense a 1, b 0.2, c 0.1, d 0; BM25 b 1, c 0.95, a 0.6, d 0
    assert fused == pytest.approx({"a": 0.8, "b": 0.6, "c": 0.525, "d": 0.0})
    assert _order(fused) == ["a", "b", "c", "d"] != _order(fuse(DENSE, [LEXICAL], fusion="rrf"))


@pytest.mark.parametrize(("fusion", "b_share"), [("convex", 0.0), ("rrf", 61 / 62)])
def test_items_one_retriever_missed_get_nothing_from_it(fusion: str, b_share: float) -> None:
    fused = fuse({"a": 0.9, "b": 0.1}, [{"c": 3.0}], fusion=fusion)
    assert fused == pytest.approx({"a": 0.5, "b": 0.5 * b_share, "c": 0.5})


def test_calibrated_reads_bm25_against_the_query_ceiling() -> None:
    # the same BM25 scores count for little when the query could have scored far higher (a weak match),
    # where min-max gives the best of them the full lexical weight whatever its strength
    dense = {"right": 0.5, "noise": 0.45, "other": 0.2}
    weak = {"noise": 0.5}
    fused = fuse(dense, [weak], fusion="calibrated", ceilings=[20.0], reach=0.5)
    assert fused == pytest.approx({"right": 0.5, "noise": 0.5 * 0.9 + 0.5 * 0.5 / 10.0, "other": 0.5 * 0.4})
    assert _order(fused) == ["right", "noise", "other"]
    assert _order(fuse(dense, [weak], fusion="convex")) == ["noise", "right", "other"]
    # a strong match (reach of the ceiling or more) gets the full lexical weight
    strong = fuse(dense, [{"noise": 15.0}], fusion="calibrated", ceilings=[20.0], reach=0.7)
    assert strong["noise"] == pytest.approx(0.5 * 0.9 + 0.5)


def test_calibrated_without_ceilings_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="ceiling"):
        fuse(DENSE, [LEXICAL], fusion="calibrated")
    # no lexical evidence at all (a query of stop words): the dense shares alone, best first
    assert fuse({"a": 0.8, "b": 0.4}, [{}], fusion="calibrated", ceilings=[0.0]) == pytest.approx({"a": 0.5, "b": 0.25})


@pytest.mark.parametrize("fusion", ["calibrated", "convex", "rrf"])
def test_fusing_some_items_scores_them_as_among_all(fusion: str) -> None:
    lexical = [LEXICAL, {"a": 3.0, "c": 1.0}]
    whole = fuse(DENSE, lexical, fusion=fusion, ceilings=[12.0, 4.0])
    assert fuse(DENSE, lexical, fusion=fusion, ceilings=[12.0, 4.0], keys=["c", "d"]) == {k: whole[k] for k in "cd"}


@pytest.mark.parametrize("order", [1, -1])
def test_a_files_best_drawer_among_equals_is_the_first_in_the_file(order: int) -> None:
    # two drawers of a page score alike: the one shown is the first of the page, whatever order they come in
    # (a set's order changes from one process to the next)
    @dataclass
    class Records:
        def drawers_by_id(self, ids: list[str]) -> dict[str, DrawerRecord]:
            ordinal = {"late": 5, "early": 2, "worse": 0, "other": 1}
            return {i: DrawerRecord(i, "p.md", ordinal[i], "", "", 0, 0, "") for i in ids if i in ordinal}

    bm25 = dict(list({"late": 4.0, "early": 4.0, "worse": 1.0, "other": 2.0}.items())[::order])
    path_of = {"late": "p.md", "early": "p.md", "worse": "p.md", "other": "q.md"}
    # Records stands in for the manifest: only its drawers_by_id is read
    best, records = _best_drawers(Records(), ["p.md", "q.md"], {}, bm25, path_of,  # type: ignore[arg-type]
                                  Retrieval(), 8.0)
    assert best == {"p.md": "early", "q.md": "other"} and set(records) == {"late", "early", "other"}
    assert _best_drawers(Records(), ["q.md"], {}, bm25, path_of,  # type: ignore[arg-type]
                         Retrieval(), 8.0)[0] == {"q.md": "other"}


def test_file_scores_aggregate_their_best_drawers() -> None:
    scores = {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.1, "e1": 0.95, "e2": -0.2}
    path_of = {"d1": "f", "d2": "f", "d3": "f", "d4": "f", "e1": "g", "e2": "g"}
    assert per_file(scores, path_of, "max") == pytest.approx({"f": 0.9, "g": 0.95})
    assert per_file(scores, path_of, "sum3") == pytest.approx({"f": 2.4, "g": 0.95})
    assert per_file(scores, path_of, "harmonic3") == pytest.approx({"f": 0.9 + 0.4 + 0.7 / 3, "g": 0.95})


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[palace]\nfusion = 'borda'\n",
            "[palace] fusion: Input should be 'calibrated', 'convex' or 'rrf' (got 'borda') (from {path}:2)",
        ),
        (
            "[palace]\nfusion = 1\n",
            "[palace] fusion: Input should be 'calibrated', 'convex' or 'rrf' (got 1) (from {path}:2)",
        ),
        ("[palace]\nrrf_k = 0\n", "[palace] rrf_k: Input should be greater than or equal to 1 (got 0) (from {path}:2)"),
        ("[palace]\nrrf_k = 60.5\n", "[palace] rrf_k: Input should be a valid integer (got 60.5) (from {path}:2)"),
    ],
)
def test_bad_fusion_settings_are_config_errors(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "wikic.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, env={})
    assert message.format(path=path) in err.value.message and err.value.exit_code == 2


def test_fusion_settings_are_read(tmp_path: Path) -> None:
    default = load_settings(tmp_path, env={}).palace
    assert (default.fusion, default.rrf_k) == ("calibrated", 60)
    (tmp_path / "wikic.toml").write_text('[palace]\nfusion = "rrf"\nrrf_k = 10\n', encoding="utf-8")
    settings = load_settings(tmp_path, env={}).palace
    assert Retrieval.of(settings) == Retrieval(fusion="rrf", rrf_k=10, aggregate="max")


QUERIES = {
    "when was OpenAI founded and by whom": "entities/openai.md",
    "zymurgy": "raw/articles/openai-history.md",
    "restarting services after a full disk": "raw/transcripts/standup.txt",
    "who trains the Claude models": "entities/anthropic.md",
    "HNSW graphs for nearest neighbour search": "concepts/vector-database.md",
}


@pytest.mark.parametrize("fusion", ["calibrated", "convex", "rrf"])
def test_search_honours_the_fusion_setting(make_vault, fusion: str) -> None:
    vault = make_vault(toml=f'[embedding]\nprovider = "static"\n[palace]\nfusion = "{fusion}"\n')
    sync(vault)
    with open_palace(vault) as palace:
        assert Retrieval.of(palace.settings).fusion == fusion
        for query, expected in QUERIES.items():
            hits = search(palace, query, k=6)
            assert hits[0].path == expected, (query, [h.path for h in hits])
            assert len({h.path for h in hits}) == len(hits) and hits == sorted(hits, key=lambda h: -h.score)
            other = "rrf" if fusion != "rrf" else "convex"
            # the setting is what search used: the same query fused the other way scores differently
            assert hits == search(palace, query, k=6, retrieval=Retrieval(fusion=fusion))
            assert [h.score for h in hits] != [h.score for h in search(palace, query, k=6,
                                                                       retrieval=Retrieval(fusion=other))]


# -- the short paths of per_file and fuse give the general formula's numbers, bit for bit ---------------------

_scores = st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                          st.one_of(st.floats(-1, 30, allow_nan=False), st.sampled_from([0.0, -0.0, 1.0])),
                          max_size=12)


def _exact(scores: dict[str, float]) -> list[tuple[str, str]]:
    return sorted((key, repr(value)) for key, value in scores.items())  # repr tells -0.0 from 0.0


@settings(max_examples=200, deadline=None)
@given(scores=_scores, paths=st.lists(st.sampled_from(["a.md", "b.md", "c.md"]), min_size=12, max_size=12))
def test_a_files_best_drawer_is_the_general_aggregate_of_one_weight(scores: dict[str, float],
                                                                    paths: list[str]) -> None:
    path_of = {f"d{i}": p for i, p in enumerate(paths) if i % 5}  # some drawers the manifest does not know
    grouped: dict[str, list[float]] = {}
    for drawer_id, score in scores.items():
        if drawer_id in path_of:
            grouped.setdefault(path_of[drawer_id], []).append(score)
    expected = {path: max(values) + sum([]) for path, values in grouped.items()}
    got = per_file(scores, path_of, "max")
    assert _exact(got) == _exact(expected) and list(got) == list(expected)


@settings(max_examples=200, deadline=None)
@given(dense=_scores, lexical=st.lists(_scores, min_size=1, max_size=3),
       weight=st.sampled_from([0.0, 0.3, 0.5, 1.0]))
def test_the_fused_score_is_the_weighted_mean_for_any_number_of_lexical_lists(
    dense: dict[str, float], lexical: list[dict[str, float]], weight: float
) -> None:
    for fusion in ("calibrated", "convex"):
        got = fuse(dense, lexical, fusion=fusion, dense_weight=weight, ceilings=[2.0] * len(lexical))
        d, lex = ((calibrated(dense, max(dense.values(), default=0.0)), [calibrated(x, REACH * 2.0) for x in lexical])
                  if fusion == "calibrated" else (minmax(dense), [minmax(x) for x in lexical]))
        expected = {key: weight * d.get(key, 0.0) + (1 - weight) * sum(x.get(key, 0.0) for x in lex) / len(lex)
                    for key in set(d).union(*lex)}
        assert _exact(got) == _exact(expected)
