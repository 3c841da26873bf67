"""Matching names the model proposes against pages that exist, so no duplicate page is born.

A page is known by its title, its aliases and its file name; each is reduced to a few keys (case- and
punctuation-insensitive, hyphen-insensitive, and the acronym of a multi-word name), and a proposed name
matches a page when one of its keys matches one of the page's.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from wikic.vault.link_text import LinkNames
from wikic.vault.load import Vault, load_vault
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import Schema
from wikic.vault.slug import slugify

_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


def normalize_name(name: str) -> str:
    """The identity of a name: NFKC, case-folded, separators collapsed, a leading article dropped."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = re.sub(r"[\s_\-‐-―/]+", " ", text)
    text = re.sub(r"[^\w ]+", "", text).strip()
    return re.sub(r"^(the|a|an) ", "", text)


# Last words that say what kind of thing a name is, not which: "Qwen3 model" is Qwen3, "Acme Corp" is Acme.
GENERIC_LAST_WORDS = frozenset(
    "db database benchmark model models library framework toolkit sdk project inc corp corporation ltd llc".split()
)
# ...and the same glued on ("ChromaDB", "DuckDB"): only after a word of three letters or more.
_GLUED_DB = re.compile(r"^(?P<base>[^\W\d_]{3,}?)db$", re.IGNORECASE)
# A Latin name followed by a Chinese or Japanese noun that only says what kind of thing it is ("BM25 关键词检索",
# BM25 keyword retrieval; "ChromaDB 向量数据库"). Whole tails only: "Qwen3 嵌入模型" (embedding model) says which.
GENERIC_CJK_TAILS = frozenset(
    """数据库 向量数据库 关键词检索 检索 检索算法 模型 服务 工具 框架 算法 系统 平台 引擎 库 软件 项目 公司
    データベース モデル ツール フレームワーク""".split()
)
_CJK_TAIL = re.compile(r"^(?P<base>[A-Za-z][\w.\-]*(?: [A-Za-z][\w.\-]*)*)\s*(?P<tail>[^\x00-\x7f\s]+)$")


def base_name(name: str) -> str:
    """`name` without a last word that only says what kind of thing it is ("Chroma" for "ChromaDB", "Chroma
    DB" or "Chroma database", "Qwen3-Embedding" for "Qwen3-Embedding model"), so the forms a source writes for
    one subject are one subject, "BM25" for "BM25 关键词检索"; `name` itself when that would leave nothing.
    "Qwen3" and "Qwen3-Embedding" stay two names: "embedding" says which model."""
    return _base_name(name, _WORDS.findall(name))


def _base_name(name: str, found: list[str]) -> str:
    """`base_name`, given the name's words (`name_keys` finds them once for this and the acronym)."""
    if not name.isascii():  # a kind-of-thing tail in Chinese or Japanese is never ASCII
        tail = _CJK_TAIL.match(name.strip())
        if tail and tail.group("tail") in GENERIC_CJK_TAILS:
            return base_name(tail.group("base"))
    if len(found) >= 2 and found[-1].casefold() in GENERIC_LAST_WORDS:
        cut = re.sub(rf"[\W_]*{re.escape(found[-1])}[\W_]*$", "", name)
        return cut.strip() or name
    glued = _GLUED_DB.match(name.strip()) if len(found) == 1 else None
    return glued.group("base") if glued else name


def acronym(name: str) -> str | None:
    return _acronym(_WORDS.findall(name))


def _acronym(words: list[str]) -> str | None:
    if len(words) < 2:
        return None
    letters = "".join(w[0] for w in words if w[0].isalpha())
    return fold_name(letters) if len(letters) >= 2 else None


