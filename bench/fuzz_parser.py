"""Fuzz the Obsidian parser (not part of CI).

    python bench/fuzz_parser.py --seconds 600                 # atheris when installed, else the fallback
    python bench/fuzz_parser.py --seconds 600 --engine random # random-mutation loop, no extra package
    pip install atheris                                       # coverage-guided (libFuzzer), Linux wheels

Each input is a page's bytes. The target parses it the way lint does (`parse_note`) and checks what must
hold for any input, whatever its bytes:

- nothing raises (a bad page is a finding, never a crash);
- every link, heading and block id sits on a line of the file, at a column inside that line, and the
  link's text is found there (so `path:line:col` findings point at the right place);
- when the fast scanner accepts the body, as it is or masked, it agrees with markdown-it (links, headings and
  the problems it reports: empty and unclosed links);
- every link resolves (or not) against a small vault without raising, never to a path outside it;
- frontmatter that parses is a mapping with string keys.

It also times every input: one that takes more than `--slow` seconds per 100 KB is reported (a
quadratic scan is a hang on a big vault). Failures are written to `--out` (default bench/out/fuzz/)
as `crash-<sha1>.md`, with the traceback beside it; the summary at the end gives the engine, the
duration, the inputs run and the failures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

# Inputs that sit on the parser's edges: every link form and every construct that can hide one.
TOKENS = [
    "[[", "]]", "[[a]]", "[[a|b]]", "[[a#H]]", "[[a#^id]]", "[[#H]]", "![[img.png|100]]", "[[../x]]", "[[/abs]]",
    "[t](x.md)", "[t](<a b.md>)", "[t](x.md#h)", "![i](p.png)", "[x][ref]", "[ref]: x.md", "[^1]", "[^1]: n",
    "`", "``", "```", "~~~", "$", "$$", "%%", "<!--", "-->", "<div>", "</div>", "\\", "\\[", "|", "\\|",
    "---", "===", "***", "\n", "\n\n", "    ", "\t", "> ", "- ", "1. ", "# ", "###### ", "^block", " ^id",
    "<!-- wikic:begin facts:raw/a.md sha=1a2b3c4d -->", "<!-- wikic:end facts:raw/a.md -->",
    "title: x", "tags: [a, b]", "key: \"[[t]]\"", "&amp;", "&#91;", "\u00a0", "\u3000", "\u200b", "\ufeff",
    "日本語", "é", "e\u0301", "\x00", "\x01", "\r\n", "\r", "\ud7ff", "\U0001f600", "{", "}", "*", "_", "=",
]
SEEDS = [
    b"",
    b"# Title\n\nSee [[Page|alias]] and [t](Other%20Note.md).\n",
    b"---\ntitle: T\ntags: [a, b]\nrelated: \"[[x]]\"\n---\n# T\n\n[[a#H]] ![[b]]\n",
    b"---\ntitle: [unclosed\n---\nbody\n",
    b"\n---\ntitle: late\n---\n",
    b"```\n[[hidden]]\n```\n[[shown]]\n",
    b"%%\n[[hidden]]\n%%\n$$\n[[m]]\n$$\n<!-- [[c]] -->\n",
    b"| a | b |\n|---|---|\n| [[x\\|y]] | z |\n",
    b"> [!note] Callout\n> [[in quote]]\n- [ ] [[task]]\n",
    b"[[unclosed\n[[a]] [[b\n",
    b"\xff\xfe\x00a",
    b"caf\xe9 [[x]]\n",
]


def seed_corpus() -> list[bytes]:
    corpus = list(SEEDS)
    for folder in (ROOT / "tests" / "fixtures", ROOT / "example-vault"):
        for path in sorted(folder.rglob("*.md")):
            if ".wikic" in path.parts:
                continue
            data = path.read_bytes()
            corpus.append(data[:20_000])
    return corpus


# -- the target -----------------------------------------------------------------------------------------

FILES = ["entities/a.md", "entities/b.md", "concepts/x.md", "Page.md", "img.png", "sub/dir/Note.md", "日本語.md"]


class Failure(Exception):
    pass


def check(data: bytes) -> None:
    from wikic.vault.parse import (
        decode,
        fast_eligible,
        mask_markup,
        parse_note,
        scan_fast,
        scan_full,
    )
    from wikic.vault.resolve import Resolver

    note = parse_note("entities/fuzz.md", data)
    text, _ = decode("entities/fuzz.md", data)  # the text as lint reads it (newlines normalised, NUL as U+FFFD)
    if text is None:
        if note.links or note.headings:
            raise Failure("a page that cannot be read as text has links or headings")
        return
    lines = text.split("\n")
    fm = note.frontmatter
    if fm is not None and (not isinstance(fm, dict) or not all(isinstance(k, str) for k in fm)):
        raise Failure(f"frontmatter is not a mapping with string keys: {type(fm).__name__}")
    for link in note.links:
        if not 1 <= link.line <= len(lines):
            raise Failure(f"link {link.raw!r} on line {link.line} of a {len(lines)}-line page")
        line = lines[link.line - 1]
        if link.kind != "frontmatter":
            if not 1 <= link.column <= len(line):
                raise Failure(f"link {link.raw!r} at column {link.column} of a {len(line)}-char line")
            first = link.raw.split("\n", 1)[0]
            if not line[link.column - 1 :].startswith(first):
                raise Failure(f"link {link.raw!r} is not at line {link.line} column {link.column}: {line!r}")
    for heading in note.headings:
        if not 1 <= heading.line <= len(lines):
            raise Failure(f"heading on line {heading.line} of a {len(lines)}-line page")
    for block in note.blocks:
        if not 1 <= block.line <= len(lines) or f"^{block.id}" not in lines[block.line - 1]:
            raise Failure(f"block ^{block.id} not on line {block.line}")
    for problem in note.problems:
        if problem.line is not None and not 1 <= problem.line <= len(lines) + 1:
            raise Failure(f"problem {problem.message!r} on line {problem.line} of a {len(lines)}-line page")

    body = "\n".join(lines[note.frontmatter_lines :]) if note.frontmatter_lines else text
    fast = scan_fast(body, 1) if fast_eligible(body) else None
    masked = mask_markup(body) if fast is None else None
    if masked is not None and fast_eligible(masked[0]):
        fast = scan_fast(masked[0], 1, masked[1])
    if fast is not None:
        full = scan_full(body, 1, body.split("\n"))
        if fast[0] != full[0] or fast[1] != full[1] or fast[2] != full[2]:
            raise Failure("the fast scanner and markdown-it disagree")

    resolver = Resolver([*FILES, "entities/fuzz.md"])
    for link in note.links:
        hit = resolver.resolve("entities/fuzz.md", link.target)
        if hit.path is not None and hit.path not in resolver.files:
            raise Failure(f"{link.target!r} resolved to {hit.path!r}, which is not a file of the vault")


# -- engines --------------------------------------------------------------------------------------------


class Recorder:
    def __init__(self, out: Path, slow: float) -> None:
        self.out = out
        self.slow = slow
        self.runs = 0
        self.failures: dict[str, str] = {}  # sha1 -> first line of the error
        self.slowest = (0.0, 0)  # (seconds per 100 KB, size)
        self.bytes = 0

    def run(self, data: bytes) -> bool:
        self.runs += 1
        self.bytes += len(data)
        started = time.perf_counter()
        try:
            check(data)
            error = None
        except Exception:  # noqa: BLE001 - every exception is a finding
            error = traceback.format_exc()
        seconds = time.perf_counter() - started
        per_100k = seconds / max(len(data), 1024) * 100_000
        if len(data) >= 4096 and per_100k > self.slowest[0]:
            self.slowest = (per_100k, len(data))
        if error is None and len(data) >= 4096 and per_100k > self.slow:
            error = f"slow: {seconds:.2f} s for {len(data)} bytes ({per_100k:.1f} s per 100 KB)"
        if error is not None:
            self.save(data, error)
            return False
        return True

    def save(self, data: bytes, error: str) -> None:
        digest = hashlib.sha1(data).hexdigest()
        if digest in self.failures:
            return
        self.failures[digest] = error.strip().splitlines()[-1]
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / f"crash-{digest}.md").write_bytes(data)
        (self.out / f"crash-{digest}.txt").write_text(error, encoding="utf-8")


def mutate(rng: random.Random, corpus: list[bytes]) -> bytes:
    data = bytearray(rng.choice(corpus))
    for _ in range(rng.randint(1, 8)):
        op = rng.randint(0, 7)
        at = rng.randint(0, len(data))
        if op <= 2:  # insert a token
            data[at:at] = rng.choice(TOKENS).encode("utf-8", "surrogatepass")
        elif op == 3 and data:  # flip a byte
            i = rng.randrange(len(data))
            data[i] = rng.randrange(256)
        elif op == 4 and data:  # delete a run
            del data[at : at + rng.randint(1, 16)]
        elif op == 5:  # splice another input
            other = rng.choice(corpus)
            start = rng.randint(0, len(other))
            data[at:at] = other[start : start + rng.randint(0, 200)]
        elif op == 6 and data:  # repeat a run (finds quadratic scans)
            start = rng.randrange(len(data))
            piece = bytes(data[start : start + rng.randint(1, 8)])
            data[at:at] = piece * rng.randint(2, 2000)
        else:  # a random short line of tokens
            data[at:at] = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 6))).encode("utf-8", "surrogatepass")
    return bytes(data[:200_000])


def run_random(seconds: float, recorder: Recorder, seed: int) -> None:
    rng = random.Random(seed)
    corpus = seed_corpus()
    deadline = time.monotonic() + seconds
    for data in corpus:
        recorder.run(data)
    while time.monotonic() < deadline:
        data = mutate(rng, corpus)
        if recorder.run(data) and rng.random() < 0.02 and len(corpus) < 5000:
            corpus.append(data)  # keep some survivors: mutations of mutations reach deeper


def _fuzzer_escape(token: str) -> str:
    """A libFuzzer dictionary value: printable ASCII as is, every other byte as \\xNN."""
    out = []
    for byte in token.encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        out.append(ch if 32 <= byte < 127 and ch not in '\\"' else f"\\x{byte:02x}")
    return "".join(out)


def run_atheris(seconds: float, recorder: Recorder, extra: list[str]) -> None:
    """libFuzzer ends the process when it is done, so it runs in a child that saves its counts as it goes."""
    import subprocess

    progress = recorder.out / "progress.json"
    progress.unlink(missing_ok=True)
    cmd = [sys.executable, __file__, "--_atheris-child", "--seconds", str(seconds), "--out", str(recorder.out),
           "--slow", str(recorder.slow), *extra]
    subprocess.run(cmd, check=False)
    try:
        saved = json.loads(progress.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    recorder.runs = int(saved.get("runs", 0))
    recorder.bytes = int(saved.get("bytes", 0))
    recorder.failures = dict(saved.get("failures", {}))
    recorder.slowest = tuple(saved.get("slowest", (0.0, 0)))  # type: ignore[assignment]


def atheris_child(seconds: float, recorder: Recorder, extra: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["wikic"]):
        import wikic.vault.frontmatter
        import wikic.vault.parse
        import wikic.vault.resolve  # noqa: F401

    progress = recorder.out / "progress.json"
    last = [0.0]

    def save() -> None:
        state = {"runs": recorder.runs, "bytes": recorder.bytes, "failures": recorder.failures,
                 "slowest": list(recorder.slowest)}
        tmp = progress.with_suffix(".tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")
        os.replace(tmp, progress)

    def one_input(data: bytes) -> None:
        recorder.run(data)  # every failure is saved and counted; libFuzzer keeps going
        now = time.monotonic()
        if now - last[0] > 2:
            last[0] = now
            save()

    corpus_dir = recorder.out / "corpus"
    corpus_dir.mkdir(parents=True, exist_ok=True)
    for data in seed_corpus():
        (corpus_dir / hashlib.sha1(data).hexdigest()).write_bytes(data)
    dict_file = recorder.out / "parser.dict"
    dict_file.write_text("".join(f'"{_fuzzer_escape(t)}"\n' for t in TOKENS if t))
    args = [sys.argv[0], f"-max_total_time={int(seconds)}", "-max_len=65536", "-timeout=30", "-rss_limit_mb=4096",
            f"-dict={dict_file}", "-print_final_stats=1", *extra, str(corpus_dir)]
    import atexit

    atexit.register(save)
    atheris.Setup(args, one_input)
    atheris.Fuzz()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--engine", choices=("auto", "atheris", "random"), default="auto")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "fuzz")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--slow",
        type=float,
        default=20.0,
        help="seconds per 100 KB that count as a hang (atheris instrumentation slows the parser several times)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--_atheris-child", dest="child", action="store_true", help=argparse.SUPPRESS)
    args, extra = parser.parse_known_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.child:
        atheris_child(args.seconds, Recorder(args.out, args.slow), extra)
        return 0

    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401

            engine = "atheris"
        except ImportError:
            engine = "random"
    recorder = Recorder(args.out, args.slow)
    started = time.monotonic()
    if engine == "atheris":
        run_atheris(args.seconds, recorder, extra)
    else:
        run_random(args.seconds, recorder, args.seed)
    report(engine, started, recorder, args.json)
    return 1 if recorder.failures else 0


def report(engine: str, started: float, recorder: Recorder, as_json: bool) -> None:
    summary = {
        "engine": engine,
        "seconds": round(time.monotonic() - started, 1),
        "inputs": recorder.runs,
        "megabytes": round(recorder.bytes / 1e6, 1),
        "failures": len(recorder.failures),
        "failure_kinds": sorted(set(recorder.failures.values()))[:20],
        "slowest_s_per_100kb": round(recorder.slowest[0], 3),
        "out": str(recorder.out),
    }
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    sys.exit(main())
