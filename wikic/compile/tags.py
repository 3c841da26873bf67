"""The taxonomy tags a new page takes: the one tag of its kind of thing, and the tags its own text writes."""

from __future__ import annotations

import re

KIND_TAGS = {
    "person": ("person", "people"),
    "organization": ("organization", "org", "company"),
    "product": ("product", "tool", "tooling"),
    "model": ("model", "llm"),
    "dataset": ("dataset", "data"),
    "place": ("place", "location"),
    "event": ("event",),
}
# The words that say a page's subject is of the kind, for the kinds a model gives what it cannot place.
KIND_WORDS = {
    "product": ("product", "tool", "app", "application", "software", "service", "library", "framework", "platform"),
}


def pick_tags(text: str, kind: str, taxonomy: tuple[str, ...], limit: int = 3) -> list[str]:
    """The taxonomy tags the page's own text or kind supports: the one tag of its kind of thing (a product's
    `product`, not `tool` as well), and the tags whose words the text writes. "Product" is what a small model
    calls whatever it cannot place (an icon, a field of study): that kind gives its tag only when the text says
    what kind of thing it is in one of its words."""
    chosen: list[str] = []
    low = text.lower()

    def writes(words: str) -> bool:
        return re.search(r"(?<!\w)" + re.escape(words) + r"(?!\w)", low) is not None

    wanted = KIND_TAGS.get(kind.lower(), (kind.lower(),)) if kind else ()
    said = KIND_WORDS.get(kind.lower())
    if said is None or any(writes(word) for word in said):
        chosen += [tag for tag in wanted if tag in taxonomy][:1]
    for tag in taxonomy:
        if tag not in chosen and writes(tag.replace("-", " ").replace("_", " ").replace("/", " ")):
            chosen.append(tag)
    return chosen[:limit]
