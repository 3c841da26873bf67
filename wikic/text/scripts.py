"""The East Asian scripts wikic treats apart, defined once.

Chinese and Japanese are written without spaces between words, so search cuts them into character bigrams,
quote anchoring compares them character by character, and the token estimate counts about one token per
character. Korean (Hangul) has spaces but dense syllables: it is a word run for anchoring, bigrams for search.
"""

from __future__ import annotations

import re

Range = tuple[int, int]  # first and last code point, inclusive

KANA: Range = (0x3040, 0x30FF)  # Hiragana, Katakana
HAN: tuple[Range, ...] = (
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
)
HANGUL: Range = (0xAC00, 0xD7AF)  # Hangul Syllables
FULLWIDTH: Range = (0xFF00, 0xFFEF)  # Halfwidth and Fullwidth Forms
CJK_PUNCTUATION: Range = (0x3000, 0x303F)  # CJK Symbols and Punctuation


def char_class(*ranges: Range) -> str:
    """The body of a regular-expression character class matching `ranges` (`[{char_class(...)}]`)."""
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ranges)


def within(code: int, span: Range) -> bool:
    return span[0] <= code <= span[1]


# Scripts written without spaces between words: Han and kana. Each character is a word of its own.
UNSPACED = char_class(KANA, *HAN)
# Every script search cuts into character bigrams: the unspaced ones and Hangul.
CJK = char_class(KANA, *HAN, HANGUL)
# What a BPE tokenizer spends about one token per character on: CJK plus the full-width forms.
DENSE = char_class(KANA, *HAN, HANGUL, FULLWIDTH)


_CJK_CHAR = re.compile(f"[{CJK}]")


def has_cjk(text: str) -> bool:
    """Whether `text` holds a character search reads as CJK (matched by substring, not by words)."""
    return _CJK_CHAR.search(text) is not None