def name_keys(name: str, *, with_acronym: bool = True) -> list[str]:
    slug = slugify(name)
    keys = [fold_name(" ".join(name.split())), slug, slug.replace("-", "")]
    words = _WORDS.findall(name)
    base = _base_name(name, words)
    if base != name:  # "ChromaDB" is found as "Chroma", and "Chroma" as "ChromaDB"
        keys += [fold_name(" ".join(base.split())), slugify(base), slugify(base).replace("-", "")]
    if with_acronym:
        acr = _acronym(words)
        if acr:
            keys.append("acr:" + acr)
    # a name that *is* an acronym ("RAG") matches the acronym key of a long name
    compact = slug.replace("-", "")
    if compact and compact.isalnum() and len(compact) <= 6 and name.strip().isupper():
        keys.append("is-acr:" + compact)
    return [k for k in dict.fromkeys(keys) if k]


def lookup_keys(name: str) -> list[str]:
    """The keys a proposed name is matched by: its own, except that an acronym matches only a name that
    is one ("RAG" and "Retrieval-Augmented Generation"), never another long name with the same initials
    ("Sam Altman" is not "Stability AI")."""
    flip = {"acr:": "is-acr:", "is-acr:": "acr:"}
    out = []
    for key in name_keys(name):
        prefix = next((p for p in flip if key.startswith(p)), None)
        out.append(flip[prefix] + key[len(prefix) :] if prefix else key)
    return out


# -- the forms of one name -------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    """The folded words of `text` (`wikic.text.terms.words`), imported on first use: lint reads this module
    on every run and seldom needs them."""
    from wikic.text.terms import words

    return tuple(word for word, _, _ in words(text))


def name_forms(name: str, aliases: Iterable[str] = ()) -> list[tuple[str, ...]]:
    """The word sequences a source may write a name as: the name and its aliases, each also without a last
    word that only says what kind of thing it is ("ChromaDB", "Chroma database" for "Chroma"; "Outgoing links"
    for "Outgoing links plugin"), with its last word singular or plural ("Note", "Notes"; "Alias", "Aliases"),
    and a one-word name with "DB" glued on. Words are folded, so an article before the name ("An alias is…")
    never hides it."""
    forms: dict[tuple[str, ...], None] = {}
    for given in (name, *aliases):
        for form in (given, base_name(given)):
            found = _words(form)
            if found:
                forms[found] = None
                for other in _numbers_of(found[-1]):
                    forms[(*found[:-1], other)] = None
                if len(found) == 1 and found[0].isascii() and found[0].isalpha():
                    forms[(found[0] + "db",)] = None
    return list(forms)


def _numbers_of(word: str) -> list[str]:
    """The singular and plural of an English word of letters ("alias" → "aliases", "notes" → "note")."""
    if not (word.isascii() and word.isalpha() and len(word) > 2):
        return []
    from wikic.text.common_words import singular

    one = singular(word)
    if one != word:
        return [one]
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return [word + "es"]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return [word[:-1] + "ies"]
    return [word + "s"]


def same_subject(name: str, alias: str, *, person: bool = False) -> bool:
    """`alias` is another form of `name` (case, spacing, hyphens, a singular or plural, a generic tail; the
    last word alone when no list knows it, or for a `person`: "Altman" of "Sam Altman", not "Sync" of
    "Brightline Sync"; the name with a model's tag: "qwen3:8b" of "Qwen3"): a reader sees they are one
    subject without being told."""
    if set(name_forms(alias)) & set(name_forms(name)):
        return True
    # a model's tag after the name, as Ollama writes it ("qwen3:8b" is Qwen3 at 8B)
    if any(a.split(":", 1)[0].strip() and same_subject(b, a.split(":", 1)[0])
           for a, b in ((alias, name), (name, alias)) if ":" in a and " " not in a.strip()):
        return True
    one, other = list(_words(name)), list(_words(alias))
    if one and "".join(one) == "".join(other):  # "GPT4" of "GPT-4"
        return True
    full, short = (one, other) if len(one) >= len(other) else (other, one)
    # a family name is a person's ("Altman"); a word no list knows ends a name only as that name's own
    from wikic.text.common_words import common_word

    return 2 <= len(full) <= 4 and short == full[-1:] and (person or not common_word(short[0]))


def names_in(text: str, name: str, aliases: Iterable[str] = ()) -> bool:
    """`text` writes `name`, one of its `aliases`, or another form of either (whole words, in order), or the
    acronym of a name of several words in capitals ("RAG combines…" names Retrieval-Augmented Generation)."""
    said = _words(text)
    forms = name_forms(name, aliases)
    if any(said[i : i + len(form)] == form for form in forms for i in range(len(said) - len(form) + 1)):
        return True
    initials = [a for a in (acronym(n) for n in (name, *aliases)) if a]
    return bool(initials) and any(w.isupper() and fold_name(w) in initials for w in re.findall(r"[^\W_]+", text))


PEOPLE = frozenset({"person", "people", "author", "researcher", "founder", "ceo", "engineer", "scientist"})


_NAME_RUN = r"(?:[\"“'(*_]*[A-Z\d][\w.+:/-]*(?:[ -][A-Z\d][\w.+:/-]*)*)"
_OPENING_NAMES = re.compile(rf"\s*(?:(?:the|a|an|The|A|An)\s+)?{_NAME_RUN}(?:\s*,\s*{_NAME_RUN})*"
                            rf"(?:,?\s+(?:and|or)\s+{_NAME_RUN})?")


def _opening_names(sentence: str) -> str:
    """The names a sentence opens with, one or a list ("Chroma, Qdrant and Milvus"), as written."""
    found = _OPENING_NAMES.match(sentence)
    return found.group(0) if found else ""


def is_about(sentence: str, name: str, aliases: Iterable[str] = ()) -> bool:
    """The sentence opens with the subject's name, alone or in a list ("Chroma, Qdrant and Milvus are…" is
    about each of them): a sentence about it, not one that names it in passing."""
    return names_in(_opening_names(sentence), name, aliases)


def is_person(kind: str) -> bool:
    """The model's kind says the entity is a person."""
    return kind.strip().casefold() in PEOPLE


