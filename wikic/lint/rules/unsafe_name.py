"""unsafe-name: a file name Obsidian links or some operating system cannot handle: a character links or
Windows refuse, a space or dot at either end, a device name Windows reserves (`con.md`, `COM0.md`).

Why: such a name cannot be linked in Obsidian, or cannot be checked out on Windows.

Example: `entities/what?.md`, `entities/ acme.md` or `con.md`.

Fix: rename the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.vault.slug import WINDOWS_RESERVED

_UNSAFE = re.compile(r"[#^\[\]|\\:*?\"<>%]")
_SUPERSCRIPTS = str.maketrans("¹²³", "123")  # Windows reads COM¹ as COM1 (and no other superscript)
# A path no part of which can be reported is told by one search of it: no character links break on, no part
# that starts with a space or ends with a space or a dot, none that starts as a device name does (most paths).
_MAYBE = re.compile(
    rf"{_UNSAFE.pattern}|(?:^|/) |[ .](?:/|$)|(?:^|/)(?:{'|'.join(sorted({n[:3] for n in WINDOWS_RESERVED}))})",
    re.IGNORECASE,
)


def windows_device(part: str) -> str | None:
    """The device name Windows reserves that `part` (a file or folder name) is, whatever its extension
    (`con.md`, `COM0.md`, `lpt¹.txt`, `nul`), or None."""
    stem = part.split(".", 1)[0].rstrip(" ").translate(_SUPERSCRIPTS).lower()
    return stem.upper() if stem in WINDOWS_RESERVED else None


def unsafe_name(ctx: LintContext) -> Iterator[Finding]:
    for path in sorted(ctx.vault.files):
        if _MAYBE.search(path):  # most paths: one search, no generator
            yield from unsafe_at(ctx, path)


def unsafe_at(ctx: LintContext, path: str) -> Iterator[Finding]:
    """The finding on one path, if any."""
    if _MAYBE.search(path):
        for part in path.split("/"):
            bad = sorted(set(_UNSAFE.findall(part)))
            if bad:
                yield ctx.finding(
                    "unsafe-name",
                    path,
                    None,
                    f"'{part}' contains {' '.join(bad)}: links to it may not work in Obsidian or on Windows",
                )
                break
            if part != part.rstrip(" .") or part != part.lstrip(" "):
                yield ctx.finding(
                    "unsafe-name", path, None, f"'{part}' starts or ends with a space or dot: Windows cannot hold it"
                )
                break
            device = windows_device(part)
            if device is not None:
                yield ctx.finding(
                    "unsafe-name", path, None, f"'{part}' is {device}, a device name: Windows cannot hold it"
                )
                break


RULE = Rule(
    "unsafe-name",
    "warning",
    "a file name Obsidian links or some operating system cannot handle",
    needs_schema=False,
    check=unsafe_name,
)
