#!/usr/bin/env python3
"""Generate a synthetic wikic vault (or a plain Obsidian vault) for lint benchmarks.

    python bench/gen_vault.py OUT --pages 10000 --links-per-page 10 --seed 1
    python bench/gen_vault.py OUT --pages 10000 --plain --seed 1
    python bench/gen_vault.py OUT --pages 2000 --manifest OUT.manifest.json --stats-json OUT.stats.json

The output is deterministic for a given (pages, links-per-page, seed, plain) and this file.

Schema mode (default) follows wikic's vault layout: SCHEMA.md, index.md, log.md, raw/ sources that
pages cite, page-type folders with nested subfolders, frontmatter with every required field. On top of
a clean base it seeds a realistic mix of problems, each recorded in the manifest with its path and
line so a linter can be checked against it:

* broken links (~2% of link occurrences): missing targets, missing headings, missing block ids;
* orphans (~1% of pages), pages missing from index.md (~3%) and dangling index entries;
* duplicate basenames in different folders, reached by bare (ambiguous) and path (unambiguous) links;
* a few pages with invalid YAML, an unclosed code fence, non-UTF-8 bytes, bad file names,
  unknown tags, missing sources, wrong `type`, unmet thresholds, stale dates, one-sided contradictions.

Every link form of Obsidian is used ([[t]], [[t|a]], [[t#H]], [[t#H#H2]], [[t#^id]], [[#H]], ![[t]],
![[t#H]], ![[img.png]], ![[img.png|200]], [x](t.md), [x](../dir/t.md), [x](<t.md>), [x](t.md#H),
[x](My%20Note.md), frontmatter "[[t]]", table cells [[t\\|x]], path links [[dir/t]], [[t.md]], case
variants, links in footnote definitions) beside text that looks like a link but is not (inline and
fenced code, indented code, %% comments %%, <!-- comments -->, $math$, $$math$$, escaped \\[\\[x\\]\\],
links split over two lines, text after an unclosed fence).

--plain makes an ordinary Obsidian vault instead: no SCHEMA.md/index/log, Title Case file names with
spaces and punctuation, some CJK names, deep folders, optional frontmatter, an Attachments/ folder.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import posixpath
import random
import shutil
import struct
import sys
import time
import zlib
from dataclasses import dataclass, field
from typing import ClassVar
from urllib.parse import quote

# --------------------------------------------------------------------------------------------
# vocabulary

BRANDS = """acorn alder amber anvil apex aria arbor argon aster atlas aurora axiom basalt beacon birch
bolt borealis bramble cairn calyx canopy cedar cinder cirrus citadel clover cobalt comet copper coral
cortex crest cypress delta dune ember fathom fern fjord flint forge garnet glacier granite gryphon
harbor hazel helix heron horizon indigo iris ivory jade juniper kestrel krypton lagoon lantern larch
lumen lynx magnet maple marble meadow meridian mica nebula nimbus nova oak obsidianite onyx opal orbit
osprey pebble pine pixel plume polaris prism pulsar quartz quill raven reef ridge rook rowan saffron
sage sequoia shale sierra silica slate sorrel spruce summit talon tamarack thistle tidal topaz torch
tundra umber vale vector velvet verdant vertex willow yarrow zenith zephyr""".split()
PRODUCTS = """db index store embedder reranker router agent server gateway cache ledger crawler parser
tokenizer planner notebook vault graph engine pipeline loader retriever scheduler monitor proxy
compiler linter search memory mesh lake queue bridge studio shell bench""".split()
ADJ = """sparse dense hybrid late early semantic lexical hierarchical recursive federated incremental
streaming batched cached distilled quantized multilingual contrastive adaptive temporal causal
structured unstructured approximate exact chunked layered persistent ephemeral grounded agentic
modular compositional probabilistic graph-based rule-based self-supervised zero-shot few-shot
long-context low-latency cross-lingual multi-hop multi-vector""".split()
NOUNS = """retrieval reranking indexing chunking embedding memory summarization citation grounding
evaluation annotation deduplication compaction routing planning reflection distillation alignment
tokenization attention caching sharding replication ingestion extraction linking clustering
classification search ranking recall precision drift provenance versioning curation synthesis
orchestration guardrails hallucination calibration consolidation""".split()
VERBS_Q = ["choose", "evaluate", "migrate", "debug", "tune", "cache", "shard", "monitor", "cite", "version"]
HEAD2 = """Overview|Background|How it works|Architecture|Design choices|Trade-offs|Performance|
Costs and limits|Failure modes|Evaluation|Deployment|Operational notes|Related work|Open questions|History|
Examples|Limitations|Security considerations|Benchmarks|Migration notes|Configuration|Glossary|
Use cases|Data model|Alternatives|Lessons learned|Known issues|Roadmap""".replace("\n", "").split("|")
HEAD3 = """Details|Caveats|Numbers|Worked example|Notes from practice|Edge cases|Defaults|Tuning tips|
Pitfalls|Measurements|Sources of error|Checklist""".replace("\n", "").split("|")
CJK_HEADINGS = ["概述", "实现细节", "常见问题", "設計の背景", "性能与成本"]
SUBJ = ["The retriever", "This index", "A small reranker", "The ingest job", "Our pipeline", "The team",
        "Each chunk", "The embedding model", "A compiled page", "The query planner", "The linter",
        "A careful user", "The evaluation set", "A nightly job", "The cache layer", "The schema",
        "Every source", "The graph view", "A single worker", "The vector store"]
VERB = ["keeps", "rebuilds", "scores", "filters", "merges", "splits", "caches", "rewrites", "checks",
        "indexes", "summarises", "reorders", "tracks", "compresses", "validates", "links", "ranks",
        "samples", "stores", "replays"]
OBJ = ["the top twenty candidates", "every heading-scoped chunk", "stale summaries", "duplicate entities",
       "the citation anchors", "long transcripts", "cross-document questions", "the nightly snapshot",
       "low-confidence claims", "the raw sources", "orphaned pages", "multilingual queries",
       "the metadata filters", "recent changes", "the embedding cache", "contested claims",
       "approximate neighbours", "the token budget", "slow queries", "unresolved links"]
ADV = ["before the answer is written", "once per source", "at query time", "in a single pass",
       "without touching the raw files", "when the schema changes", "under a strict time budget",
       "for every new document", "in the background", "with a fixed random seed",
       "after each ingest", "to keep latency low", "so that reviewers can check it",
       "when recall drops", "on a laptop", "behind a feature flag"]
TAIL = ["This matters more than the choice of model.", "The numbers vary with the corpus.",
        "Nobody has measured this carefully yet.", "It is cheap compared with a full rebuild.",
        "The effect is small but consistent.", "It took two iterations to get right.",
        "Reviewers found this surprisingly useful.", "It breaks down above a few million items.",
        "The defaults are usually fine.", "Treat the result as a hint, not a fact."]
CJK_SENT = ["向量检索在大规模语料上需要近似最近邻索引。", "知识库的每一页都应该注明来源。",
            "编译式维基把综合工作提前到摄取阶段完成。", "孤立页面说明还没有人引用这个主题。",
            "重排序模型通常比更换大模型更有效。", "每条声明都应指向原始资料中的具体行。",
            "检索增强生成在跨文档问题上表现较弱。", "本地模型已经足够处理每周几百份资料。",
            "ノートの間のリンクが知識のネットワークを作る。", "埋め込みモデルは同じインデックスで混ぜてはいけない。",
            "古いページは新しい資料と比較して更新する必要がある。", "断链应该在持续集成中直接失败。"]
TAGS = ["architecture", "rag", "retrieval", "embeddings", "evaluation", "llm", "agents", "memory",
        "indexing", "tooling", "knowledge-management", "local-inference", "vector-database",
        "benchmarks", "security", "data-quality"]
LATIN1 = [b"caf\xe9", b"na\xefve", b"r\xe9sum\xe9", b"\xfcber", b"se\xf1or", b"fa\xe7ade"]

# plain-mode vocabulary
PLAIN_WORDS = """Vector Index Tuning Meeting Notes Reading List Project Plan Weekly Review Retrieval
Experiments Research Log Architecture Decision Ideas Summary Draft Outline Reference Glossary
Checklist Onboarding Retrospective Backlog Roadmap Incident Report Postmortem Benchmark Results
Book Notes Paper Review Interview Prep Travel Budget Garden Recipes Workout Habit Tracker
Journal Quotes Templates Contacts Reading Queue Talk Slides Design Sketch Prototype Feedback""".split()
PLAIN_DUP_NAMES = ["Ideas", "README", "Notes", "Todo", "Summary", "Meeting Notes", "Index of Papers"]
PLAIN_TOP = ["Areas", "Projects", "Resources", "Archive", "Daily", "Inbox", "People", "Zettelkasten"]
PLAIN_SUB = ["Engineering", "Search", "Vector Stores", "Machine Learning", "Papers", "Q1", "Q2", "Q3",
             "Q4", "2024", "2025", "2026", "Wiki Migration", "Client Work", "Old Drafts", "Health",
             "Home", "Reading", "Talks", "Meetings", "知识管理", "Literature", "Permanent", "Fleeting"]
PLAIN_SPECIAL = [" (draft)", " & Co", "'s notes", " - v2", " 2026-11-03", ""]
PLAIN_CJK_NAMES = ["向量检索 笔记", "知识管理 方法", "読書メモ", "会议记录", "论文 阅读", "学习 计划"]

# --------------------------------------------------------------------------------------------


@dataclass
class Page:
    idx: int
    path: str                     # vault-relative, with .md
    type: str                     # entity|concept|comparison|query|note
    title: str
    h2: list = field(default_factory=list)            # list of (h2, [h3...])
    blocks: list = field(default_factory=list)
    orphan: bool = False
    dup: bool = False             # basename shared with another page (case-insensitive)
    cjk: bool = False
    invalid_yaml: bool = False
    unclosed_fence: bool = False
    non_utf8: bool = False
    bad_name: bool = False
    listed: bool = True           # in index.md

    @property
    def dir(self) -> str:
        return posixpath.dirname(self.path)

    @property
    def stem(self) -> str:
        return posixpath.basename(self.path)[:-3]

    def headings(self) -> list[str]:
        out = []
        for h, subs in self.h2:
            out.append(h)
            out.extend(subs)
        return out


@dataclass
class Link:
    form: str
    target: int | None            # page index, -1 for image, None for a ghost (missing) target
    kind: str                     # ok | missing | bad-heading | bad-block | ambiguous | self
    text: str = ""
    line: int = 0                 # 1-based line in the final file
    where: str = "body"           # body | frontmatter | table | footnote


def wrap_words(words: list[str], width: int = 96) -> list[str]:
    lines, cur, n = [], [], 0
    for w in words:
        if cur and n + 1 + len(w) > width:
            lines.append(" ".join(cur))
            cur, n = [], 0
        cur.append(w)
        n += len(w) + (1 if n else 0)
    if cur:
        lines.append(" ".join(cur))
    return lines


class Gen:
    def __init__(self, pages: int, lpp: int, seed: int, plain: bool):
        self.n = pages
        self.lpp = lpp
        self.seed = seed
        self.plain = plain
        self.rng = random.Random(seed)
        self.pages: list[Page] = []
        self.links: dict[int, list[Link]] = {}
        self.raw: list[tuple[str, dt.date]] = []     # (path, captured)
        self.images: list[str] = []                  # vault paths
        self.ghost_n = 0
        self.stats: dict = {}
        self.expected: dict[str, list] = {k: [] for k in (
            "broken-wikilink", "ambiguous-link", "orphan-page", "index-gap", "frontmatter",
            "stale-page", "contradiction", "invalid-yaml", "unclosed-fence", "non-utf8")}
        self.notlinks: dict[str, int] = {}
        self.files_bytes = 0
        self.total_lines = 0

    # ---------------------------------------------------------------- names and folders
    def ghost(self, prefix: str = "missing-topic") -> str:
        self.ghost_n += 1
        if self.plain:
            return f"Missing Note {self.ghost_n}"
        return f"{prefix}-{self.ghost_n}"

    def make_pages(self) -> None:
        rng = self.rng
        used: dict[str, int] = {}        # casefolded stem -> count

        def uniq(stem: str) -> str:
            base, k = stem, 2
            while stem.casefold() in used:
                stem = f"{base}-{k}" if not self.plain else f"{base} {k}"
                k += 1
            used[stem.casefold()] = 1
            return stem

        if self.plain:
            folders = [""]
            for top in PLAIN_TOP:
                folders.append(top)
                for _ in range(4):
                    depth = rng.randint(1, 5)
                    parts = [top, *rng.sample(PLAIN_SUB, depth)]
                    for d in range(2, len(parts) + 1):
                        folders.append("/".join(parts[:d]))
            folders = sorted(dict.fromkeys(folders))
            for i in range(self.n):
                r = rng.random()
                if r < 0.04:
                    stem = rng.choice(PLAIN_CJK_NAMES)
                elif r < 0.10:
                    stem = f"{dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 1050))}"
                else:
                    stem = " ".join(rng.sample(PLAIN_WORDS, rng.randint(1, 3)))
                    stem += rng.choice(PLAIN_SPECIAL) if rng.random() < 0.15 else ""
                stem = uniq(stem)
                folder = rng.choice(folders)
                path = f"{folder}/{stem}.md" if folder else f"{stem}.md"
                self.pages.append(Page(i, path, "note", stem))
        else:
            types = [("entity", "entities", 0.40), ("concept", "concepts", 0.35),
                     ("comparison", "comparisons", 0.15), ("query", "queries", 0.10)]
            subs = {
                "entities": ["", "orgs", "models", "tools", "tools/databases", "tools/frameworks",
                             "people", "datasets", "datasets/eval"],
                "concepts": ["", "retrieval", "retrieval/dense", "retrieval/sparse", "memory",
                             "evaluation", "agents", "indexing", "indexing/ann/graphs"],
                "comparisons": ["", "databases", "models"],
                "queries": ["", "2026", "2026/q3", "2026/q4"],
            }
            ent_stems: list[str] = []
            for i in range(self.n):
                x, acc = rng.random(), 0.0
                for typ, top, p in types:  # noqa: B007 - the loop picks typ and top, read after it
                    acc += p
                    if x < acc:
                        break
                if typ == "entity":
                    stem = f"{rng.choice(BRANDS)}-{rng.choice(PRODUCTS)}"
                    if rng.random() < 0.2:
                        stem += f"-v{rng.randint(2, 9)}"
                elif typ == "concept":
                    stem = f"{rng.choice(ADJ)}-{rng.choice(NOUNS)}"
                elif typ == "comparison":
                    if len(ent_stems) > 2:
                        a, b = rng.sample(ent_stems[-200:], 2)
                        stem = f"{a}-vs-{b}"
                    else:
                        stem = f"{rng.choice(ADJ)}-vs-{rng.choice(ADJ)}-{rng.choice(NOUNS)}"
                else:
                    stem = (f"how-to-{rng.choice(VERBS_Q)}-{rng.choice(ADJ)}-{rng.choice(NOUNS)}")
                stem = uniq(stem)
                if typ == "entity":
                    ent_stems.append(stem)
                folder = top + ("/" + s if (s := rng.choice(subs[top])) else "")
                title = stem.replace("-", " ").capitalize()
                self.pages.append(Page(i, f"{folder}/{stem}.md", typ, title))

        # duplicate basenames: ~1% of pages take the basename of another page in another folder
        ndup = max(2, self.n // 200)          # pairs (and a few triples): ~1% of pages
        cands = self.rng.sample(range(self.n), min(self.n, ndup * 2))
        for a, b in zip(cands[0::2], cands[1::2], strict=False):  # an odd one out stays single
            pa, pb = self.pages[a], self.pages[b]
            for _ in range(50):
                if pa.dir != pb.dir and (self.plain or pa.type == pb.type):
                    break
                pb = self.pages[self.rng.randrange(self.n)]
            else:
                continue
            if self.plain and self.rng.random() < 0.5:
                name = self.rng.choice(PLAIN_DUP_NAMES)
                if name.casefold() in used:  # already used once: make pb take it too
                    pass
                pa.path = f"{pa.dir}/{name}.md" if pa.dir else f"{name}.md"
                pa.title = name
                used[name.casefold()] = 1
            pb.path = f"{pb.dir}/{pa.stem}.md" if pb.dir else f"{pa.stem}.md"
            pb.title = pa.title
        # recompute duplicates from the final paths (case-insensitive basename)
        by_base: dict[str, list[int]] = {}
        by_path: dict[str, int] = {}
        for p in self.pages:
            by_base.setdefault(p.stem.casefold(), []).append(p.idx)
        for p in self.pages:
            while p.path.casefold() in by_path:     # two dups landed in the same folder: rename
                p.path = p.path[:-3] + ("-x.md" if not self.plain else " x.md")
            by_path[p.path.casefold()] = p.idx
        by_base = {}
        for p in self.pages:
            by_base.setdefault(p.stem.casefold(), []).append(p.idx)
        for ids in by_base.values():
            if len(ids) > 1:
                for i in ids:
                    self.pages[i].dup = True
        self.by_base = by_base

        # headings and block ids
        for p in self.pages:
            k = rng.randint(3, 5)
            h2 = rng.sample(HEAD2, k)
            p.cjk = rng.random() < 0.05
            if p.cjk:
                h2[rng.randrange(k)] = rng.choice(CJK_HEADINGS)
            for h in h2:
                subs = rng.sample(HEAD3, rng.randint(1, 2)) if rng.random() < 0.25 else []
                p.h2.append((h, subs))
            nb = rng.choice([0, 0, 1, 1, 2, 3])
            p.blocks = [self.block_id() for _ in range(nb)]

        # special pages (never duplicates, so that expected counts stay simple)
        plain_pool = [p.idx for p in self.pages if not p.dup]
        sample = rng.sample(plain_pool, min(len(plain_pool), max(10, self.n // 100) + 4 * max(3, self.n // 500)))
        norph = max(1, self.n // 100)
        for i in sample[:norph]:
            self.pages[i].orphan = True
        rest = sample[norph:]
        q = max(3, self.n // 500)
        for i in rest[:q]:
            self.pages[i].invalid_yaml = True
        for i in rest[q:2 * q]:
            self.pages[i].unclosed_fence = True
        for i in rest[2 * q:3 * q]:
            self.pages[i].non_utf8 = True
        if not self.plain:
            for i in rest[3 * q:4 * q]:
                p = self.pages[i]
                new = p.stem.replace("-", "_").title() if rng.random() < 0.5 else p.stem.replace("-", " ").title()
                if new.casefold() in by_base or new.casefold() in used:
                    continue
                p.path = f"{p.dir}/{new}.md"
                p.bad_name = True
                by_base.pop(p.stem.casefold(), None)
                by_base[new.casefold()] = [p.idx]
            # index: ~3% of pages unlisted
            for i in rng.sample(range(self.n), max(1, self.n * 3 // 100)):
                self.pages[i].listed = False

    def block_id(self) -> str:
        r = self.rng.random()
        if r < 0.8:
            return "b" + "".join(self.rng.choice("0123456789abcdef") for _ in range(6))
        return f"{self.rng.choice(['Key', 'Claim', 'Def', 'Note'])}-{self.rng.randint(1, 99)}"

    # ---------------------------------------------------------------- raw sources, images
    def make_raw(self) -> None:
        if self.plain:
            self.images = [
                f"Attachments/Pasted image {20261103000000 + 37 * i}.png" for i in range(max(5, self.n // 200))
            ]
            return
        nraw = max(8, self.n // 20)
        kinds = ["articles"] * 6 + ["papers"] * 3 + ["transcripts"]
        start = dt.date(2025, 6, 1)
        for i in range(nraw):
            kind = self.rng.choice(kinds)
            day = start + dt.timedelta(days=self.rng.randint(0, 520))
            self.raw.append((f"raw/{kind}/src-{i:05d}-{self.rng.choice(NOUNS)}.md", day))
        self.raw.sort(key=lambda t: t[1])
        self.images = [f"raw/assets/figure-{i:04d}.png" for i in range(max(5, self.n // 200))]

    # ---------------------------------------------------------------- link planning
    FORMS_SCHEMA: ClassVar[list[tuple[str, int]]] = [
        ("wiki", 36), ("alias", 11), ("heading", 8), ("subheading", 1), ("block", 3), ("self-heading", 2), ("embed", 2),
        ("embed-heading", 1), ("image", 2), ("md", 5), ("md-relative", 6), ("md-angle", 2), ("md-heading", 1),
        ("table", 4), ("path", 6), ("wiki-ext", 1), ("wiki-case", 1), ("footnote", 1), ("frontmatter", 7),
    ]
    FORMS_PLAIN: ClassVar[list[tuple[str, int]]] = [
        ("wiki", 38), ("alias", 12), ("heading", 8), ("subheading", 1), ("block", 3), ("self-heading", 2), ("embed", 2),
        ("embed-heading", 1), ("image", 3), ("md", 6), ("md-relative", 5), ("md-angle", 2), ("md-heading", 1),
        ("table", 3), ("path", 5), ("wiki-ext", 1), ("wiki-case", 2), ("footnote", 1), ("frontmatter", 4),
    ]

    def plan_links(self) -> None:
        rng = self.rng
        forms = self.FORMS_PLAIN if self.plain else self.FORMS_SCHEMA
        fnames = [f for f, _ in forms]
        fcum = []
        acc = 0
        for _, w in forms:
            acc += w
            fcum.append(acc)
        # target popularity: a Zipf-like tail over non-orphan pages
        targets = [p.idx for p in self.pages if not p.orphan]
        rng.shuffle(targets)
        cw, acc = [], 0.0
        for r in range(len(targets)):
            acc += 1.0 / (r + 20) ** 0.8
            cw.append(acc)
        counts = [rng.randint(max(2, self.lpp // 2), max(3, self.lpp * 3 // 2)) for _ in self.pages]
        total = sum(counts)
        picks = rng.choices(targets, cum_weights=cw, k=total + 100)
        fpicks = rng.choices(fnames, cum_weights=fcum, k=total + 100)
        # coverage: each non-orphan page gets one inbound link from some other page
        cover: dict[int, list[int]] = {}
        special = [p.invalid_yaml or p.unclosed_fence or p.non_utf8 for p in self.pages]
        for t in targets:            # from ordinary pages only, so no page's inbound hinges on a damaged one
            s = rng.randrange(self.n)
            while s == t or special[s]:
                s = rng.randrange(self.n)
            cover.setdefault(s, []).append(t)
        k = 0
        for p in self.pages:
            lst: list[Link] = []
            for t in cover.get(p.idx, []):
                tp = self.pages[t]
                lst.append(Link("path" if tp.dup else "wiki", t, "ok"))
            while len(lst) < counts[p.idx]:
                form, t = fpicks[k], picks[k]
                k += 1
                if k >= len(picks):
                    k = 0
                if t == p.idx and form != "self-heading":
                    continue
                lst.append(self.classify(p, form, t))
            if p.non_utf8:           # a linter may refuse to read it: keep its links plain and valid
                for ln in lst:
                    if ln.kind in ("missing", "bad-heading", "bad-block", "ambiguous", "self"):
                        ln.form, ln.kind = "wiki", "ok"
                        while ln.target is None or ln.target == p.idx:
                            ln.target = rng.choice(targets)
                        if self.pages[ln.target].dup:
                            ln.form = "path"
            if p.invalid_yaml:       # no frontmatter links on pages whose YAML will not parse
                for ln in lst:
                    if ln.form == "frontmatter":
                        ln.form = "wiki"
            if p.idx in self.thin_comparisons:   # a 2-row table cannot hold them: move to prose
                for ln in lst:
                    if ln.form == "table":
                        ln.form = "alias"
            for other in self.contra.get(p.idx, []):
                lst.append(Link("contradiction", other if other >= 0 else None,
                                "ok" if other >= 0 else "missing", where="frontmatter"))
            rng.shuffle(lst)
            self.links[p.idx] = lst

    def classify(self, p: Page, form: str, t: int) -> Link:
        rng = self.rng
        tp = self.pages[t]
        if form == "self-heading":
            return Link(form, p.idx, "self")
        if form == "image":
            if rng.random() < 0.03:
                return Link(form, None, "missing")
            return Link(form, -1, "ok")
        if tp.non_utf8 and form in ("heading", "subheading", "block", "embed-heading", "md-heading"):
            form = "wiki"        # a linter that refuses to decode the target cannot see its headings
        if form == "block" and not tp.blocks:
            form = "heading"
        if form == "subheading" and not any(s for _, s in tp.h2):
            form = "heading"
        r = rng.random()
        if r < 0.02:
            return Link(form, None, "missing")
        if form in ("heading", "subheading", "embed-heading", "md-heading") and r < 0.03:
            return Link(form, t, "bad-heading")
        if form == "block" and r < 0.06:
            return Link(form, t, "bad-block")
        if tp.dup and form in ("wiki", "alias", "embed", "frontmatter", "wiki-case", "table", "footnote"):
            same_folder = any(self.pages[i].dir == p.dir for i in self.by_base[tp.stem.casefold()])
            if rng.random() < 0.5 and not same_folder:   # a same-folder candidate would win outright
                return Link(form, t, "ambiguous")
            return Link(form, t, "ok-path")
        return Link(form, t, "ok")

    # ---------------------------------------------------------------- rendering
    def linktext(self, src: Page, t: int, kind: str) -> str:
        tp = self.pages[t]
        if kind == "ok-path" or (tp.dup and kind != "ambiguous"):
            return tp.path[:-3]
        return tp.stem

    def rel(self, src: Page, tp: Page) -> str:
        r = posixpath.relpath(tp.path, src.dir or ".")
        if not r.startswith("../"):
            r = "./" + r
        return r

    def enc(self, path: str) -> str:
        return quote(path, safe="/._-~")

    def render_link(self, src: Page, ln: Link) -> str:
        rng = self.rng
        f = ln.form
        # ghost (missing) targets
        if ln.kind == "missing":
            g = self.ghost()
            if f == "image":
                return f"![[{'missing-figure' if not self.plain else 'Missing image'}-{self.ghost_n}.png]]"
            if f in ("md", "md-relative", "md-angle", "md-heading"):
                d = "../entities/" if not self.plain else "../"
                if f == "md-angle":
                    return f"[{self.words(2)}](<{g}.md>)"
                return f"[{self.words(2)}]({self.enc(d + g + '.md')})"
            if f == "path":
                return f"[[{'entities/' if not self.plain else 'Projects/'}{g}]]"
            if f == "table":
                return f"[[{g}\\|{self.words(1)}]]"
            if f == "alias":
                return f"[[{g}|{self.words(2)}]]"
            if f in ("heading", "subheading", "embed-heading"):
                return f"[[{g}#Overview]]"
            if f == "embed":
                return f"![[{g}]]"
            return f"[[{g}]]"
        if f == "image":
            img = posixpath.basename(rng.choice(self.images))
            return f"![[{img}|{rng.choice([200, 320, 480])}]]" if rng.random() < 0.3 else f"![[{img}]]"
        tp = self.pages[ln.target]
        lt = self.linktext(src, ln.target, ln.kind)
        heading = rng.choice(tp.headings())
        if ln.kind == "bad-heading":
            heading = rng.choice(["Nonexistent section", "Old heading", "Summary (removed)"])
        if f == "self-heading":
            return f"[[#{heading}]]"
        if f == "wiki" or f == "frontmatter" or f == "footnote":
            return f"[[{lt}]]"
        if f == "wiki-ext":
            return f"[[{lt}.md]]"
        if f == "wiki-case":
            return f"[[{lt.upper() if rng.random() < 0.5 else lt.title()}]]"
        if f == "alias":
            return f"[[{lt}|{tp.title if rng.random() < 0.5 else self.words(2)}]]"
        if f == "table":
            return f"[[{lt}\\|{self.words(1)}]]"
        if f == "heading":
            return f"[[{lt}#{heading}]]"
        if f == "subheading":
            if ln.kind == "bad-heading":
                return f"[[{lt}#{heading}#Gone]]"
            h2, subs = rng.choice([(h, s) for h, s in tp.h2 if s])
            return f"[[{lt}#{h2}#{rng.choice(subs)}]]"
        if f == "block":
            b = rng.choice(tp.blocks) if ln.kind != "bad-block" else "missing-" + self.block_id()
            return f"[[{lt}#^{b}]]"
        if f == "embed":
            return f"![[{lt}]]"
        if f == "embed-heading":
            return f"![[{lt}#{heading}]]"
        if f == "path":
            return f"[[{tp.path[:-3]}]]"
        text = self.words(rng.randint(1, 3))
        if f == "md":
            dest = tp.path if tp.dir != src.dir else posixpath.basename(tp.path)
            if self.plain and rng.random() < 0.5:
                dest = dest[:-3]                          # .md is optional on Markdown links too
            return f"[{text}]({self.enc(dest)})"
        if f == "md-relative":
            return f"[{text}]({self.enc(self.rel(src, tp))})"
        if f == "md-angle":
            return f"[{text}](<{self.rel(src, tp)}>)"
        if f == "md-heading":
            return f"[{text}]({self.enc(self.rel(src, tp))}#{quote(heading)})"
        raise AssertionError(f)

    def words(self, k: int) -> str:
        return " ".join(self.rng.choice(OBJ).split()[-1] if i else self.rng.choice(NOUNS) for i in range(k))

    def sentence(self) -> str:
        rng = self.rng
        s = f"{rng.choice(SUBJ)} {rng.choice(VERB)} {rng.choice(OBJ)} {rng.choice(ADV)}."
        if rng.random() < 0.3:
            s += " " + rng.choice(TAIL)
        return s

    def paragraph(self, nlines: int, cjk: bool) -> list[str]:
        words: list[str] = []
        target = nlines * 92
        n = 0
        while n < target:
            s = self.sentence()
            if cjk and self.rng.random() < 0.4:
                s = self.rng.choice(CJK_SENT) + self.rng.choice(CJK_SENT)
            words.extend(s.split())
            n += len(s) + 1
        return wrap_words(words)

    def notlink(self) -> tuple[str, list[str]]:
        """A construct that contains link-like text but no link. Returns (kind, lines)."""
        rng = self.rng
        g = f"not-a-link-{rng.randint(1, 99999)}"
        kind = rng.choices(
            ["inline-code", "fence", "fence-tilde", "indented-code", "comment-inline", "comment-block",
             "html-inline", "html-block", "math-inline", "math-block", "escaped", "split-line"],
            weights=[34, 16, 6, 5, 6, 4, 6, 4, 5, 3, 7, 4])[0]
        if kind == "inline-code":
            return kind, [f"Write `[[{g}]]` to link a page, or ``![[{g}.png]]`` to embed an image."]
        if kind == "fence":
            return kind, ["```markdown", f"See [[{g}]] and [x]({g}.md) for details.", "```"]
        if kind == "fence-tilde":
            return kind, ["~~~python", f'LINK = "[[{g}|alias]]"', "print(LINK)", "~~~"]
        if kind == "indented-code":      # a plain paragraph first, so a list above cannot absorb it
            return kind, ["Example:", "", f"    [[{g}]]", f"    ![[{g}]]"]
        if kind == "comment-inline":
            return kind, [f"Reviewed last week. %%TODO link [[{g}]] once it exists%% Nothing else changed."]
        if kind == "comment-block":
            return kind, ["%%", f"Draft: [[{g}]] and [[{g}#Heading]]", "%%"]
        if kind == "html-inline":
            return kind, [f"The numbers are provisional. <!-- [[{g}]] --> They will move."]
        if kind == "html-block":
            return kind, ["<!--", f"[[{g}]]", "-->"]
        if kind == "math-inline":
            return kind, [f"The score is $s = [[{g}]] + 1$ in the paper's notation."]
        if kind == "math-block":
            return kind, ["$$", f"\\text{{[[{g}]]}} = \\sum_i w_i x_i", "$$"]
        if kind == "escaped":
            return kind, [f"Obsidian syntax is \\[\\[{g}\\]\\], with double brackets."]
        return kind, [f"A link cannot span lines: [[{g}", "continued]] is plain text."]

    def frontmatter(self, p: Page, fm_links: list[tuple[Link, str]]) -> list[str]:
        rng = self.rng
        lines = ["---"]
        if self.plain:
            if rng.random() < 0.4 and not fm_links and not p.invalid_yaml:
                return []
            tags = rng.sample(["inbox", "reading", "project", "idea", "meeting", "draft", "日本語"], 2)
            lines.append(f"tags: [{', '.join(tags)}]")
            if rng.random() < 0.3:
                lines.append(f"aliases: [\"{p.title.lower()}\"]")
            if rng.random() < 0.3:
                lines.append(f"date: {dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 690))}")
            if p.invalid_yaml:
                lines.append(rng.choice(["status: [draft", "title: A: B: C", "\tindent: tab"]))
            self.fm_links_render(lines, fm_links)
            lines.append("---")
            return lines
        srcs = self.page_sources[p.idx]
        created, updated = self.page_dates[p.idx]
        typ = p.type
        if p.idx in self.bad_type:
            typ = rng.choice([t for t in ("entity", "concept", "comparison", "query") if t != p.type])
        lines.append(f"title: {json.dumps(p.title, ensure_ascii=False)}")
        lines.append(f"created: {created}")
        if p.idx not in self.missing_updated:
            lines.append(f"updated: {updated}")
        lines.append(f"type: {typ}")
        tags = rng.sample(TAGS, rng.randint(1, 3))
        if p.idx in self.bad_tag:
            tags.append("misc-stuff")
        lines.append(f"tags: [{', '.join(tags)}]")
        lines.append("sources:")
        for s in srcs:
            lines.append(f"  - {s}")
        lines.append(f"summary: {json.dumps(self.sentence(), ensure_ascii=False)}")
        if rng.random() < 0.3:
            lines.append(f"aliases: [{json.dumps(p.title.upper())}]")
        if p.type == "query":
            lines.append(f"question: \"How do we {rng.choice(VERBS_Q)} {rng.choice(ADJ)} {rng.choice(NOUNS)}?\"")
        contra = [ln for ln in self.links[p.idx] if ln.form == "contradiction"]
        if contra:
            lines.append("contested: true")
            lines.append("contradictions:")
            for ln in contra:
                lt = self.linktext(p, ln.target, ln.kind) if ln.target is not None else f"missing-contra-{p.idx}"
                ln.line = len(lines) + 1
                lines.append(f"  - \"[[{lt}]]\"")
        if p.invalid_yaml:
            lines.append(rng.choice(["confidence: [0.8", "summary2: a: b: c", "\ttabbed: value",
                                     "labels: {unclosed"]))
        self.fm_links_render(lines, fm_links)
        lines.append("---")
        return lines

    def fm_links_render(self, lines: list[str], fm_links: list[tuple[Link, str]]) -> None:
        if not fm_links:
            return
        if len(fm_links) == 1:
            fm_links[0][0].line = len(lines) + 1
            fm_links[0][0].where = "frontmatter"
            lines.append(f"related: \"{fm_links[0][1]}\"")
            return
        lines.append("related:")
        for ln, txt in fm_links:
            ln.line = len(lines) + 1
            ln.where = "frontmatter"
            lines.append(f"  - \"{txt}\"")

    def plan_schema_extras(self) -> None:
        """Sources, dates and seeded frontmatter/stale/contradiction problems (schema mode)."""
        rng = self.rng
        self.page_sources: dict[int, list[str]] = {}
        self.page_dates: dict[int, tuple[dt.date, dt.date]] = {}
        self.bad_type: set[int] = set()
        self.bad_tag: set[int] = set()
        self.missing_updated: set[int] = set()
        self.contra: dict[int, list[int]] = {}
        self.thin_concepts: set[int] = set()
        self.thin_comparisons: set[int] = set()
        if self.plain:
            return
        raw_dates = dict(self.raw)
        today = dt.date(2026, 11, 28)
        normal = [p for p in self.pages if not (p.invalid_yaml or p.non_utf8 or p.orphan or p.dup or p.bad_name)]
        q = max(2, self.n // 1000)
        # stale dates and a missing `updated` go to non-query pages only: on a query page they would also
        # trip the query rules (age, cited pages changed since), which are about dates, not seeding
        nonq = [p for p in normal if p.type != "query"]
        first = rng.sample(nonq, min(len(nonq), 2 * q))
        taken = {p.idx for p in first}
        seeded = first + rng.sample([p for p in normal if p.idx not in taken], min(len(normal) - len(taken), 6 * q))
        stale = {p.idx for p in seeded[0:q]}
        self.missing_updated = {p.idx for p in seeded[q:2 * q]}
        missing_src = {p.idx for p in seeded[2 * q:3 * q]}
        self.bad_type = {p.idx for p in seeded[3 * q:4 * q]}
        self.bad_tag = {p.idx for p in seeded[4 * q:5 * q]}
        pairs = seeded[5 * q:7 * q]
        one_sided = seeded[7 * q:8 * q]
        for a, b in zip(pairs[0::2], pairs[1::2], strict=False):  # an odd one out stays single
            self.contra[a.idx] = [b.idx]
            self.contra[b.idx] = [a.idx]
        normal_ids = [p.idx for p in normal if p.idx not in self.contra]
        for p in one_sided:
            other = rng.choice(normal_ids)
            self.contra[p.idx] = [other if rng.random() < 0.7 else -p.idx]
        for p in self.pages:
            k = rng.randint(2, 4) if p.type == "entity" else rng.randint(1, 3)
            srcs = sorted({rng.choice(self.raw)[0] for _ in range(k)})
            if p.type == "entity" and len(srcs) < 2:
                srcs = sorted(
                    set(srcs) | {self.raw[(self.raw.index((srcs[0], raw_dates[srcs[0]])) + 1) % len(self.raw)][0]}
                )
            newest = max(raw_dates[s] for s in srcs)
            if p.idx in stale:
                updated = newest - dt.timedelta(days=rng.randint(120, 300))
            else:
                updated = min(today, newest + dt.timedelta(days=rng.randint(0, 45)))
            created = updated - dt.timedelta(days=rng.randint(0, 90))
            if p.idx in missing_src:
                srcs = [*srcs, f"raw/articles/deleted-source-{p.idx}.md"]
            if p.type == "query" and p.idx not in stale:
                updated = today
                created = updated - dt.timedelta(days=rng.randint(0, 90))
            elif updated >= today:
                updated = today - dt.timedelta(days=1)
                created = min(created, updated)
            self.page_sources[p.idx] = srcs
            self.page_dates[p.idx] = (created, updated)
            if p.invalid_yaml:
                continue
            if p.idx in stale:
                self.expected["stale-page"].append(
                    {"path": p.path, "reason": "updated older than newest source by >90 days"}
                )
            if p.idx in missing_src:
                self.expected["frontmatter"].append({"path": p.path, "reason": "sources entry missing from raw/"})
            if p.idx in self.bad_type:
                self.expected["frontmatter"].append({"path": p.path, "reason": "type does not match folder"})
            if p.idx in self.bad_tag:
                self.expected["frontmatter"].append({"path": p.path, "reason": "tag not in taxonomy: misc-stuff"})
            if p.idx in self.missing_updated:
                self.expected["frontmatter"].append({"path": p.path, "reason": "required field missing: updated"})
            if p.bad_name:
                self.expected["frontmatter"].append({"path": p.path, "reason": "file name against naming convention"})
        for a, others in self.contra.items():
            for b in others:
                if b < 0 or a not in self.contra.get(b, []):
                    self.expected["contradiction"].append({"path": self.pages[a].path,
                                                           "target": self.pages[b].path if b >= 0 else None})
        # thresholds: a few concepts with too few sections, comparisons with too few table rows
        for p in rng.sample(normal, min(len(normal), 4 * q)):
            if p.idx in self.bad_type or p.invalid_yaml:
                continue
            if p.type == "concept" and len(self.thin_concepts) < q:
                self.thin_concepts.add(p.idx)
                p.h2 = p.h2[:2]
                self.expected["frontmatter"].append({"path": p.path, "reason": "concept_min_sections not met"})
            elif p.type == "comparison" and len(self.thin_comparisons) < q:
                self.thin_comparisons.add(p.idx)
                self.expected["frontmatter"].append({"path": p.path, "reason": "comparison_min_axes not met"})

    def render_page(self, p: Page) -> bytes:
        rng = self.rng
        links = self.links[p.idx]
        fm_links = [(ln, self.render_link(p, ln)) for ln in links if ln.form == "frontmatter"]
        body_links = [ln for ln in links if ln.form not in ("frontmatter", "table", "footnote", "contradiction")]
        table_links = [ln for ln in links if ln.form == "table"]
        foot_links = [ln for ln in links if ln.form == "footnote"]
        lines = self.frontmatter(p, fm_links)
        if lines:
            lines.append("")
        lines.append(f"# {p.title}")
        lines.append("")
        # body skeleton: list of (kind, text) where kind "para" lines can receive links
        para_slots: list[int] = []           # indexes into lines of prose lines
        id_lines: set[int] = set()           # prose lines that end with a ^block-id

        def add_para(nl: int) -> None:
            for t in self.paragraph(nl, p.cjk):
                para_slots.append(len(lines))
                lines.append(t)

        add_para(rng.randint(1, 3))
        lines.append("")
        blocks = list(p.blocks)
        notlinks = rng.random() < 0.3          # link-like text that is not a link
        plain_code = rng.random() < 0.2        # ordinary code, nothing link-like in it
        nl_kinds: list[str] = []
        table_done = False
        for si, (h, subs) in enumerate(p.h2):
            lines.append(f"## {h}")
            lines.append("")
            add_para(rng.randint(1, 3))
            if blocks and rng.random() < 0.6:
                b = blocks.pop()
                lines[-1] += f" ^{b}"
                id_lines.add(len(lines) - 1)
            lines.append("")
            if rng.random() < 0.2:
                for _ in range(rng.randint(2, 4)):
                    para_slots.append(len(lines))
                    lines.append("- " + self.sentence())
                if blocks and rng.random() < 0.5:
                    lines.append("")
                    lines.append(f"^{blocks.pop()}")
                lines.append("")
            if notlinks and rng.random() < 0.4:
                kind, nll = self.notlink()
                nl_kinds.append(kind)
                lines.extend(nll)
                lines.append("")
            if plain_code and si == 1:
                plain_code = False
                self.notlinks["code-without-links"] = self.notlinks.get("code-without-links", 0) + 1
                if rng.random() < 0.5:
                    lines.extend(["```python", "hits = index.query(vector, k=10)",
                                  "top = [h for h in hits if h.score > 0.3]", "```", ""])
                else:
                    lines.extend([f"Set `{rng.choice(NOUNS)}_limit = {rng.randint(2, 64)}` in the config file.", ""])
            if not table_done and (p.type == "comparison" or table_links) and si >= 1:
                table_done = True
                rows = max(3, len(table_links)) if p.idx not in self.thin_comparisons else 2
                lines.append("| Axis | Option A | Option B |")
                lines.append("|---|---|---|")
                tl = list(table_links)
                for r in range(rows):
                    a = self.render_link(p, tl[r]) if r < len(tl) else self.words(2)
                    if r < len(tl):
                        tl[r].line = len(lines) + 1
                        tl[r].where = "table"
                    lines.append(f"| {rng.choice(HEAD3)} {r + 1} | {a} | {self.words(2)} |")
                lines.append("")
            for sub in subs:
                lines.append(f"### {sub}")
                lines.append("")
                add_para(rng.randint(1, 2))
                lines.append("")
        free = [i for i in para_slots if i not in id_lines]
        for b in blocks:                   # remaining block ids go on the last free prose lines
            i = free.pop()
            lines[i] += f" ^{b}"
            id_lines.add(i)
        # footnote references go onto original words first (they never add a word)
        for n in range(1, len(foot_links) + 1):
            i = rng.choice(para_slots)
            words = lines[i].split(" ")
            words[rng.randrange(max(1, len(words) - (1 if i in id_lines else 0)))] += f"[^{n}]"
            lines[i] = " ".join(words)
        # body links go between the original words of prose lines (several per line is fine); they are
        # placed after all choices are made so that one link never lands inside another
        inserts: dict[int, list[tuple[int, int, str]]] = {}
        for k, ln in enumerate(body_links):
            i = rng.choice(para_slots)
            txt = self.render_link(p, ln)
            r = rng.random()
            if r < 0.25:
                txt = f"(see {txt})"
            elif r < 0.35:
                txt = f"{txt},"
            nwords = lines[i].count(" ") + 1
            limit = nwords - (1 if i in id_lines else 0)     # never after a trailing ^block-id
            inserts.setdefault(i, []).append((rng.randint(1, max(1, limit)), k, txt))
            ln.line = i + 1
        for i, items in inserts.items():
            words = lines[i].split(" ")
            for pos, _, txt in sorted(items, reverse=True):
                words.insert(pos, txt)
            lines[i] = " ".join(words)
        if foot_links:
            lines.append("")
            for n, ln in enumerate(foot_links, 1):
                ln.line = len(lines) + 1
                ln.where = "footnote"
                lines.append(f"[^{n}]: See {self.render_link(p, ln)} for the derivation.")
        if notlinks and not nl_kinds:
            kind, nll = self.notlink()
            nl_kinds.append(kind)
            lines.append("")
            lines.extend(nll)
        for k in nl_kinds:
            self.notlinks[k] = self.notlinks.get(k, 0) + 1
        if rng.random() < 0.1:
            lines.append("")
            lines.append(f"External reading: [the docs](https://example.org/{rng.choice(NOUNS)}) and <https://example.com/>.")
        if p.unclosed_fence:
            lines.append("")
            lines.append("```python")
            lines.append("# this fence is never closed: everything below is code")
            lines.append(f"[[after-unclosed-fence-{p.idx}]]")
            lines.append("")
            lines.append("## Not a heading")
            lines.append(f"See [[after-unclosed-fence-{p.idx}-b]].")
            self.notlinks["after-unclosed-fence"] = self.notlinks.get("after-unclosed-fence", 0) + 2
        lines.append("")
        text = "\n".join(lines)
        data = text.encode("utf-8")
        if p.non_utf8:
            i = para_slots[0]
            bad = rng.choice(LATIN1)
            enc_lines = data.split(b"\n")
            head, sep, rest = enc_lines[i].partition(b" ")
            enc_lines[i] = head + b" (" + bad + b")" + sep + rest
            data = b"\n".join(enc_lines)
        self.total_lines += len(lines)
        return data

    # ---------------------------------------------------------------- special files
    def schema_md(self) -> str:
        tags = "\n".join(f"- #{t}" for t in TAGS)
        return f"""# Wiki Schema

