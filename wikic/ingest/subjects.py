"""Each claim on the page of the subject it describes.

A small model files what a source says about several things under one of them: on a run with a 1.5B model,
Chroma's page held "Qdrant is written in Rust…" and "Milvus was built for clusters…". Every one of those claims
was anchored (its quote is in the source), so anchoring alone kept them; on Chroma's page they are wrong.

So an entity's claim that never names its entity (in any form: "ChromaDB" for "Chroma") and opens with the
name of another entity of the same plan ("Qdrant is…", "The Milvus cluster…") goes to that entity. A claim
that names neither ("It supports HNSW", "Vectors live in the same database…") stays: the model read it in
the subject's context, when that context is there: its paragraph names the subject. Outside it ("A practical
rule: start with the smallest model…", a paragraph of its own, filed under Ollama) the claim is not written
(reason: not about its subject). A lead must name its subject: such a sentence says nothing of what Ollama
is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from wikic.ingest.plan_model import Entity, Fact
from wikic.ingest.sentences import form_at, name_forms
from wikic.ingest.support import unsupported
from wikic.text.terms import words

_ARTICLES = frozenset("the a an".split())


def mentions(text: str, forms: Sequence[tuple[str, ...]]) -> bool:
    """`text` writes one of the name's `forms` (whole words, in order)."""
    said = [word for word, _, _ in words(text)]
    return any(form_at(said, form) is not None for form in forms)


def opening_name(text: str, names: dict[str, list[tuple[str, ...]]]) -> str | None:
    """The name `text` opens with, after an article: the longest form that matches wins."""
    said = [word for word, _, _ in words(text)]
    start = 1 if said[:1] and said[0] in _ARTICLES else 0
    best: tuple[int, str] | None = None
    for name, forms in names.items():
        for form in forms:
            if tuple(said[start : start + len(form)]) == form and (best is None or len(form) > best[0]):
                best = (len(form), name)
    return best[1] if best else None


def refile(entities: Sequence[Entity], source: str, *, conversation: bool = False) -> tuple[list[Entity], int]:
    """`entities` with each model claim that opens with another entity's name, and never names its own, moved
    to that entity (its support checked again for its new subject); and how many moved. A claim that names
    neither, in a passage of the source (its paragraph) that never names its entity either, is marked off its
    subject ("A practical rule: start with the smallest model…" filed under Ollama); in a `conversation` a
    turn rarely repeats what it talks about, and such a claim stays. Sentences found by code already name the
    subject they were found for."""
    forms = {e.name: name_forms(e.name, e.aliases) for e in entities}
    kept: dict[str, list[Fact]] = {e.name: [] for e in entities}
    lines = source.split("\n")
    moved = 0
    for entity in entities:
        for fact in entity.facts:
            target = None
            if fact.anchored and not fact.extracted and not mentions(fact.text, forms[entity.name]):
                target = opening_name(fact.text, {n: f for n, f in forms.items() if n != entity.name})
                if target is None and not conversation and fact.anchor is not None and \
                        not mentions(_paragraph(lines, fact.anchor.start_line, fact.anchor.end_line),
                                     forms[entity.name]):
                    fact = replace(fact, off_subject=True)
            if target is None:
                kept[entity.name].append(fact)
                continue
            moved += 1
            other = next(e for e in entities if e.name == target)
            missing = tuple(unsupported(fact.text, fact.quote, subject_names=(other.name, *other.aliases),
                                        source=source))
            kept[target].append(replace(fact, missing=missing))
    return [replace(e, facts=tuple(_unique(kept[e.name]))) for e in entities], moved


def _paragraph(lines: list[str], first: int, last: int) -> str:
    """The paragraph(s) holding lines `first`..`last` (1-based): out to the blank lines around them."""
    start, end = first - 1, last - 1
    while start > 0 and lines[start - 1].strip():
        start -= 1
    while end + 1 < len(lines) and lines[end + 1].strip():
        end += 1
    return "\n".join(lines[start : end + 1])


def names_subject(text: str, name: str, aliases: Iterable[str] = ()) -> bool:
    """Whether `text` (a lead) names its subject in one of its forms."""
    return mentions(text, name_forms(name, aliases))


def _unique(facts: list[Fact]) -> list[Fact]:
    seen: set[str] = set()
    out = []
    for fact in facts:
        if fact.text not in seen:
            seen.add(fact.text)
            out.append(fact)
    return out

