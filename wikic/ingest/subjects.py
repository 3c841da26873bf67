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

A quote that opens with a pronoun ("It is an open-source memory system…") is about what the sentence before it
opens with ("MemPalace borrows the picture for software."). A claim that says "It…" goes to that entity when
it is another of the plan; a claim that puts its own subject where the pronoun stands ("Chroma is an
open-source memory system…", from that very quote) is not written, unless the quote's sentence names it too
("GPT-4 was released…" from "It released GPT-4…") or the text before the quote names it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from wikic.compile.plan import Entity, Fact
from wikic.ingest.found_claims import form_at
from wikic.text.sentences import sentences
from wikic.text.support import unquoted, unsupported
from wikic.text.terms import words
from wikic.vault.names import name_forms, names_in

_ARTICLES = frozenset("the a an".split())
# what a sentence may open with in place of the name of what it is about
_PRONOUNS = frozenset("it its they their this these he she his her 它 它们 其 该 他 她".split())


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


def refile(entities: Sequence[Entity], source: str, *, conversation: bool = False, turns: Sequence[int] = (),
           also: Mapping[str, Sequence[tuple[str, ...]]] | None = None) -> tuple[list[Entity], int]:
    """`entities` with each model claim that opens with another entity's name, and never names its own, moved
    to that entity (its support checked again for its new subject); and how many moved. A claim that names
    neither, in a passage of the source (its paragraph) that never names its entity either, is marked off its
    subject ("A practical rule: start with the smallest model…" filed under Ollama); in a `conversation` a
    turn rarely repeats what it talks about, and such a claim stays, unless its exchange (its turn and the
    one it answers) never names its entity and names another of the plan: "Done: the README now mentions
    it.", answering a request about `<system-reminder>`, is no claim about pip. Sentences found by code
    already name the subject they were found for (a claim the model cut and code completed is the model's,
    and is checked). `turns`: the lines of a conversation's turn headers, in order; `also`: more forms that
    name an entity in this source ("the project", for the project a session ran in)."""
    forms = {e.name: [*name_forms(e.name, e.aliases), *(also or {}).get(e.name, ())] for e in entities}
    kept: dict[str, list[Fact]] = {e.name: [] for e in entities}
    lines = source.split("\n")
    moved = 0
    for entity in entities:
        for fact in entity.facts:
            target = None
            others = {n: f for n, f in forms.items() if n != entity.name}
            # a sentence code found for this subject names it; one the model filed here, even when made whole
            # from the part it copied, is checked like any of its claims
            found = fact.extracted and not fact.completed
            before = None if conversation or found or not fact.anchored else _before_pronoun(fact, lines)
            if fact.anchored and not found and not mentions(fact.text, forms[entity.name]):
                target = opening_name(fact.text, others)
                if target is None and before is not None:
                    target = opening_name(_last_sentence(before), others)  # "It supports…" after "Milvus…"
                if target is None and not conversation and fact.anchor is not None and \
                        not mentions(_paragraph(lines, fact.anchor.start_line, fact.anchor.end_line),
                                     forms[entity.name]):
                    fact = replace(fact, off_subject=True)
                elif target is None and conversation and fact.anchor is not None and turns:
                    exchange = _exchange(lines, turns, fact.anchor.start_line)
                    if not mentions(exchange, forms[entity.name]) and \
                            any(mentions(exchange, other) for other in others.values()):
                        fact = replace(fact, off_subject=True)  # the exchange is about another subject
            elif before is not None and opening_name(fact.text, {entity.name: forms[entity.name]}) and \
                    not mentions(_first_sentence(fact.quote), forms[entity.name]) and (
                        opening_name(_last_sentence(before), others) or not mentions(before, forms[entity.name])):
                fact = replace(fact, off_subject=True)  # its name where the source's pronoun means another
            if target is None:
                kept[entity.name].append(fact)
                continue
            moved += 1
            other = next(e for e in entities if e.name == target)
            names = (other.name, *other.aliases)
            missing = tuple(unsupported(fact.text, fact.quote, subject_names=names, source=source))
            beyond = () if missing else tuple(unquoted(fact.text, fact.quote, subject_names=names, source=source))
            kept[target].append(replace(fact, missing=missing, unquoted=beyond))
    return [replace(e, facts=tuple(_unique(kept[e.name]))) for e in entities], moved


def _exchange(lines: list[str], turns: Sequence[int], line: int) -> str:
    """The turn holding 1-based `line`, with the turn before it (turns start at the header lines `turns`)."""
    at = bisect.bisect_right(turns, line) - 1
    start = turns[max(at - 1, 0)] if at >= 0 else 1
    end = turns[at + 1] - 1 if at + 1 < len(turns) else len(lines)
    return "\n".join(lines[start - 1 : end])


def _before_pronoun(fact: Fact, lines: list[str]) -> str | None:
    """When `fact`'s quote opens with a pronoun: the source's text before the quote in its paragraph (the
    paragraph before, when the quote opens its own), where what the pronoun stands for is written."""
    quoted = [w for w, _, _ in words(fact.quote)]
    if not quoted or quoted[0] not in _PRONOUNS or fact.anchor is None:
        return None
    start = fact.anchor.start_line - 1
    while start > 0 and lines[start - 1].strip():
        start -= 1
    paragraph = "\n".join(lines[start : fact.anchor.end_line])
    said = list(words(paragraph))
    at = form_at([w for w, _, _ in said], tuple(quoted[:4]))  # where the quote opens
    text = paragraph[: said[at][1]] if at is not None else ""
    if text.strip():
        return text
    last = start - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    return _paragraph(lines, last + 1, last + 1) if last >= 0 else ""


def _first_sentence(text: str) -> str:
    found = sentences(text)
    return found[0] if found else ""


def _last_sentence(text: str) -> str:
    found = sentences(text)
    return found[-1] if found else ""


def _paragraph(lines: list[str], first: int, last: int) -> str:
    """The paragraph(s) holding lines `first`..`last` (1-based): out to the blank lines around them."""
    start, end = first - 1, last - 1
    while start > 0 and lines[start - 1].strip():
        start -= 1
    while end + 1 < len(lines) and lines[end + 1].strip():
        end += 1
    return "\n".join(lines[start : end + 1])


def names_subject(text: str, name: str, aliases: Iterable[str] = ()) -> bool:
    """Whether `text` (a lead) names its subject in one of its forms (`vault.names.names_in`)."""
    return names_in(text, name, aliases)


def _unique(facts: list[Fact]) -> list[Fact]:
    seen: set[str] = set()
    out = []
    for fact in facts:
        if fact.text not in seen:
            seen.add(fact.text)
            out.append(fact)
    return out

