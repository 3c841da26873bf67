"""Hostile pages: how long `wikic lint` takes on a vault holding one page built to stall a scanner.

    python bench/lint_hostile.py                              # every pattern at 300 KB, 3 runs each
    python bench/lint_hostile.py --kb 400 --only wikilink-open,comment-open
    python bench/lint_hostile.py --peer HEAD~3 --timeout 30   # also that commit's tree, run by run
    python bench/lint_hostile.py --list                       # the patterns and what each page holds

`wikic lint` runs as a pre-commit hook, so one page must not stall every commit: its time has to grow with
the page's size, whatever the page holds. Each pattern here is a page of one construct repeated (an opener
that is never closed, deep nesting, a very long line, many short lines, frontmatter YAML built to expand), the
kind of input on which a scanner that looks ahead from every opener to the line's or the page's end takes
quadratic time. A pattern is placed in a person's page after its title and lead (`page`), as the whole body of a
page (`bare`: the page rules look for a lead through all of it), in a compiler block that the page rules read
statement by statement (`block`), in the frontmatter (`frontmatter`), or in a comparison, whose every line a rule
of its own reads for the table it should hold (`comparison`, the patterns of many lines).

Every run is `wikic lint --format json` as a process, on a fresh vault (`wikic init`'s skeleton) holding that
one page, with no `.wikic/` state (cold). A run past `--timeout` is killed and shown as `>TIMEOUT`, one that
ends in a traceback as `crash`. The script prints the wall and CPU seconds of each pattern's run of least CPU
(of `--reps`), and writes the full results to bench/out/lint-hostile-*.json. On a machine shared with other
work the wall time is the CPU time plus the waits for a core, so the target is judged on the CPU time.
`tests/guarantees/test_linear_lint.py` grows the same pages 1x to 8x in one process and holds their time to
linear.

Target: every pattern under 2 s at 200-400 KB (CPU time; the wall time on an idle machine).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
TARGET_S = 2.0
MAX_FRONTMATTER = 240 * 1024
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

PAGE, BARE, BLOCK, FRONTMATTER, COMPARISON = "page", "bare", "block", "frontmatter", "comparison"


@dataclass(frozen=True)
class Pattern:
    name: str
    make: Callable[[int], str]  # the hostile text, about this many characters long
    where: str = PAGE

    @property
    def path(self) -> str:
        """Where the page goes in the vault: a comparison's table is read by a rule of its own."""
        return "comparisons/hostile.md" if self.where == COMPARISON else "entities/hostile.md"

    def page(self, size: int) -> str:
        """A whole subject page holding the hostile text of about `size` characters where the pattern says."""
        if self.where == FRONTMATTER:  # within the size lint reads a block of (256 KB)
            size = min(size, MAX_FRONTMATTER)
        text = self.make(size)
        if self.where == FRONTMATTER:
            return f"---\n{text}\n---\n# Hostile\n\nHostile is a page made to be slow to read.\n"
        if self.where == BARE:
            return f"---\ntitle: Hostile\n---\n{text}\n"
        head = "---\ntitle: Hostile\n---\n# Hostile\n\nHostile is a page made to be slow to read.\n\n"
        if self.where == BLOCK:
            return (f"{head}## Key facts\n\n<!-- wikic:begin section:key-facts sha=0123456789ab -->\n{text}\n"
                    "<!-- wikic:end section:key-facts -->\n")
        return f"{head}## Notes\n\n{text}\n"


def repeat(unit: str, head: str = "", tail: str = "") -> Callable[[int], str]:
    return lambda size: head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def nested_list(size: int) -> str:
    lines, total, depth = [], 0, 0
    while total < size:
        lines.append("  " * depth + "- [[a]] item")
        total += len(lines[-1]) + 1
        depth += 1
    return "\n".join(lines)


def nested_quotes(size: int) -> str:
    lines, total, depth = [], 0, 1
    while total < size:
        lines.append("> " * depth + "[[a]] said.")
        total += len(lines[-1]) + 1
        depth += 1
    return "\n".join(lines)


