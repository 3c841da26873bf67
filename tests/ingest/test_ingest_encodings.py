"""Telling a source's text encoding: right when it decides, undecided (with candidates) when unsure."""

from __future__ import annotations

import pytest

from wikic.ingest.encodings import detect

DECIDED = [
    ("向量数据库用于存储嵌入向量，支持语义搜索。我们比较了Chroma和Qdrant两个系统的性能。", "gbk", "gb18030"),
    ("今天我们讨论了检索增强生成。", "gbk", "gb18030"),
    ("Meeting notes 会议记录\nAlice: 我们用Chroma。\nBob: 好的，OK.\n", "gbk", "gb18030"),
    ("向量資料庫用於儲存嵌入向量，支援語意搜尋。我們比較了兩個系統的效能。", "big5", "big5"),
    ("今天我們討論了檢索增強生成。", "big5", "big5"),
    ("台北的研究團隊發表了新的語言模型，並且開放原始碼。", "big5", "big5"),
    ("ベクトルデータベースは埋め込みベクトルを保存し、意味検索をサポートします。", "shift_jis", "shift_jis"),
    ("東京で会議がありました。新しいプロジェクトについて話し合いました。", "shift_jis", "shift_jis"),
    ("벡터 데이터베이스는 임베딩을 저장합니다.", "euc-kr", "euc-kr"),
    ("Café au lait, naïve façade, résumé - the über crème brûlée.", "latin-1", "cp1252"),
    ("He said “hello” – and left… for €5.", "cp1252", "cp1252"),
    ("Hello 世界, notes here.\n", "utf-16", "utf-16-le"),
    ("Hello world, plain notes here.\n", "utf-16-le", "utf-16-le"),
    ("Hello world, 世界 plain notes here.\n", "utf-16-be", "utf-16-be"),
    ("plain ascii and ünïcödé\n", "utf-8", "utf-8"),
]


@pytest.mark.parametrize(("text", "codec", "expected"), DECIDED)
def test_common_encodings_are_told_apart(text: str, codec: str, expected: str) -> None:
    found = detect(text.encode(codec))
    assert (found.encoding, found.text) == (expected, text)


@pytest.mark.parametrize(
    ("data", "candidate"),
    [
        ("中文笔记".encode("gbk"), "gb18030"),  # four characters: too little to choose
        ("Привет".encode("cp1251"), None),  # a Cyrillic word, which reads as three hanzi in GB18030
        ("Привет, мир! Это заметки о встрече.".encode("koi8-r"), None),
        (b"abc\x00\x01\x02\x00def" * 10, None),  # binary
    ],
)
def test_unsure_is_undecided_never_a_guess(data: bytes, candidate: str | None) -> None:
    found = detect(data)
    assert found.encoding is None and found.text == ""
    if candidate:
        assert candidate in found.candidates
