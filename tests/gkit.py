"""What the guarantee tests share: a small scripted corpus, vaults wired to the stand-in model, `wikic` run
as a real process, and the invariants checked after every fault.

`WIKIC_LONG_TESTS=1` raises the iteration counts (kill points, processes, hypothesis examples); the
default counts keep the whole folder within a few minutes on two busy cores.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
LONG = os.environ.get("WIKIC_LONG_TESTS", "") not in ("", "0")


def kill_points(steps: int, seed: int, sample: int) -> list[int]:
    """The write steps a crash test kills a run before: every one under WIKIC_LONG_TESTS, else `sample` of them
    chosen by `seed` (replayed with WIKIC_TEST_SEED)."""
    if LONG:
        return list(range(1, steps + 1))
    return sorted(random.Random(seed).sample(range(1, steps + 1), min(sample, steps)))


def count(ci: int, long: int) -> int:
    """An iteration count: `ci` by default, `long` with WIKIC_LONG_TESTS=1."""
    return long if LONG else ci


# -- a scripted corpus ----------------------------------------------------------------------------------
# Source k names the shared company (promoted to a page by the second source: the mentions ledger is part
# of the state under test), its own project and the previous one (so every project but the last reaches
# the threshold), a person (mentioned once: waits in the ledger) and one of three methods (concepts).


def source_text(k: int, tag: str = "") -> str:
    prev = f"Project {tag}{k - 1}" if k else f"Project {tag}{k}"
    return (
        f"# Note {tag}{k} on Project {tag}{k}\n\n"
        f"Acme Corp builds widget number {tag}{k} in its plant.\n"
        f"Project {tag}{k} was started by Person {tag}{k} in spring.\n"
        f"{prev} shares a test rig with Project {tag}{k}.\n"
        f"Method M{k % 3} is used to measure the widget.\n"
        f"Method M{k % 3} needs a calibrated rig.\n"
        f"Method M{k % 3} reports a single score.\n"
    )


def sources(folder: Path, n: int, tag: str = "") -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(n):
        path = folder / f"note-{tag}{k}-on-project-{tag}{k}.md"  # named as its title: "# Note 3 on Project 3"
        path.write_text(source_text(k, tag), encoding="utf-8")
        out.append(str(path))
    return out


def _fact(text: str, quote: str) -> dict[str, str]:
    return {"text": text, "quote": quote}


def plan_for(user: str) -> dict[str, Any]:
    m = re.search(r"# Note (\S*?)(\d+) on Project", user)
    if not m:
        return {"summary": "nothing", "entities": [], "concepts": [], "comparisons": [], "relations": []}
    tag, k = m.group(1), int(m.group(2))
    prev = f"Project {tag}{k - 1}" if k else f"Project {tag}{k}"
    me = f"Project {tag}{k}"
    method = f"Method M{k % 3}"
    entities = [
        {
            "name": "Acme Corp",
            "kind": "organization",
            "aliases": ["Acme"],
            "summary": "A widget maker.",
            "facts": [
                _fact(f"Acme Corp builds widget {tag}{k}.", f"Acme Corp builds widget number {tag}{k} in its plant.")
            ],
        },
        {
            "name": me,
            "kind": "product",
            "aliases": [],
            "summary": f"A project started by Person {tag}{k}.",
            "facts": [_fact(f"{me} was started in spring.", f"{me} was started by Person {tag}{k} in spring.")],
        },
        {
            "name": f"Person {tag}{k}",
            "kind": "person",
            "aliases": [],
            "summary": "A person.",
            "facts": [_fact(f"Person {tag}{k} started {me}.", f"{me} was started by Person {tag}{k} in spring.")],
        },
    ]
    if prev != me:
        entities.append({"name": prev, "kind": "product", "aliases": [], "summary": "A project.",
                         "facts": [_fact(f"{prev} shares a rig with {me}.", f"{prev} shares a test rig with {me}.")]})
    concept = {
        "name": method,
        "summary": "A way to measure widgets.",
        "sections": [
            {
                "heading": "How it works",
                "facts": [_fact(f"{method} measures widgets.", f"{method} is used to measure the widget.")],
            },
            {
                "heading": "Trade-offs",
                "facts": [_fact(f"{method} needs a calibrated rig.", f"{method} needs a calibrated rig.")],
            },
            {
                "heading": "Variants",
                "facts": [_fact(f"{method} reports one score.", f"{method} reports a single score.")],
            },
        ],
    }
    relations = [{"source": f"Person {tag}{k}", "relation": "started", "target": me,
                  "quote": f"{me} was started by Person {tag}{k} in spring."}]
    return {
        "summary": f"Note {k}.",
        "entities": entities,
        "concepts": [concept],
        "comparisons": [],
        "relations": relations,
    }


ANSWER = "Acme Corp builds widgets [[acme-corp]]."


def route(body: dict[str, Any]) -> Any:
    """Extraction requests get the plan for their source, compose requests each claim as a sentence, answer (query)
    requests a short answer."""
    from standin_openai import composed_as_listed, is_answer_request, is_compose_request, reply

    if is_answer_request(body):
        return reply(ANSWER)
    if is_compose_request(body):
        return composed_as_listed(body)
    return plan_for(body["messages"][-1]["content"])


# -- vaults ---------------------------------------------------------------------------------------------


def make_vault(root: Path, base_url: str, *, threshold: int = 2, palace_url: str | None = None,
               extra_tags: Sequence[str] = ("organization", "product", "person", "model"),
               trusted: bool = False) -> Path:
    """A vault whose wikic.toml names the stand-in at `base_url`; `trusted`: its user trusts that endpoint with
    the API key from the environment (`wikic trust`, in the test's own config under its temporary HOME), which
    an endpoint only the vault names otherwise never gets."""
    from testkit import init_wiki, llm_toml

    from wikic.user_config import trust_endpoint

    if trusted:
        trust_endpoint(base_url)

    toml = llm_toml(base_url, timeout=60, concurrency=2) + '\n[embedding]\nprovider = "static"\n'
    if palace_url:
        toml += (
            f'\n[palace]\nurl = "{palace_url}"\ncollection = '
            f'"wiki_{hashlib.sha1(str(root).encode()).hexdigest()[:10]}"\n'
        )
    return init_wiki(root, min_references=threshold, tags=extra_tags, toml=toml)


def env(**extra: str) -> dict[str, str]:
    """The environment of a `wikic` process: the test's (already cleaned of WIKIC_*), the static embedder,
    one thread per numeric library, and this checkout first on the path."""
    out = {**os.environ, "WIKIC_EMBEDDING_PROVIDER": "static", "OMP_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "ANONYMIZED_TELEMETRY": "False",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    out.update(extra)
    return out


def wikic_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "wikic", *args]


def run(*args: str, timeout: float = 240, extra_env: dict[str, str] | None = None, input: str | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(wikic_cmd(*args), capture_output=True, text=True, timeout=timeout, check=False,
                          env=env(**(extra_env or {})), input=input, cwd=cwd)


def popen(*args: str, extra_env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(wikic_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(**(extra_env or {})), cwd=cwd)


# -- invariants -----------------------------------------------------------------------------------------

_BEGIN = re.compile(r"^<!-- wikic:begin (\S+) sha=[0-9a-f]+ -->$", re.MULTILINE)
_END = re.compile(r"^<!-- wikic:end (\S+) -->$", re.MULTILINE)


def page_paths(root: Path) -> list[str]:
    out: list[str] = []
    for folder in ("entities", "concepts", "comparisons", "queries"):
        base = root / folder
        if base.is_dir():
            out.extend(p.relative_to(root).as_posix() for p in base.rglob("*.md"))
    return sorted(out)


def whole_page_problems(root: Path, rel: str) -> list[str]:
    """A page written by wikic is whole: UTF-8, frontmatter on line 1 with every required key, every
    compiler block closed, a final newline."""
    from wikic.vault.fields import REQUIRED
    from wikic.vault.frontmatter import parse, split

    data = (root / rel).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [f"{rel}: not UTF-8"]
    problems = []
    fm = split(text)
    parsed = parse(fm.yaml_text).data if fm.yaml_text is not None else None
    if parsed is None:
        problems.append(f"{rel}: no readable frontmatter on line 1")
    else:
        missing = [k for k in REQUIRED if k not in parsed]
        if missing:
            problems.append(f"{rel}: frontmatter lacks {missing}")
        if not isinstance(parsed.get("title"), str) or not parsed.get("title"):
            problems.append(f"{rel}: title is not a non-empty string")
    if _BEGIN.findall(text) != _END.findall(text):
        problems.append(f"{rel}: compiler blocks not closed")
    if not text.endswith("\n"):
        problems.append(f"{rel}: no final newline (cut short?)")
    return problems


def log_rows(root: Path, action: str = "ingest") -> list[tuple[str, str]]:
    """(target, notes) of the log.md rows of one action; a target that links a page read as its path, and a
    source page's as the raw file it is about (what the compiled ledger names)."""
    out = []
    for line in (root / "log.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 4 and cells[1] == action:
            out.append((_target_of(root, cells[2]), cells[3]))
    return out


def _target_of(root: Path, target: str) -> str:
    found = re.fullmatch(r"\[\[([^\]|\\]+)(?:\\?\|[^\]]*)?\]\]", target)
    if found is None:
        return target
    link = found.group(1)
    pages = [root / f"{link}.md"] if "/" in link else sorted(root.glob(f"*/{link}.md"))
    page = next((p for p in pages if p.is_file()), None)
    if page is None:
        return target
    rel = page.relative_to(root).as_posix()
    if not rel.startswith("sources/"):
        return rel
    import yaml

    return str(yaml.safe_load(page.read_text(encoding="utf-8").split("---\n")[1])["sources"][0])


def compiled_sources(root: Path) -> dict[str, Any]:
    path = root / ".wikic" / "compiled.json"
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("sources", {}))


def lint_errors(root: Path, rules: Iterable[str] | None = None) -> list[str]:
    from library import run_lint

    from wikic.lint.run import LintOptions

    report = run_lint(root, LintOptions(use_cache=False, select=tuple(rules or ())))
    return [f"{f.path}:{f.line}: {f.rule} {f.message}" for f in report.findings if f.severity == "error"]


def recorded_page_problems(root: Path) -> list[str]:
    """Every page `.wikic/compiled.json` records for a source exists and cites the source."""
    problems = []
    for ref, entry in compiled_sources(root).items():
        for page in entry.get("pages", []):
            if not (root / page).is_file():
                problems.append(f"{ref}: recorded page {page} is missing")
            elif ref not in (root / page).read_text(encoding="utf-8"):
                problems.append(f"{ref}: recorded page {page} does not cite it")
    return problems


def hub_problems(root: Path) -> list[str]:
    """The hubs were written with the run that compiled the sources (the same journal): every compiled
    source has its page in sources/, whole, and the overview is there."""
    import yaml

    compiled = compiled_sources(root)
    pages: dict[str, str] = {}
    for path in sorted((root / "sources").glob("*.md")) if (root / "sources").is_dir() else []:
        rel = path.relative_to(root).as_posix()
        problems = whole_page_problems(root, rel)
        if problems:
            return problems
        listed = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1]).get("sources") or []
        pages.update({str(raw): rel for raw in listed[:1]})
    missing = sorted(set(compiled) - set(pages))
    out = [f"{ref}: compiled, but no page in sources/" for ref in missing]
    if compiled and not (root / "overview.md").is_file():
        out.append("sources compiled, but no overview.md")
    return out


