#!/usr/bin/env python3
"""Compiled parsers and codecs a cold `wikic lint` could use, timed against what it uses, on one vault.

    python bench/parser_candidates.py                          # the 10,000-page bench vault (lint_bench.py makes it)
    python bench/parser_candidates.py --vault DIR --reps 5
    pip install markdown-it-pyrs pyromark orjson rtoml         # the candidates; a missing one is skipped

Every figure is CPU seconds (the minimum of --reps runs) of this process over the vault's linted pages, held
in memory first (no disk in the timings), with the cyclic collector paused as lint pauses it:

* parsing: wikic's `parse_note` (fast scanner, masking, markdown-it where they decline: what lint runs), its
  reference (markdown-it-py with wikic's Obsidian rules, on a sample, scaled), markdown-it-pyrs (markdown-it.rs,
  CommonMark with tables, strikethrough and footnotes: no wikilink, math or `%%` rule), pyromark (pulldown-cmark
  with wikilinks, math, tables, footnotes, strikethrough) with and without source ranges. A parse alone, before
  any link is taken out of its tokens. For pyromark, the pages whose links (their line and column) differ from
  wikic's, which markdown-it-py holds to Obsidian's reading;
* the parse cache's rows (`wikic/vault/note_json.py`): the standard library's json, orjson, msgspec;
* wikic.toml: tomllib against rtoml.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from wikic.vault import note_json  # noqa: E402
from wikic.vault.load import linted_note, walk  # noqa: E402
from wikic.vault.model import FRONTMATTER  # noqa: E402
from wikic.vault.parse import parse_note  # noqa: E402
from wikic.vault.parse.reference import markdown  # noqa: E402
from wikic.vault.schema_md import load as load_schema  # noqa: E402


def cpu(fn: Callable[[], Any], reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def pyromark_positions(text: str, options: Any) -> set[tuple[int, int]]:
    import pyromark

    starts = []
    for event, span in pyromark.events_with_range(text, options=options):
        start = event.get("Start") if isinstance(event, dict) else None
        if isinstance(start, dict) and ("Link" in start or "Image" in start):
            link = start.get("Link") or start.get("Image")
            url = link["dest_url"]
            if link["link_type"] != "Inline" or not (":" in url.split("/")[0] or url.startswith("//")):
                starts.append(span["start"])
    out = set()
    for offset in starts:
        line = text.count("\n", 0, offset) + 1
        out.add((line, offset - (text.rfind("\n", 0, offset) + 1) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, default=HERE / "out" / "vault-wiki-10000-l10-s1")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sample", type=int, default=1000, help="pages markdown-it-py parses (it is slow)")
    a = ap.parse_args()
    gc.disable()  # as lint runs: the collector would walk the millions of parsed objects again and again
    root = a.vault
    files, _ = walk(root)
    schema = load_schema(root)
    pages = []
    for path in sorted(p for p in files if linted_note(p, schema)):
        data = (root / path).read_bytes()
        try:
            pages.append((path, data, data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    texts = [text for _, _, text in pages]
    n = len(pages)
    print(f"{root.name}: {n} UTF-8 pages, {sum(map(len, texts)) / 1e6:.1f} M characters, {a.reps} runs each\n")
    rows: list[tuple[str, float, str]] = []

    notes = [parse_note(path, data) for path, data, _ in pages]
    markdown()  # imported and built outside the timings
    rows.append(("wikic parse_note (what lint runs)", cpu(lambda: [parse_note(p, d) for p, d, _ in pages], a.reps),
                 "frontmatter, links with line and column, headings, block ids"))
    sample = texts[: a.sample]
    ref = cpu(lambda: [markdown().parse(t) for t in sample], 1) * n / len(sample)
    rows.append(("markdown-it-py + wikic rules (reference)", ref, f"tokens only; {len(sample)} pages, scaled"))
    if have("markdown_it_pyrs"):
        import markdown_it_pyrs

        md = markdown_it_pyrs.MarkdownIt("commonmark").enable_many(["table", "strikethrough", "footnote"])
        with_wikilinks = sum(1 for t in texts if "[[" in t)
        rows.append(("markdown-it-pyrs tree", cpu(lambda: [md.tree(t) for t in texts], a.reps),
                     f"nodes only; reads no wikilink ({with_wikilinks} pages hold one), math or %% comment"))
    if have("pyromark"):
        import pyromark

        o = pyromark.Options
        opts = o.ENABLE_TABLES | o.ENABLE_MATH | o.ENABLE_WIKILINKS | o.ENABLE_FOOTNOTES | o.ENABLE_STRIKETHROUGH
        rows.append(("pyromark events, no ranges", cpu(lambda: [tuple(pyromark.events(t, options=opts))
                                                               for t in texts], a.reps), "no line numbers"))
        rows.append(("pyromark events with ranges", cpu(lambda: [tuple(pyromark.events_with_range(t, options=opts))
                                                                for t in texts], a.reps), "events only"))
        differ = 0
        for (_, _, text), note in zip(pages, notes, strict=True):
            ours = {(lk.line, lk.column) for lk in note.links if lk.kind != FRONTMATTER}
            body = "\n" * note.frontmatter_lines + "\n".join(text.split("\n")[note.frontmatter_lines:])
            if pyromark_positions(body.replace("\r\n", "\n"), opts) != ours:
                differ += 1
        rows[-1] = (rows[-1][0], rows[-1][1], f"events only; links differ from wikic's on {differ} pages")

    print(f"{'parser':<44}{'CPU s':>8}  note")
    for name, seconds, note in rows:
        print(f"{name:<44}{seconds:>8.3f}  {note}")

    rows_out = [note_json.encode(note, 1, 2) for note in notes]
    encoded = [r for r in rows_out if r]
    joined = b"[" + b",".join(encoded) + b"]"
    tagged = [[note.path, 1, 2, note._replace(frontmatter=note_json._tagged(note.frontmatter))
               if note.frontmatter else note] for note, r in zip(notes, rows_out, strict=True) if r]
    codecs: list[tuple[str, float, float]] = []
    std = note_json._Stdlib()
    codecs.append(("json (standard library)", cpu(lambda: [std.encode(t) for t in tagged], a.reps),
                   cpu(lambda: std.decode(joined), a.reps)))
    if have("orjson"):
        import orjson

        def plain(value: Any) -> Any:
            return list(value) if isinstance(value, tuple) else value

        codecs.append(("orjson (tuples as lists, then wikic's tuples)",
                       cpu(lambda: [orjson.dumps(t, default=plain) for t in tagged], a.reps),
                       cpu(lambda: [(p, s, m, note_json._note_from(x)) for p, s, m, x in orjson.loads(joined)],
                           a.reps)))
    if have("msgspec"):
        fast = note_json._codec.__wrapped__()
        codecs.append(("msgspec (typed: straight into the tuples)", cpu(lambda: [fast.encode(t) for t in tagged],
                                                                        a.reps), cpu(lambda: fast.decode(joined),
                                                                                     a.reps)))
    print(f"\n{'parse cache rows (' + str(len(encoded)) + ')':<44}{'encode':>8}{'decode':>8}")
    for name, enc, dec in codecs:
        print(f"{name:<44}{enc:>8.3f}{dec:>8.3f}")

    toml = root / "wikic.toml"
    if toml.is_file():
        import tomllib

        text = toml.read_text(encoding="utf-8")
        line = f"\nwikic.toml ({len(text)} characters): tomllib {cpu(lambda: tomllib.loads(text), a.reps) * 1e6:.0f} µs"
        if have("rtoml"):
            import rtoml

            line += f", rtoml {cpu(lambda: rtoml.loads(text), a.reps) * 1e6:.0f} µs"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
