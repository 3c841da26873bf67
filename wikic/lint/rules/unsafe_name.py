"""unsafe-name: a file name Obsidian links or some operating system cannot handle."""

from __future__ import annotations

import re
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule

_UNSAFE = re.compile(r"[#^\[\]|\\:*?\"<>%]")


def unsafe_name(ctx: LintContext) -> Iterator[Finding]:
    for path in sorted(ctx.vault.files):
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


RULE = Rule(
    "unsafe-name",
    "warning",
    "a file name Obsidian links or some operating system cannot handle",
    needs_schema=False,
    check=unsafe_name,
)
