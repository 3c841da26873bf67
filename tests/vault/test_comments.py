"""The comments a page's plain text is read without (`<!-- -->`, `%% %%`) are found in one pass: exactly where
the lazy pattern finds them from left to right, on one line or across lines, and in time that grows with the
text, however many openers it holds that nothing closes."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from wikic.vault import comments
from wikic.vault.comments import comment_spans, replace_comments

ON_A_LINE = re.compile(r"<!--.*?-->|%%.*?%%")
ACROSS_LINES = re.compile(r"<!--.*?-->|%%.*?%%", re.DOTALL)
TEXT = st.lists(st.sampled_from(["<!--", "-->", "%%", "%", "<", "!", "-", ">", "--", "a", " ", "\n", "<!-->"]),
                max_size=30).map("".join)


@given(TEXT)
def test_comments_are_where_the_lazy_pattern_finds_them(text: str) -> None:
    assert comment_spans(text) == [m.span() for m in ON_A_LINE.finditer(text)]
    assert comment_spans(text, across_lines=True) == [m.span() for m in ACROSS_LINES.finditer(text)]
    assert replace_comments(text, lambda width: "." * width) == ON_A_LINE.sub(lambda m: "." * len(m[0]), text)
    assert replace_comments(text, lambda width: " ", across_lines=True) == ACROSS_LINES.sub(" ", text)


def test_a_line_of_unclosed_openers_is_read_once() -> None:
    """50,000 `<!--` that nothing closes, beside `%%` pairs: the text is searched a bounded number of times
    per character, not once per opener to the line's end (the pattern takes minutes on this line)."""
    text = "<!-- %%a%% " * 50_000 + "\n" + "%%" * 1000
    searched = 0
    real = str.find

    class Counting(str):
        def find(self, sub: str, *args: int) -> int:  # type: ignore[override]
            nonlocal searched
            found = real(self, sub, *args)
            start = args[0] if args else 0
            searched += (found if found >= 0 else (args[1] if len(args) > 1 else len(self))) - start
            return found

    spans = comments.comment_spans(Counting(text))
    assert len(spans) == 50_000 + 500
    assert searched < 4 * len(text)