def yaml_laughs(size: int) -> str:
    """A billion laughs: nine levels of nine aliases each, in about 1 KB whatever `size`."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines)


def yaml_deep_block(size: int) -> str:
    lines, total, depth = [], 0, 0
    while total < size:
        lines.append("  " * depth + "a:")
        total += len(lines[-1]) + 1
        depth += 1
    lines[-1] += " x"
    return "\n".join(lines)


def _patterns() -> list[Pattern]:
    inline = {  # one line of an opener that nothing closes, or of a construct repeated
        "comment-open": repeat("<!--"),
        "comment-open-spaced": repeat("<!-- a "),
        "wikilink-open": repeat("[["),
        "wikilink-open-word": repeat("[[a "),
        "embed-open": repeat("![["),
        "embed-alias-open": repeat("![[a|"),
        "bracket": repeat("["),
        "bracket-close": repeat("]"),
        "bracket-word": repeat("[a "),
        "link-open": repeat("[a]("),
        "link-dest-open": repeat("]("),
        "link-angle-open": repeat("[a](<"),
        "link-close-then-open": repeat("]] [["),
        "footnote-open": repeat("^["),
        "footnote-ref-open": repeat("[^a", head="[^a]: a note\n\n<b>"),  # "<b>": markdown-it reads the page
        "anchor-open": repeat("^[[[a"),
        "backtick": repeat("`"),
        "backtick-word": repeat("`a "),
        "backtick-runs": repeat("`` ` ``` "),
        "dollar": repeat("$"),
        "dollar-word": repeat("$a "),
        "double-dollar": repeat("$$"),
        "double-dollar-word": repeat("$$a "),
        "percent": repeat("%"),
        "percent-pair-word": repeat("%%a "),
        "percent-open-once": repeat("a ", head="%%"),
        "claim-comment-open": repeat("%%claim "),
        "backslash": repeat("\\"),
        "backslash-bracket": repeat("\\[["),
        "entity-open": repeat("&a"),
        "less-than": repeat("<"),
        "tag-open": repeat("<a "),
        "autolink-open": repeat("<http:"),
        "star": repeat("*"),
        "star-word": repeat("*a "),
        "underscore": repeat("_"),
        "tilde": repeat("~~"),
        "pipe": repeat("|"),
        "hash": repeat("#"),
        "tag-word": repeat("#a "),
        "caret-word": repeat("^a "),
        "long-word": repeat("a"),
        "spaces": repeat(" ", tail="x"),
        "long-sentence": repeat("word "),
        "sentences": repeat("A b. "),
        "abbreviations": repeat("e.g. "),
        "nested-brackets": lambda size: "[" * (size // 2) + "]" * (size // 2),
        "nested-wikilinks": lambda size: "[[" * (size // 4) + "]]" * (size // 4),
        "nested-parens": lambda size: "[a](" + "(" * (size // 2) + ")" * (size // 2) + ")",
        "nested-stars": lambda size: "*" * (size // 2) + "a" + "*" * (size // 2),
        "nested-markers": repeat("- ", tail="[[a]]"),
        "nested-quote-markers": repeat(">", tail=" [[a]]"),
    }
    lines = {  # many lines
        "short-lines": repeat("a\n"),
        "blank-lines": repeat("\n", head="a", tail="a"),
        "item-lines": repeat("- a\n"),
        "number-lines": repeat("1. a\n"),
        "comment-open-lines": repeat("<!--\n"),
        "comment-open-text-lines": repeat("<!-- a [[b]]\n"),
        "wikilink-open-lines": repeat("[[a\n"),
        "link-text-lines": repeat("[a]\n"),
        "fence-lines": repeat("```\n"),
        "fence-open-once": repeat("[[a]]\n", head="```\n"),
        "tilde-fence-lines": repeat("~~~a\n"),
        "math-lines": repeat("$$\n"),
        "math-open-once": repeat("[[a]]\n", head="$$\n"),
        "percent-lines": repeat("%%\n"),
        "percent-open-once-lines": repeat("[[a]]\n", head="%%\n"),
        "indented-lines": repeat("    a\n"),
        "indented-after-blank": repeat("\n    [[a]]\n"),
        "indented-after-list": repeat("\n```\n```\n\n    [[a]]\n", head="- x\n\nText\n"),
        "heading-lines": repeat("# a\n"),
        "section-lines": repeat("## a\n"),
        "setext-lines": repeat("a\n=\n"),
        "quote-lines": repeat("> a\n"),
        "callout-lines": repeat("> [!note] a\n"),
        "callout-open-lines": repeat("> [!\n"),
        "table-rows": repeat("| [[a]] | b |\n", head="| a | b |\n|---|---|\n"),
        "table-lines": repeat("|a|\n|-|\n\n"),
        "delimiter-lines": repeat("|-|\n"),
        "definition-lines": repeat("[a]: b\n"),
        "footnote-lines": repeat("[^a]: b\n"),
        "block-id-lines": repeat("a ^b\n"),
        "begin-marker-lines": repeat("<!-- wikic:begin section:x sha=0123456789ab -->\n"),
        "end-marker-lines": repeat("<!-- wikic:end section:x -->\n"),
        "claim-lines": repeat("- a ^c01234567\n"),
        "claims-begin-lines": repeat("<!-- wikic:begin claims sha=0123456789ab -->\n", head="- a ^c01234567\n"),
        "summary-begin-lines": repeat("<!-- wikic:begin summary sha=0123456789ab -->\n"),
        "closed-blocks": repeat("<!-- wikic:begin section:x sha=0123456789ab -->\nA b.\n"
                                "<!-- wikic:end section:x -->\n"),
        "wikilink-open-link-lines": repeat("[[ [a](b)\n"),
        "anchor-lines": repeat("A b. ^[[[raw/a.md|a.md]] L1]\n"),
        "nested-list": nested_list,
        "nested-quotes": nested_quotes,
    }
    frontmatter = {
        "yaml-laughs": yaml_laughs,
        "yaml-recursive-alias": lambda size: "tags: &t [a, *t]",
        "yaml-deep-flow": lambda size: "a: " + "[" * (size // 2) + "]" * (size // 2),
        "yaml-deep-flow-map": lambda size: "a: " + "{a: " * (size // 4) + "}" * (size // 4),
        "yaml-deep-block": yaml_deep_block,
        "yaml-long-value": repeat("a ", head="summary: "),
        "yaml-many-keys": lambda size: "\n".join(f"k{i}: v" for i in range(size // 9)),
        "yaml-wikilinks": repeat("[[a]] ", head='related: "', tail='"'),
        "yaml-comment-summary": repeat("<!--", head='summary: "', tail='"'),
        "yaml-long-list": repeat("a, ", head="tags: [", tail="a]"),
        "yaml-wrapped-list": repeat("\n  a,", head="tags: [", tail="\n  a]"),
        "yaml-unquoted-links": lambda size: "\n".join(f"k{i}: [[a]]" for i in range(size // 14)),
        "yaml-escaped-links": lambda size: "\n".join(f'k{i}: "[[\\x61]]"' for i in range(size // 18)),
        "yaml-spaces-in-list": repeat(" ", head="tags: [a", tail="b]"),
    }
    out = [Pattern(name, make, where) for where in (BARE, PAGE, BLOCK) for name, make in (inline | lines).items()]
    out += [Pattern(name, make, FRONTMATTER) for name, make in frontmatter.items()]
    out += [Pattern(name, make, COMPARISON) for name, make in (lines | {"spaces": inline["spaces"]}).items()]
    return out


PATTERNS = _patterns()


def key(pattern: Pattern) -> str:
    return f"{pattern.where}:{pattern.name}"


# -- the runs ----------------------------------------------------------------------------------------------


class Linter:
    """One wikic to time: this tree, or a commit's tree run from source with this venv's Python."""

    def __init__(self, name: str, env: dict[str, str], cwd: Path) -> None:
        self.name, self.env, self.cwd = name, env, cwd

    def run(self, vault: Path, timeout: float) -> tuple[float, float] | str:
        """(wall, CPU) seconds of one cold `wikic lint` of `vault`, or "timeout" or "crash"."""
        shutil.rmtree(vault / ".wikic", ignore_errors=True)
        cmd = [sys.executable, "-c", "from wikic.cli import main; main()", "lint", "--format", "json", str(vault)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=self.env, cwd=self.cwd)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return "timeout"
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 1) or b"Traceback" in err:
            print(f"{self.name}: wikic lint failed (exit {proc.returncode}): {err.decode()[-300:]!r}", flush=True)
            return "crash"
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(runs: list[tuple[float, float] | str]) -> tuple[float, float] | str:
    """The run of least CPU time, or what went wrong in any of them."""
    failed = [r for r in runs if isinstance(r, str)]
    return failed[0] if failed else min((r for r in runs if not isinstance(r, str)), key=lambda r: r[1])


def over_target(result: tuple[float, float] | str) -> bool:
    return isinstance(result, str) or result[1] >= TARGET_S


def shown(result: tuple[float, float] | str, timeout: float) -> str:
    if result == "timeout":
        return f">{timeout:g} s"
    return result if isinstance(result, str) else f"{result[0]:.2f} s ({result[1]:.2f})"


def linters(peer: str | None, scratch: Path) -> list[Linter]:
    env = {**os.environ, **SINGLE_THREAD, "PYTHONPATH": str(REPO)}
    out = [Linter("this tree", env, scratch)]
    if peer:
        tree = scratch / "peer"
        tree.mkdir()
        data = subprocess.run(["git", "-C", str(REPO), "archive", peer], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tree, filter="data")
        out.append(Linter(peer, {**env, "PYTHONPATH": str(tree)}, scratch))
    return out


def make_vault(scratch: Path) -> Path:
    vault = scratch / "vault"
    subprocess.run([sys.executable, "-c", "from wikic.cli import main; main()", "init", str(vault)], check=True,
                   stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=scratch)
    return vault


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb", type=int, default=300, help="size of each hostile text in KB (default 300)")
    ap.add_argument("--reps", type=int, default=3, help="runs of each pattern; the minimum is shown (default 3)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a run is killed (default 60)")
    ap.add_argument("--only", default="", help="comma-separated pattern names (any placement)")
    ap.add_argument("--where", default="", help="only this placement: bare, page, block, frontmatter or comparison")
    ap.add_argument("--peer", default="", help="also time this commit's tree, run by run with this one")
    ap.add_argument("--json", type=Path, default=None, help="write the results here too")
    ap.add_argument("--list", action="store_true", help="list the patterns and the start of each page")
    args = ap.parse_args(argv)
    chosen = [p for p in PATTERNS if (not args.only or p.name in args.only.split(","))
              and (not args.where or p.where == args.where)]
    if args.list:
        for p in chosen:
            print(f"{key(p):40} {p.make(60)[:60]!r}")
        return 0
    size = args.kb * 1024
    results: dict[str, dict[str, tuple[float, float] | str]] = {}
    with tempfile.TemporaryDirectory(prefix="lint-hostile-") as tmp:
        scratch = Path(tmp)
        runners = linters(args.peer or None, scratch)
        vault = make_vault(scratch)
        names = [r.name for r in runners]
        print(f"{'pattern':44}" + "".join(f"{n:>22}" for n in names)
              + f"   ({args.kb} KB; wall (CPU) of the run of least CPU of {args.reps})")
        for p in chosen:
            for other in {q.path for q in PATTERNS}:
                (vault / other).unlink(missing_ok=True)  # one hostile page at a time
            (vault / p.path).write_text(p.page(size), encoding="utf-8")
            runs: dict[str, list[tuple[float, float] | str]] = {n: [] for n in names}
            for _ in range(args.reps):
                for r in runners:
                    if not any(isinstance(x, str) for x in runs[r.name]):  # one timeout or crash is enough
                        runs[r.name].append(r.run(vault, args.timeout))
            results[key(p)] = {n: best(t) for n, t in runs.items()}
            slow = over_target(results[key(p)][names[0]])
            print(f"{key(p):44}" + "".join(f"{shown(b, args.timeout):>22}" for b in results[key(p)].values())
                  + ("   over target" if slow else ""), flush=True)
    over = [k for k, b in results.items() if over_target(b[names[0]])]
    print(f"\n{len(results) - len(over)} of {len(results)} patterns under {TARGET_S:g} s of CPU"
          + (f"; over: {', '.join(over)}" if over else ""))
    record = {"when": dt.datetime.now().isoformat(timespec="seconds"), "kb": args.kb, "reps": args.reps,
              "timeout_s": args.timeout, "loadavg": os.getloadavg(), "results": results}
    OUT.mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    for path in filter(None, (OUT / f"lint-hostile-{stamp}.json", args.json)):
        path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
