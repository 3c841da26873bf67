"""Text from outside wikic (an assistant's tool call: a memory, a reason) made fit to be written into a note:
no NUL or other control character, no terminal colour codes, no lone surrogate (which UTF-8 cannot carry).

What is left reads as it was meant: a NUL between the characters of a word (text that went through UTF-16)
gives the word back, a colour code its coloured text. Line breaks (any convention) become `\\n`; tabs stay.
"""

from __future__ import annotations

import re

# CSI sequences (`ESC [ ... letter`: colours, cursor moves) and OSC ones (`ESC ] ... BEL` or `ESC ] ... ESC \`)
_TERMINAL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def without_controls(text: str) -> str:
    """`text` without control characters (but line breaks and tabs), terminal escape sequences and lone
    surrogates (each becomes U+FFFD, the replacement character)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _TERMINAL.sub("", text)
    text = _CONTROL.sub("", text)
    return _SURROGATE.sub("\ufffd", text)