def raw_problems(root: Path) -> list[str]:
    """raw/ holds each captured source once, byte for byte as the ledger recorded it."""
    ledger_path = root / ".wikic" / "sources.json"
    ledger = json.loads(ledger_path.read_text(encoding="utf-8"))["sources"] if ledger_path.exists() else {}
    problems = []
    seen: dict[str, str] = {}
    for path in sorted((root / "raw").rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue
        rel = path.relative_to(root).as_posix()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in seen:
            problems.append(f"{rel} duplicates {seen[digest]}")
        seen[digest] = rel
        entry = ledger.get(rel)
        if entry is not None and entry.get("sha256") != digest:
            problems.append(f"{rel} changed after capture")
    return problems


def consistency_problems(root: Path, *, expect_pages: set[str] | None = None, palace: bool = True) -> list[str]:
    """Everything that must hold once a run (or the run that finished a killed one) is done."""
    problems: list[str] = []
    pages = page_paths(root)
    for rel in pages:
        problems += whole_page_problems(root, rel)
    if expect_pages is not None and set(pages) != expect_pages:
        problems.append(
            f"pages differ: missing {sorted(expect_pages - set(pages))}, extra {sorted(set(pages) - expect_pages)}"
        )
    problems += lint_errors(root)
    rows = log_rows(root)
    targets = [t for t, _ in rows]
    dups = sorted({t for t in targets if targets.count(t) > 1})
    if dups:
        problems.append(f"duplicate log rows for {dups}")
    compiled = compiled_sources(root)
    if set(targets) != set(compiled):
        problems.append(f"log rows {sorted(set(targets))} != compiled {sorted(compiled)}")
    problems += recorded_page_problems(root)
    problems += hub_problems(root)
    problems += raw_problems(root)
    if (root / ".wikic" / "journal.json").exists():
        problems.append("a journal is still pending")
    if palace:
        problems += palace_problems(root)
    return problems


def palace_problems(root: Path) -> list[str]:
    """The palace holds exactly the vault's indexable files, at their current content, in both stores."""
    from chromadb.api.shared_system_client import SharedSystemClient
    from library import open_palace
    from testkit import palace_drawer_problems

    from wikic.palace.sources import file_hash, scan

    # scan() is the palace's own idea of what it holds; `wanted` checks it against the rules it must keep

    SharedSystemClient.clear_system_cache()  # read what other processes wrote
    problems = []
    with open_palace(root) as palace:
        known = palace.manifest.files()
        wanted = {s.path: file_hash(s.abspath.read_bytes()) for s in scan(root)}
        real = os.path.realpath(root)
        problems += [f"palace reads {p} through a link out of the vault" for p in wanted
                     if not os.path.realpath(root / p).startswith(real + os.sep)]
        for path, digest in wanted.items():
            if path not in known:
                problems.append(f"palace lacks {path}")
            elif known[path].file_hash != digest:
                problems.append(f"palace holds an old {path}")
        problems += [f"palace holds deleted {p}" for p in known if p not in wanted]
        # and drawer by drawer, in both stores, what indexing the vault from scratch would give
        problems += palace_drawer_problems(palace)
    return problems


def tree_snapshot(folder: Path, *, skip: Iterable[Path] = ()) -> dict[str, str]:
    """path -> sha256 of every file under `folder` (symlinks not followed), except under `skip`."""
    skipped = [p.resolve() for p in skip]
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if (here / d).resolve() not in skipped]
        for name in filenames:
            path = here / name
            if path.is_symlink():
                out[str(path)] = "symlink:" + os.readlink(path)
            elif not path.is_file():
                out[str(path)] = "not a file"  # a named pipe would block the read
            else:
                try:
                    out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    out[str(path)] = "unreadable"
    return out


