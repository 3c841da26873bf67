"""`identity.md`: who the user is, in their own words, at the vault root.

A special file like SCHEMA.md (not a wiki page, never in index.md, not indexed by the palace; lint checks
its links like any note of the person's own). `wikic init` starts it from `templates/vault/identity.md`;
`wikic wake-up` prints its text first. Its frontmatter's `name` (and `aliases`) say which page is the
user's own: memories whose subject is the user (the model calls them "user") land on the page of that name,
or on the page "Me" when no name is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from wikic.vault.frontmatter import split_page
from wikic.vault.layout import IDENTITY_FILE
from wikic.vault.paths import read_text_inside

DEFAULT_USER_TITLE = "Me"
# What a conversation's model calls the person it talks with
USER_WORDS = frozenset({"user", "the user", "me", "myself", "i"})
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)|%%.*?(?:%%|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Identity:
    name: str = ""
    aliases: tuple[str, ...] = ()
    text: str = ""  # the file's body without frontmatter, comments and its `# Identity` title
    present: bool = False

    @property
    def title(self) -> str:
        """The title of the user's own page."""
        return self.name or DEFAULT_USER_TITLE

    def is_user(self, subject: str) -> bool:
        folded = " ".join(subject.casefold().split())
        return folded in USER_WORDS or folded in {n.casefold() for n in (self.title, *self.aliases) if n}


def read_identity(root: Path) -> Identity:
    """The vault's identity.md (an empty Identity when there is none, or it cannot be read); VaultError when
    it is a link leading outside the vault (a credentials file's text must never reach a briefing)."""
    try:
        raw = read_text_inside(Path(root), Path(root) / IDENTITY_FILE, encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return Identity()
    if raw is None:
        return Identity()
    data, body = split_page(raw)
    data = data or {}
    name = data.get("name")
    aliases = data.get("aliases")
    body = _COMMENT.sub("", body)
    lines = [line.rstrip() for line in body.strip().split("\n")]
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    text = "\n".join(lines).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return Identity(
        " ".join(name.split()) if isinstance(name, str) else "",
        tuple(" ".join(a.split()) for a in aliases if isinstance(a, str) and a.strip())
        if isinstance(aliases, list)
        else (),
        text,
        True,
    )
