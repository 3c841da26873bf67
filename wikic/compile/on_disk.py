"""The vault as one compile reads it from disk, each part read once, when it is first asked for: the parsed
vault, the raw sources each page cites, the raw files' names, the page each claim id is on.

Pages do not change on disk during a compile (the vault lock is held, and everything is written after), so
nothing here is read twice; what the run plans is kept apart (`drafts.py`).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from pathlib import Path

from wikic.errors import VaultError
from wikic.vault import frontmatter as fm_parser
from wikic.vault.formats.anchors import parse_spec, render as render_anchor
from wikic.vault.formats.claims import is_claim_id
from wikic.vault.layout import RAW_DIR
from wikic.vault.load import Vault, load_vault, walk
from wikic.vault.paths import read_text_inside
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import Schema


class OnDisk:
    def __init__(self, root: Path, schema: Schema, vault: Vault | None = None) -> None:
        """`vault`: the vault on disk, when the caller has read it."""
        self.root = root
        self.schema = schema
        self.folder_types = schema.folder_types()
        self._vault = vault
        self._sources: dict[str, frozenset[str]] | None = None  # page -> raw sources it cites
        self._citing: dict[str, set[str]] = {}  # raw source -> pages citing it
        self._raw_names: Counter[str] | None = None  # folded raw file name -> how many raw files carry it
        self._block_pages: dict[str, str] | None = None  # claim block id -> the page it is on
        self._page_stems: set[str] | None = None  # the note names of the subject pages

    def vault(self) -> Vault:
        """The vault as it is on disk, read once (the run writes nothing before its compile is done, and the
        hubs are planned from this same reading)."""
        if self._vault is None:
            self._vault = load_vault(self.root, use_cache=True, schema=self.schema)
        return self._vault

    def read(self, path: str) -> str | None:
        """The page's text; None for no page, or one that cannot be read (not UTF-8, a link leading outside the
        vault: never read, and never written into)."""
        try:
            return read_text_inside(self.root, self.root / path)
        except (OSError, UnicodeDecodeError, VaultError):
            return None

    def read_replacing(self, path: str) -> str | None:
        """The page's text with what is not UTF-8 replaced; None for no page."""
        return read_text_inside(self.root, self.root / path, errors="replace")

    def sources(self) -> dict[str, frozenset[str]]:
        """page -> the raw sources its frontmatter lists."""
        if self._sources is None:
            self._sources = {}
            vault = self.vault()
            for path in vault.subject_pages:  # a source page cites its source too, and is no sibling
                listed = (vault.notes[path].frontmatter or {}).get("sources")
                sources = (
                    frozenset(fm_parser.unwrap_link(s) for s in listed if isinstance(s, str))
                    if isinstance(listed, list)
                    else frozenset()
                )
                self._sources[path] = sources
                for source in sources:
                    self._citing.setdefault(source, set()).add(path)
        return self._sources

    def citing(self, source: str) -> set[str]:
        """The pages whose frontmatter lists the raw file `source`."""
        self.sources()
        return self._citing.get(source, set())

    def cite(self, anchor: str, *, in_table: bool = False) -> str:
        """The anchor for a claim: a link to the raw file (its name as text, or its path when another raw
        file has the same name) and the line range."""
        cited = parse_spec(anchor)
        if self._raw_names is None:
            files, _ = walk(self.root / RAW_DIR)
            self._raw_names = Counter(fold_name(posixpath.basename(p)) for p in files)
        shared = cited is not None and self._raw_names.get(fold_name(posixpath.basename(cited.path)), 0) > 1
        return render_anchor(anchor, label=cited.path if cited is not None and shared else None, in_table=in_table)

    def page_of_claim(self, claim: str) -> str | None:
        """The page holding the claim block `claim`, found by its block id in the parsed vault."""
        if self._block_pages is None:
            vault = self.vault()
            self._block_pages = {
                block.id: path for path in vault.pages for block in vault.notes[path].blocks if is_claim_id(block.id)
            }
        return self._block_pages.get(claim)

    def page_stems(self) -> set[str]:
        """The folded note names of the subject pages."""
        if self._page_stems is None:
            self._page_stems = {fold_name(posixpath.basename(p)[:-3]) for p in self.vault().files
                                if p.endswith(".md") and not self.is_hub_or_query(p)}
        return self._page_stems

    def is_query_page(self, path: str) -> bool:
        return self.folder_types.get(path.split("/", 1)[0]) == "query"

    def is_hub_or_query(self, path: str) -> bool:
        """Not a subject page: a source page, a query page, or a file outside the page folders."""
        return self.folder_types.get(path.split("/", 1)[0]) in (None, "query", "source")
