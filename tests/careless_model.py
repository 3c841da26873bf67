"""A scripted model that names things the way a careless small model does, for the tests and `bench/names_bench.py`.

Given the source of an extraction request, it proposes as entities every capitalised word that opens a
sentence ("Keeping", "The", "Throughput") next to the real names the source writes mid-sentence ("Chroma",
"Mira Okafor", "MiniLM-L6"), gives each of them the other names of the same source as aliases, and quotes for
each the source's sentences that write it. It also proposes a concept named by the first sentence opener. Every
quote is verbatim: what it gets wrong is names, not quotes, so what the compiler makes of it is what the code
does with names.
"""

from __future__ import annotations

import re
from typing import Any

_SOURCE = re.compile(r"<<<SOURCE (\w+)>>>\n(.*?)<<<END SOURCE \1>>>", re.DOTALL)
_SENTENCE = re.compile(r"(?:[^.!?\n]|\.(?=\d))+[.!?]")
# a run of capitalised (or name-like: digits, inner capitals, hyphens) words inside a sentence
_NAME = re.compile(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*|\b[a-z]+(?:-[a-z0-9]+){2,}\b")
MAX_ALIASES = 4  # the schema's limit


def source_of(body: dict[str, Any]) -> str:
    """The source text an extraction request carries ('' when it carries none)."""
    found = _SOURCE.search(str(body["messages"][-1]["content"]))
    return found.group(2) if found else ""


def sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith(("#", "|", "```", "---")):
            out += [s.strip() for s in _SENTENCE.findall(line)]
    return out


def proposals(text: str) -> tuple[list[str], list[str]]:
    """(the sentence openers it takes for names, the names written inside sentences), in order of first use."""
    openers: dict[str, None] = {}
    names: dict[str, None] = {}
    for sentence in sentences(text):
        first = sentence.split()[0].strip(",:;")
        if first[:1].isupper():
            openers[first] = None
        for match in _NAME.finditer(sentence):
            if match.start() > 0:
                names[match.group(0)] = None
    return list(openers), [n for n in names if n not in openers]


def careless_plan(text: str) -> dict[str, Any]:
    openers, names = proposals(text)
    said = sentences(text)
    everyone = openers + names
    entities = []
    for name in everyone:
        quoted = [s for s in said if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", s)][:3]
        if not quoted:
            continue
        others = [n for n in names if n != name][:MAX_ALIASES]
        entities.append({
            "name": name, "kind": "product", "aliases": others, "summary": quoted[0],
            "facts": [{"text": s, "quote": s, "valid_from": None, "valid_to": None, "replaces": None} for s in quoted],
        })
    concepts = []
    if openers:
        opener = openers[0]
        quoted = [s for s in said if s.startswith(opener)][:2]
        concepts.append({"name": opener, "summary": quoted[0] if quoted else "", "sections": [
            {"heading": "Overview", "facts": [{"text": s, "quote": s, "valid_from": None, "valid_to": None,
                                               "replaces": None} for s in quoted]}]})
    return {"summary": said[0] if said else "", "entities": entities[:12], "concepts": concepts,
            "comparisons": [], "relations": []}


def route(body: dict[str, Any]) -> Any:
    """The stand-in server's route: extraction requests get the careless plan, compose requests each claim as a
    sentence, answers a short text."""
    from standin_openai import composed_as_listed, is_answer_request, is_compose_request, reply

    if is_answer_request(body):
        return reply("The wiki says little about that.")
    if is_compose_request(body):
        return composed_as_listed(body)
    return careless_plan(source_of(body))
