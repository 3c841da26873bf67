"""Does a text name things? The evidence that a plan proposing nothing (or little) for it is the model's
failure, not the source's emptiness: a plan is then asked again the other way, and a source that still
yields nothing is reported, never passed over in silence.

Signals, cheapest first: capitalised words that do not start a sentence, or start one but are never
written in lower case and recur ("Chroma is... Chroma stores..."), and runs of them ("Milla Jovovich"); words
in capitals ("HNSW"), code-like identifiers ("all-MiniLM-L6-v2", "llama.cpp", "Qwen3"), Latin names inside
CJK text ("Chroma 是..."), terms in CJK quotation marks (「」《》), and numbers with a unit ("65 MB", "两毫秒").
They over-count a little (a capitalised word after a colon); the thresholds that use them allow for it.
"""

from __future__ import annotations

import re

from wikic.text.scripts import CJK
from wikic.text.specifics import UNITS, ordinary
from wikic.text.terms import fold

_WORD = re.compile(r"[A-Za-z][\w.+\-]*[\w+]|[A-Za-z]")
_CODE_LIKE = re.compile(r"\d|[a-z][A-Z]|[A-Za-z]\.[A-Za-z]|[A-Za-z]-[A-Za-z0-9]*\d")

_QUOTED = re.compile(r"[「《“『]([^」》”』\n]{1,30})[」》”』]")
_NUMERAL = "零一二两三四五六七八九十百千万亿"
_NUMBER_UNIT = re.compile(
    rf"(?<![\w.\-])(?:\d[\d,.]*\d|\d)[ \u00a0]?(?:%|[A-Za-z]{{1,12}}\b)"  # 65 MB, 2 ms, 96.6%
    rf"|(?:[{_NUMERAL}][十百千万亿]|[十百千万亿][{_NUMERAL}])[{_NUMERAL}]*[{CJK}]"  # 一万条, 二十个: not 一个, not 千问
    rf"|[{_NUMERAL}]+(?:毫秒|秒钟?|分钟|小时|年)"  # 两毫秒, 三年
)
_SENTENCE_START = re.compile(r"(?:^\s*[-*#>|]*\s*|[.!?:;。！？：；]\s*|\n\s*[-*#>|]*\s*)$")
_COMMON = frozenset(
    "a an the this that these those it its they there here he she we you i in on at for from to of by with as "
    "and or but if when while after before since both each every all some many most no not also however "
    "one two because although though unless besides once only just even yet still instead thus hence meanwhile "
    "today later "
    "now first next finally then so such which who what where why how is are was were be been has have had "
    "do does did can could will would may might must should neither nor".split()
)


def name_signals(text: str) -> list[str]:
    """The distinct things `text` looks like it names, in order of first appearance."""
    found: dict[str, str] = {}
    run: list[str] = []
    last_end = -1

    def flush() -> None:
        if run:
            name = " ".join(run)
            found.setdefault(fold(name), name)
            run.clear()

    for match in _WORD.finditer(text):
        word = match.group()
        start = match.start()
        gap = text[last_end:start] if last_end >= 0 else ""
        if run and (gap.strip() or "\n" in gap):
            flush()
        last_end = match.end()
        low = word.casefold()
        if low in UNITS:
            flush()
            continue
        if _CODE_LIKE.search(word) or (word.isupper() and len(word) > 1):
            flush()
            found.setdefault(fold(word), word)
            continue
        capitalised = word[0].isupper() and low not in _COMMON
        if capitalised and (
            run
            or not _SENTENCE_START.search(text[max(0, start - 40) : start])
            or _inside_cjk(text, start)
            # "Chroma is...": a sentence starts with it, the text never writes it in lower case, and writes it
            # more than once (a heading's "Short note" is no name)
            or (not ordinary(word, text) and not low.endswith("ing") and text.count(word) > 1)
        ):
            run.append(word)
            continue
        flush()
    flush()
    for match in _QUOTED.finditer(text):
        found.setdefault(fold(match.group(1)), match.group(1))
    for match in _NUMBER_UNIT.finditer(text):
        found.setdefault(fold(match.group()), match.group())
    return list(found.values())


def _inside_cjk(text: str, at: int) -> bool:
    """A Latin word right after CJK text ("我们测试了 Chroma") starts no sentence, whatever precedes it."""
    before = text[max(0, at - 3) : at].rstrip()
    return bool(before) and re.match(f"[{CJK}]", before[-1]) is not None