Synthetic vault generated by bench/gen_vault.py (seed {self.seed}) for lint benchmarks.

## Domain
AI Engineering & Knowledge Management

## Taxonomy Tags
{tags}

## Page Thresholds
- entity_min_references: 2
- concept_min_sections: 3
- comparison_min_axes: 3
- query_max_age_days: 90

## Naming Convention
- lowercase-with-hyphens.md
"""

    def index_md(self) -> str:
        rng = self.rng
        secs = [("Entities", "entity"), ("Concepts", "concept"), ("Comparisons", "comparison"), ("Queries", "query")]
        out = ["# Wiki Index", ""]
        for name, typ in secs:
            out.append(f"## {name}")
            entries = []
            for p in self.pages:
                if p.type != typ or not p.listed:
                    continue
                lt = p.path[:-3] if p.dup else p.stem
                entries.append((lt.casefold(), f"- [[{lt}]] — {p.title}"))
            for _ in range(max(1, self.n // 4000)):
                g = f"removed-page-{rng.randint(1, 10**6)}"
                entries.append((g, f"- [[{g}]] — a page that was deleted"))
            entries.sort()
            for key, e in entries:
                if key.startswith("removed-page-"):
                    self.expected["index-gap"].append({"path": "index.md", "line": len(out) + 1, "target": key,
                                                       "reason": "index entry without target"})
                    self.expected["broken-wikilink"].append({"path": "index.md", "line": len(out) + 1,
                                                             "target": key, "kind": "missing"})
                out.append(e)
        for p in self.pages:
            if not p.listed:
                self.expected["index-gap"].append({"path": p.path, "line": None, "reason": "page not in index.md"})
        return "\n".join(out) + "\n"

    def log_md(self) -> str:
        out = ["# Wiki Log", "", "| Date | Action | Target | Notes |", "|------|--------|--------|-------|"]
        for path, day in self.raw:
            c, u = self.rng.randint(0, 5), self.rng.randint(1, 12)
            out.append(
                f"| {day} | ingest | {path} | {c} created, {u} updated, {self.rng.randint(1500, 9000):,} tokens |"
            )
        return "\n".join(out) + "\n"

    def raw_md(self, path: str, day: dt.date) -> str:
        kind = path.split("/")[1]
        body = ["---", f"title: {json.dumps('Source ' + posixpath.basename(path)[:-3])}", f"kind: {kind[:-1]}",
                f"captured: {day}", "---", "", f"# Source {posixpath.basename(path)[:-3]}", ""]
        if kind == "transcripts":
            for _ in range(self.rng.randint(10, 20)):
                body.append(f"**{self.rng.choice(['Maya', 'Tomás', 'Priya', 'Jun'])}:** {self.sentence()}")
                body.append("")
        else:
            for _ in range(self.rng.randint(3, 6)):
                body.append(f"## {self.rng.choice(HEAD2)}")
                body.append("")
                body.extend(self.paragraph(self.rng.randint(3, 6), False))
                body.append("")
        return "\n".join(body)

    @staticmethod
    def png(seed: int) -> bytes:
        r = random.Random(seed)
        w, h = 8, 8
        c = bytes(r.randrange(256) for _ in range(3))
        rows = b"".join(b"\x00" + c * w for _ in range(h))

        def chunk(t: bytes, d: bytes) -> bytes:
            return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))

    # ---------------------------------------------------------------- main
    def write(self, out: str) -> None:
        def put(rel: str, data: bytes | str) -> None:
            full = os.path.join(out, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            b = data.encode("utf-8") if isinstance(data, str) else data
            with open(full, "wb") as fh:
                fh.write(b)
            self.files_bytes += len(b)

        os.makedirs(out, exist_ok=True)
        for p in self.pages:
            put(p.path, self.render_page(p))
        for i, img in enumerate(self.images):
            put(img, self.png(self.seed * 100003 + i))
        put(".obsidian/app.json", json.dumps({
            "useMarkdownLinks": False, "newLinkFormat": "shortest", "alwaysUpdateLinks": True,
            "attachmentFolderPath": "Attachments" if self.plain else "raw/assets"}, indent=2) + "\n")
        if not self.plain:
            for path, day in self.raw:
                put(path, self.raw_md(path, day))
            put("SCHEMA.md", self.schema_md())
            put("index.md", self.index_md())
            put("log.md", self.log_md())
            put("wikic.toml", '[llm]\nbase_url = "http://localhost:11434/v1"\nmodel = "qwen3:8b"\n')
            put(
                ".gitignore",
                ".wikic/\n.obsidian/workspace.json\n.obsidian/workspaces.json\n.trash/\n.obsidian/plugins/\n",
            )

    def account(self) -> None:
        """Expected link findings and orphans, from the generated link records."""
        inbound = [0] * self.n
        by_form: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        for p in self.pages:
            for ln in self.links[p.idx]:
                by_form[ln.form] = by_form.get(ln.form, 0) + 1
                k = "ok" if ln.kind in ("ok", "ok-path", "self") else ln.kind
                by_kind[k] = by_kind.get(k, 0) + 1
                if ln.kind in ("missing", "bad-heading", "bad-block"):
                    self.expected["broken-wikilink"].append({"path": p.path, "line": ln.line, "form": ln.form,
                                                             "kind": ln.kind})
                if ln.kind == "ambiguous":
                    self.expected["ambiguous-link"].append({"path": p.path, "line": ln.line, "form": ln.form,
                                                            "candidates": [self.pages[i].path for i in
                                                                           self.by_base[self.pages[ln.target].stem.casefold()]]})
                if ln.target is not None and ln.target >= 0 and ln.target != p.idx and ln.kind != "ambiguous":
                    inbound[ln.target] += 1
        # ambiguous links count for *some* candidate; every duplicate also has an unambiguous inbound link
        for p in self.pages:
            if inbound[p.idx] == 0 and not p.dup:
                self.expected["orphan-page"].append({"path": p.path})
            if p.invalid_yaml and not self.plain:
                self.expected["frontmatter"].append({"path": p.path, "reason": "invalid YAML"})
            if p.invalid_yaml:
                self.expected["invalid-yaml"].append({"path": p.path})
            if p.unclosed_fence:
                self.expected["unclosed-fence"].append({"path": p.path})
            if p.non_utf8:
                self.expected["non-utf8"].append({"path": p.path})
        depth: dict[int, int] = {}
        for p in self.pages:
            d = p.path.count("/")
            depth[d] = depth.get(d, 0) + 1
        types: dict[str, int] = {}
        for p in self.pages:
            types[p.type] = types.get(p.type, 0) + 1
        total = sum(by_form.values())
        self.stats = {
            "params": {"pages": self.n, "links_per_page": self.lpp, "seed": self.seed, "plain": self.plain},
            "pages": self.n, "pages_by_type": types, "pages_by_depth": {str(k): v for k, v in sorted(depth.items())},
            "raw_sources": len(self.raw), "images": len(self.images),
            "links": total, "links_by_form": dict(sorted(by_form.items(), key=lambda kv: -kv[1])),
            "links_by_outcome": by_kind,
            "broken_links": len([e for e in self.expected["broken-wikilink"] if e["path"] != "index.md"]),
            "broken_links_pct": round(100.0 * by_kind.get("missing", 0) / max(1, total), 2),
            "broken_headings": by_kind.get("bad-heading", 0), "broken_blocks": by_kind.get("bad-block", 0),
            "ambiguous_links": by_kind.get("ambiguous", 0),
            "duplicate_basename_pages": sum(1 for p in self.pages if p.dup),
            "orphans": len(self.expected["orphan-page"]),
            "index_listed": sum(1 for p in self.pages if p.listed) if not self.plain else 0,
            "index_gaps": len(self.expected["index-gap"]),
            "invalid_yaml_pages": len(self.expected["invalid-yaml"]),
            "unclosed_fence_pages": len(self.expected["unclosed-fence"]),
            "non_utf8_pages": len(self.expected["non-utf8"]),
            "links_in_non_utf8_pages": sum(len(self.links[p.idx]) for p in self.pages if p.non_utf8),
            "cjk_pages": sum(1 for p in self.pages if p.cjk),
            "frontmatter_problems_seeded": len(self.expected["frontmatter"]),
            "stale_pages_seeded": len(self.expected["stale-page"]),
            "contradiction_problems_seeded": len(self.expected["contradiction"]),
            "not_links_by_kind": dict(sorted(self.notlinks.items())),
            # by construction, for linters that have these extra rules (counts, not locations)
            "expected_extra_rules": {
                "malformed-link": self.notlinks.get("split-line", 0) + len(self.expected["unclosed-fence"]),
                "duplicate-page": sum(1 for p in self.pages if p.dup),
                "encoding": len(self.expected["non-utf8"]),
            },
            "bytes": self.files_bytes, "page_lines_total": self.total_lines,
            "page_lines_mean": round(self.total_lines / max(1, self.n), 1),
        }

    def run(self, out: str) -> dict:
        t0 = time.perf_counter()
        self.make_pages()
        self.make_raw()
        self.plan_schema_extras()
        self.plan_links()
        self.write(out)
        self.account()
        self.stats["seconds"] = round(time.perf_counter() - t0, 2)
        return self.stats


def print_stats(s: dict) -> None:
    print(f"pages            {s['pages']:>8}   by type {s['pages_by_type']}")
    print(f"                            by depth {s['pages_by_depth']}")
    print(f"raw sources      {s['raw_sources']:>8}   images {s['images']}")
    print(f"links            {s['links']:>8}   (mean {s['links'] / max(1, s['pages']):.1f} per page)")
    for f, n in s["links_by_form"].items():
        print(f"    {f:<16}{n:>8}")
    print(f"broken links     {s['broken_links']:>8}   missing target {s['links_by_outcome'].get('missing', 0)}"
          f" ({s['broken_links_pct']}%), bad heading {s['broken_headings']}, bad block {s['broken_blocks']}")
    print(
        f"ambiguous links  {s['ambiguous_links']:>8}   pages with a duplicate basename {s['duplicate_basename_pages']}"
    )
    print(f"orphans          {s['orphans']:>8}")
    if not s["params"]["plain"]:
        print(f"index            {s['index_listed']:>8} listed, {s['index_gaps']} index gaps (unlisted + dangling)")
        print(f"seeded           frontmatter {s['frontmatter_problems_seeded']}, stale {s['stale_pages_seeded']}, "
              f"contradiction {s['contradiction_problems_seeded']}")
    print(f"special pages    invalid YAML {s['invalid_yaml_pages']}, unclosed fence {s['unclosed_fence_pages']}, "
          f"non-UTF-8 {s['non_utf8_pages']}, CJK {s['cjk_pages']}")
    nl = {k: v for k, v in s["not_links_by_kind"].items() if k != "code-without-links"}
    print(f"not-links        {sum(nl.values()):>8}   {nl}")
    print(
        f"plain code       {s['not_links_by_kind'].get('code-without-links', 0):>8}   pages with code "
        "that looks like no link"
    )
    print(
        f"size             {s['bytes'] / 1e6:>8.1f} MB, {s['page_lines_mean']} lines per page; generated "
        f"in {s['seconds']} s"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output folder (must not exist, or use --force)")
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--links-per-page", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plain", action="store_true", help="plain Obsidian vault: no SCHEMA.md, Title Case names")
    ap.add_argument("--force", action="store_true", help="delete OUT first if it exists")
    ap.add_argument("--stats-json", help="write statistics here")
    ap.add_argument("--manifest", help="write expected findings (path, line, kind) here")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if os.path.exists(a.out):
        if not a.force:
            ap.error(f"{a.out} exists (use --force to replace it)")
        shutil.rmtree(a.out)
    g = Gen(a.pages, a.links_per_page, a.seed, a.plain)
    stats = g.run(a.out)
    if not a.quiet:
        print_stats(stats)
    if a.stats_json:
        with open(a.stats_json, "w") as fh:
            json.dump(stats, fh, indent=2, ensure_ascii=False)
    if a.manifest:
        with open(a.manifest, "w") as fh:
            json.dump({"stats": stats, "expected": g.expected}, fh, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