def is_acronym_of(name: str, alias: str) -> bool:
    """`alias` is the acronym of `name`'s words ("RAG" of "Retrieval-Augmented Generation")."""
    initials = acronym(name)
    return initials is not None and fold_name(alias.strip()) == initials


@dataclass
class PageNames:
    """name key -> page path, built from the vault's pages."""

    by_key: dict[str, str] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    titles: dict[str, str] = field(default_factory=dict)  # path -> title
    labels: dict[str, list[str]] = field(default_factory=dict)  # path -> title + aliases

    def add(self, path: str, title: str, aliases: list[str]) -> None:
        self.titles[path] = title
        labels = [title, *aliases]
        self.labels[path] = labels
        stem = posixpath.basename(path)[:-3] if path.endswith(".md") else posixpath.basename(path)
        for label in [*labels, stem]:
            for key in name_keys(label):
                owner = self.by_key.get(key)
                if owner is not None and owner != path:
                    self.ambiguous.add(key)
                else:
                    self.by_key[key] = path

    def drop(self, path: str) -> None:
        """Forget the page at `path` (it is removed, or its names are about to be given again)."""
        self.by_key = {key: owner for key, owner in self.by_key.items() if owner != path}
        self.titles.pop(path, None)
        self.labels.pop(path, None)

    def lookup(self, name: str, aliases: tuple[str, ...] | list[str] = ()) -> str | None:
        for candidate in (name, *aliases):
            for key in lookup_keys(candidate):
                if key in self.by_key and key not in self.ambiguous:
                    return self.by_key[key]
        return None

    def snapshot(self) -> PageNames:
        """A copy to `restore` from: `add` replaces entries and never changes a stored list in place."""
        return PageNames(dict(self.by_key), set(self.ambiguous), dict(self.titles), dict(self.labels))

    def restore(self, saved: PageNames) -> None:
        self.by_key, self.ambiguous = dict(saved.by_key), set(saved.ambiguous)
        self.titles, self.labels = dict(saved.titles), dict(saved.labels)


