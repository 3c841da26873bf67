"""File rules: encoding, unsafe-path, unsafe-name, case-collision, raw-drift."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.registry import rule
from wikic.vault.layout import RAW_DIR
from wikic.vault.resolve import fold_name

_UNSAFE = re.compile(r"[#^\[\]|\\:*?\"<>%]")


@rule("encoding", "error", "a page that is not UTF-8 text, or a binary file where a page should be")
def encoding(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("encoding")


@rule("unsafe-path", "error", "a symbolic link leading outside the vault, or a file that cannot be read")
def unsafe_path(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("unsafe-path")


@rule("unsafe-name", "warning", "a file name Obsidian links or some operating system cannot handle")
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


@rule("case-collision", "error", "two files whose paths differ only in case (they collide on macOS and Windows)")
def case_collision(ctx: LintContext) -> Iterator[Finding]:
    seen: dict[str, str] = {}
    for path in sorted(ctx.vault.files):
        key = fold_name(path)
        if key in seen:
            yield ctx.finding(
                "case-collision",
                path,
                None,
                f"differs from '{seen[key]}' only in case: the two collide on macOS and Windows",
                target=seen[key],
            )
        else:
            seen[key] = path


@rule(
    "raw-drift",
    "error",
    "a raw source changed or vanished after it was captured (raw/ is immutable)",
    needs_schema=True,
)
def raw_drift(ctx: LintContext) -> Iterator[Finding]:
    for raw_path, entry in sorted(ctx.ledger.items()):
        expected = entry.get("sha256")
        if not isinstance(expected, str) or not raw_path.startswith(RAW_DIR + "/"):
            continue
        if raw_path not in ctx.vault.files:
            yield ctx.finding(
                "raw-drift",
                raw_path,
                None,
                "captured source is gone from raw/ (pages citing it lose their ground truth)",
            )
            continue
        try:
            digest = hashlib.sha256((ctx.vault.root / raw_path).read_bytes()).hexdigest()
        except OSError:
            continue
        if digest != expected:
            yield ctx.finding(
                "raw-drift",
                raw_path,
                None,
                (
                    "source changed after it was captured (sha256 differs from the ledger); capture the new version "
                    "as a new source instead"
                ),
            )
