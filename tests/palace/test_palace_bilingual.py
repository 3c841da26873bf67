"""Search by meaning across Chinese and English with the default model (USE multilingual v3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from library import open_palace, sync

from wikic.palace import search

BILINGUAL_PAGES = {
    "entities/postgresql.md": "---\ntitle: PostgreSQL\ntype: entity\n---\n# PostgreSQL\n\n"
    "PostgreSQL is an open-source relational database. We chose it for transactions and JSON columns.\n",
    "concepts/central-bank-policy.md": "---\ntitle: Central bank policy\ntype: concept\n---\n# Central bank policy\n\n"
    "When inflation is high the central bank raises interest rates to cool the economy.\n",
    "concepts/cat-care.md": "---\ntitle: Cat care\ntype: concept\n---\n# Cat care\n\n"
    "Cats sleep most of the day and need fresh water and regular visits to the veterinarian.\n",
    "concepts/mountain-hiking.md": "---\ntitle: 登山\ntype: concept\n---\n# 登山\n\n"
    "周末我们去爬山，山顶的风景非常美丽，但是下山的时候膝盖很疼。\n",
    "concepts/green-tea.md": "---\ntitle: 绿茶\ntype: concept\n---\n# 绿茶\n\n"
    "绿茶是中国最常见的茶，用不太热的水冲泡，味道清香。\n",
    "concepts/electric-cars.md": "---\ntitle: 电动汽车\ntype: concept\n---\n# 电动汽车\n\n"
    "电动汽车使用电池驱动，充电一次可以行驶几百公里，没有尾气排放。\n",
}

CASES = [
    ("我们选择了哪个关系型数据库？", "entities/postgresql.md"),  # zh -> en
    ("央行为什么加息", "concepts/central-bank-policy.md"),  # zh -> en
    ("猫每天睡觉多久", "concepts/cat-care.md"),  # zh -> en
    ("knee pain after climbing a mountain", "concepts/mountain-hiking.md"),  # en -> zh
    ("how to brew green tea", "concepts/green-tea.md"),  # en -> zh
    ("battery powered vehicles without exhaust", "concepts/electric-cars.md"),  # en -> zh
    ("电动汽车充电", "concepts/electric-cars.md"),  # zh -> zh
    ("why do interest rates go up", "concepts/central-bank-policy.md"),  # en -> en
]


@pytest.fixture(scope="module")
def bilingual_vault(tmp_path_factory: pytest.TempPathFactory, vault_writer) -> Path:
    root = vault_writer(tmp_path_factory.mktemp("bilingual") / "vault", BILINGUAL_PAGES, toml="")
    report = sync(root)
    assert report.model == "use:use-multilingual-v3 (512-d)"
    return root


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_query_in_one_language_finds_the_page_in_either(bilingual_vault: Path, query: str, expected: str) -> None:
    with open_palace(bilingual_vault) as palace:
        assert search(palace, query, k=1)[0].path == expected


def test_dense_alone_crosses_languages(bilingual_vault: Path) -> None:
    """No shared words at all: only the multilingual vectors can connect these."""
    with open_palace(bilingual_vault) as palace:
        vector = palace.embedder.embed(["我们选择了哪个关系型数据库？"])[0]
        best_id, _ = palace.store.query(vector, 1)[0]
        assert palace.manifest.drawers_by_id([best_id])[best_id].path == "entities/postgresql.md"


def test_optional_e5_model_indexes_and_crosses_languages(vault_writer, tmp_path: Path) -> None:
    pages = {k: BILINGUAL_PAGES[k] for k in ("entities/postgresql.md", "concepts/green-tea.md", "concepts/cat-care.md")}
    root = vault_writer(tmp_path / "e5", pages, toml='[embedding]\nprovider = "e5"\n')
    report = sync(root)
    assert report.model == "e5:multilingual-e5-small-q4 (384-d)" and report.drawers_embedded == 3
    with open_palace(root) as palace:
        assert search(palace, "我们选择了哪个关系型数据库？", k=1)[0].path == "entities/postgresql.md"
        assert search(palace, "how to brew green tea", k=1)[0].path == "concepts/green-tea.md"
        query = palace.embedder.embed_query("猫每天睡觉多久")
        best_id, _ = palace.store.query(query, 1)[0]
        assert palace.manifest.drawers_by_id([best_id])[best_id].path == "concepts/cat-care.md"