class LabelIndex:
    """Which pages a text names by title or alias (a label of three characters or more found anywhere in
    the text, case aside), built once from every page's labels so that asking costs the length of the text,
    not the number of pages: each label is filed under its rarest three-character piece, and only the
    labels filed under a piece the text holds are looked for."""

    def __init__(self, labels: dict[str, list[str]]) -> None:
        self._order = {path: n for n, path in enumerate(labels)}
        wanted = [(path, label.lower()) for path, found in labels.items() for label in found if len(label) > 2]
        counts: dict[str, int] = {}
        for _, low in wanted:
            for gram in {low[i : i + 3] for i in range(len(low) - 2)}:
                counts[gram] = counts.get(gram, 0) + 1
        self._filed: dict[str, list[tuple[str, str]]] = {}
        for path, low in wanted:
            rarest = min((low[i : i + 3] for i in range(len(low) - 2)), key=lambda g: (counts[g], g))
            self._filed.setdefault(rarest, []).append((low, path))

    def named_in(self, text: str, limit: int) -> list[str]:
        """The first `limit` pages (in the order of the labels given) a label of which `text` contains."""
        low = text.lower()
        found: set[str] = set()
        for gram in {low[i : i + 3] for i in range(len(low) - 2)}:
            for label, path in self._filed.get(gram, ()):
                if path not in found and label in low:
                    found.add(path)
        return sorted(found, key=self._order.__getitem__)[:limit]


class NameSet:
    """A handful of names (a comparison's subjects), each found again under any spelling that names the
    same thing: case, punctuation and hyphens ("GPT-4", "gpt 4"), a leading article, an acronym ("RAG"
    for "Retrieval-Augmented Generation"), or an alias the same plan gives it (`groups`: each entity's
    name and aliases). Pages are not consulted: the same plan always makes the same table."""

    def __init__(self, groups: Iterable[Iterable[str]] = ()) -> None:
        self.names: list[str] = []
        self._keys: list[set[str]] = []
        self._group: dict[str, int] = {}
        for i, group in enumerate(groups):
            for name in group:
                self._group.setdefault(normalize_name(name), i)

    def _keys_of(self, name: str, *, proposed: bool) -> set[str]:
        keys = set(lookup_keys(name) if proposed else name_keys(name))
        keys.add("norm:" + normalize_name(name))
        group = self._group.get(normalize_name(name))
        if group is not None:
            keys.add(f"group:{group}")
        return keys

    def find(self, name: str) -> str | None:
        """The name in the set that `name` means, or None."""
        wanted = normalize_name(name)
        for known in self.names:  # the same words first, so an acronym key never beats them
            if normalize_name(known) == wanted:
                return known
        keys = self._keys_of(name, proposed=True)
        return next((known for known, mine in zip(self.names, self._keys, strict=True) if keys & mine), None)

    def add(self, name: str) -> str:
        """`name`, or the name already in the set that means the same."""
        known = self.find(name)
        if known is None:
            self.names.append(name)
            self._keys.append(self._keys_of(name, proposed=False))
            known = name
        return known


def page_names(root: Path, schema: Schema) -> tuple[PageNames, LinkNames]:
    """Every subject page of the vault by title, aliases and file name (a source page is named after its
    source, and no name the model proposes means it), and the link names of every file."""
    return names_of(load_vault(root, use_cache=True, schema=schema))


def names_of(vault: Vault) -> tuple[PageNames, LinkNames]:
    """`page_names` of a vault already read."""
    names = PageNames()
    for path in vault.subject_pages:
        fm = vault.notes[path].frontmatter or {}
        given = fm.get("title")
        title = given if isinstance(given, str) else posixpath.basename(path)[:-3]
        aliases = (
            [a for a in fm.get("aliases") or [] if isinstance(a, str)] if isinstance(fm.get("aliases"), list) else []
        )
        names.add(path, title, aliases)
    return names, LinkNames(vault.files)
