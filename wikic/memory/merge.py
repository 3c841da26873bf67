"""Memories into pages: how the memories a source brings join the ones a page already has.

A memory lands on the entity page of its subject (the user's own page, named by identity.md: `identity.py`;
a project's page...), in the compiler block of its kind (`wikic/vault/formats/memory_items.py`). Its subject
is an entity like any other: below SCHEMA.md's `entity_min_references` it waits in the mentions ledger with
its memories, which land when the page is created (the compiler, `wikic/compile/compiler.py`, places them).

Duplicates are merged, not repeated: a memory whose meaning matches an item already on the page (cosine
similarity >= 0.92 between their embeddings, by the palace's default packaged model, multilingual USE:
the threshold is set for it) adds its anchor to that item instead of a new line; a memory said again
later refreshes the item's date for ranking. Without an embedding model, only the same words match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wikic.errors import WikicError
from wikic.pages.blocks import digest, find_block
from wikic.text.terms import negated
from wikic.vault.formats.memory_items import KINDS, SECTIONS, MemoryItem, block_key, parse_items, render_items
from wikic.vault.formats.mentions import MemoryRow
from wikic.vault.names import normalize_name

if TYPE_CHECKING:  # numpy is imported where vectors are compared: `wikic ingest` starts fast
    import numpy as np

    from wikic.memory.kept_vectors import KeptVectors

DUPLICATE_SIMILARITY = 0.92
OVERFLOW = ":more"  # the block new items go to when a person edited the kind's block

Embed = Callable[[list[str]], "np.ndarray"]  # texts -> L2-normalised rows


# the model `packaged_embedder` loads, and the size of its vectors: what the vectors kept for it must be
PACKAGED_MODEL, PACKAGED_DIM = "use-multilingual-v3", 512


def packaged_vectors(root: Path) -> KeptVectors:
    """The vectors `packaged_embedder` made in earlier runs, kept in the vault at `root`."""
    from wikic.memory.kept_vectors import KeptVectors

    return KeptVectors(root, PACKAGED_MODEL, PACKAGED_DIM)


def packaged_embedder() -> Embed | None:
    """The embedding function duplicates are judged by (USE, whatever the palace's provider: the threshold
    is set for it), or None when it cannot be loaded."""
    try:
        from wikic.embed import make_embedder
        from wikic.settings import EmbeddingSettings

        return make_embedder(EmbeddingSettings(provider="use")).embed
    except (ImportError, OSError, WikicError):
        return None


@dataclass
class MemoryBlocks:
    blocks: list[tuple[str, str, str | None]] = field(default_factory=list)  # (key, body, section)
    added: int = 0
    merged: int = 0  # said again: an anchor added to an item already there
    kept: list[str] = field(default_factory=list)  # blocks a person edited that took nothing new


class Deduplicator:
    """Decides which memory items say the same thing. `embed` is loaded on first use, and each text is
    embedded once per run."""

    def __init__(self, embed: Callable[[], Embed | None] | None, kept: KeptVectors | None = None) -> None:
        """`kept`: the vectors `embed` made in earlier runs (`kept_vectors.py`), used and added to."""
        self._load = embed
        self._embed: Embed | None = None
        self._loaded = embed is None
        self._vectors: dict[str, np.ndarray] = {}
        self._kept = kept
        # each text's name form and denial, worked out once per run: a page's items are the candidates of
        # every memory that joins it, and a page of thousands of items would otherwise cost each of them that
        # much again
        self._names: dict[str, str] = {}
        self._denials: dict[str, bool] = {}

    def _name(self, text: str) -> str:
        found = self._names.get(text)
        if found is None:
            found = self._names[text] = normalize_name(text)
        return found

    def _denies(self, text: str) -> bool:
        found = self._denials.get(text)
        if found is None:
            found = self._denials[text] = negated(text)
        return found

    def _model(self) -> Embed | None:
        if not self._loaded:
            self._loaded = True
            self._embed = self._load() if self._load is not None else None
        return self._embed

    def best(self, text: str, candidates: Sequence[str]) -> int | None:
        """The index of the candidate that says the same as `text`, or None."""
        if not candidates:
            return None
        name = self._name(text)
        same = next((i for i, c in enumerate(candidates) if self._name(c) == name), None)
        if same is not None:
            return same
        embed = self._model()
        if embed is None:
            return None
        import numpy as np

        missing = [t for t in dict.fromkeys([text, *candidates]) if t not in self._vectors]
        if missing and self._kept is not None:
            self._vectors.update(self._kept.get(missing))
            missing = [t for t in missing if t not in self._vectors]
        if missing:
            made = embed(missing)
            self._vectors.update(zip(missing, made, strict=True))
            if self._kept is not None:
                self._kept.put(missing, made)
        # an embedding barely tells "likes tabs" from "does not like tabs": a denial is never a duplicate
        mine, denies = self._vectors[text], self._denies(text)
        vectors = self._vectors
        scores = np.array([float(mine @ vectors[c]) if self._denies(c) == denies else -1.0 for c in candidates])
        at = int(np.argmax(scores))
        return at if scores[at] >= DUPLICATE_SIMILARITY else None

    def keep(self) -> None:
        """Keep the vectors this run made for the next runs (when it was given where)."""
        if self._kept is not None:
            self._kept.save()


def memory_blocks(page: str, new: Sequence[MemoryRow], render: Callable[[str], str], cite: Callable[[str], str],
                  dedup: Deduplicator) -> MemoryBlocks:
    """The memory blocks of `page` (its text) once the memories `new` (as the mentions ledger carries them)
    have joined it. `render` turns a memory's text into the page's Markdown
    (escaped, mentions linked); `cite` renders an anchor."""
    out = MemoryBlocks()
    blocks: dict[str, list[MemoryItem]] = {}
    editable: dict[str, bool] = {}
    for kind in KINDS:
        for key in (block_key(kind), block_key(kind) + OVERFLOW):
            found = find_block(page, key)
            blocks[key] = parse_items(found[3], kind) if found else []
            editable[key] = found is None or digest(found[3]) == found[2]
    changed: set[str] = set()
    # every item of the page in order, with its text as compared; an item said again keeps its text
    everything = [(key, i) for key in blocks for i in range(len(blocks[key]))]
    plains = [blocks[key][i].plain for key, i in everything]
    for row in new:
        if row.kind not in SECTIONS:
            continue
        kind, anchor, importance, when = row.kind, row.anchor, row.importance, row.date
        shown = render(row.text)
        match = dedup.best(MemoryItem(kind, when, shown).plain, plains)
        if match is not None:
            key, i = everything[match]
            item = blocks[key][i]
            again = item.said_again(anchor, when, importance)
            if again == item:
                continue  # this very anchor is there already (a source compiled again)
            if not editable[key]:
                out.kept.append(key)
                continue
            blocks[key][i] = again
            changed.add(key)
            out.merged += 1
            continue
        key = block_key(kind) if editable[block_key(kind)] else block_key(kind) + OVERFLOW
        if not editable[key]:
            out.kept.append(key)
            continue
        blocks[key].append(MemoryItem(kind, when, shown, (anchor,), importance))
        # in the page's order: after the items of its own block and of the blocks before it
        keys = list(blocks)
        at = sum(len(blocks[k]) for k in keys[: keys.index(key) + 1]) - 1
        everything.insert(at, (key, len(blocks[key]) - 1))
        plains.insert(at, blocks[key][-1].plain)
        changed.add(key)
        out.added += 1
    for key in sorted(changed, key=lambda k: (KINDS.index(k.split(":")[1]), k)):
        kind = key.split(":")[1]
        items = sorted(blocks[key], key=lambda item: item.date)  # stable: same day, order of arrival
        out.blocks.append((key, render_items(items, cite), SECTIONS[kind]))
    return out
