"""The mentions ledger as the compiler keeps it: the names waiting below their SCHEMA.md threshold, each with
what every source said of it (`vault/formats/mentions.py`: its rows and its file), added to source by source
and taken out when a name gets its page.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from wikic.vault.formats.mentions import Mention, Said, read_mentions, write_mentions
from wikic.vault.names import base_name
from wikic.vault.slug import slugify


class Mentions:
    """key -> the name waiting under it (`Mention`); the key is its kind and its base form's slug."""

    def __init__(self, root: Path, items: dict[str, Mention] | None = None) -> None:
        self.root, self.items = root, items if items is not None else {}

    @classmethod
    def load(cls, root: Path) -> Mentions:
        return cls(root, read_mentions(root))

    def key(self, kind: str, title: str) -> str:
        """The ledger key of a name waiting for its page: its base form ("Chroma" for "ChromaDB"), so every
        form a source writes counts towards one subject. An entry the ledger holds under the name's full form
        (written before forms were merged) is moved to it."""
        key = f"{kind}:{slugify(base_name(title)) or title.lower()}"
        older = f"{kind}:{slugify(title) or title.lower()}"
        if older != key and older in self.items and key not in self.items:
            self.items[key] = self.items.pop(older)
        return key

    def add(self, key: str, kind: str, name: str, aliases: list[str], summary: str, source: str, said: Said,
            detail: str) -> Mention:
        """The entry under `key` once `source` said `said` of the name: a new one, or the one waiting with
        the name's other forms as aliases, its first lead kept, and the kind of thing it is as `detail` says
        (when it says nothing, as an earlier source said)."""
        item = self.items.get(key) or Mention(kind, name, (), summary, {})
        # another form of the same name ("ChromaDB" where it waits as "Chroma") is kept as an alias
        also = {name} if name != item.name else set()
        item = replace(
            item,
            aliases=tuple(sorted(set(item.aliases) | set(aliases) | also)),
            summary=item.summary or summary,
            sources={**item.sources, source: said},
            kind_detail=detail or item.kind_detail or "",
        )
        self.items[key] = item
        return item

    def pop(self, key: str) -> None:
        self.items.pop(key, None)

    def snapshot(self) -> dict[str, Mention]:
        """The ledger as it is now, to `restore` (its entries are frozen: a copy of the map is enough)."""
        return dict(self.items)

    def restore(self, saved: dict[str, Mention]) -> None:
        self.items = dict(saved)

    def save(self) -> None:
        write_mentions(self.root, self.items)
