"""Data URLs (`data:image/png;base64,iVBOR...`) left out of text read as text: a screenshot pasted into a note
is megabytes of base64 on one line, which no model can read and which would cost millions of tokens. Each
is replaced by its opening and a short note of what was left out, on the same line, so line numbers hold."""

from __future__ import annotations

import re

from wikic.text.archive import size_text

# A payload shorter than this costs little and may mean something (`data:text/plain,hello`).
MIN_PAYLOAD = 64

_DATA_URL = re.compile(
    # `data:` first, then that no word goes on before it ("metadata:"): a search for the literal is fast
    r"(?P<head>data:(?<![\w.+-]data:)(?:[\w.+-]+/[\w.+-]+)?(?:;[\w.+-]+=[\w.+%-]+)*(?:;base64)?,)"
    rf"(?P<payload>[^\s\"'()<>\[\]]{{{MIN_PAYLOAD},}})",
    re.IGNORECASE,
)


def without_data_urls(text: str) -> str:
    """`text` with the payload of every data URL replaced by `[N KB left out]`; newlines are never touched."""
    return _DATA_URL.sub(_placeholder, text)


def _placeholder(match: re.Match[str]) -> str:
    size = len(match["payload"])
    if match["head"].lower().endswith(";base64,"):
        size = size * 3 // 4  # what the base64 stands for
    return f"{match['head']}[{size_text(size)} left out]"