def wait_all(procs: list[subprocess.Popen[str]], timeout: float) -> list[tuple[int, str, str]]:
    deadline = time.monotonic() + timeout
    out = []
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
        out.append((p.returncode, stdout, stderr))
    return out


# -- killing a command at a chosen write step -------------------------------------------------------------


def page_texts(root: Path) -> dict[str, str]:
    return {p: (root / p).read_text(encoding="utf-8") for p in page_paths(root)}


def after_kill_problems(root: Path) -> list[str]:
    """What must hold right after a kill, before anything is re-run."""
    problems = []
    for rel in page_paths(root):
        problems += whole_page_problems(root, rel)
    problems += raw_problems(root)
    problems += lint_errors(root, ["encoding", "frontmatter", "raw-drift", "case-collision", "unsafe-path"])
    return problems


class Worker:
    """guarantees/crashworker.py, started once: runs wikic commands in forked children that kill themselves."""

    def __init__(self) -> None:
        script = Path(__file__).resolve().parent / "guarantees" / "crashworker.py"
        self.proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env())

    def run(self, argv: list[str], kill_at: int | None, log: Path, kill_in: str | None = None,
            kill_delay: float = 0.0) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        request = {"argv": argv, "kill_at": kill_at, "log": str(log), "kill_in": kill_in, "kill_delay": kill_delay}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the crash worker died"
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
