"""Where things live in a wikic vault (docs/vault-format.md). One place, so no module hard-codes a folder name."""

from __future__ import annotations

from pathlib import Path

from wikic.errors import UsageError
from wikic.vault.paths import confined

SCHEMA_FILE = "SCHEMA.md"
INDEX_FILE = "index.md"
LOG_FILE = "log.md"
OVERVIEW_FILE = "overview.md"  # what the wiki covers, its main subjects, latest changes: written by code
IDENTITY_FILE = "identity.md"  # who the user is, in their own words: the head of every briefing (`wikic wake-up`)
STATE_DIR = ".wikic"  # what wikic keeps there is named in `state.py`
RAW_DIR = "raw"
RAW_SUBDIRS = ("articles", "papers", "transcripts", "notes", "assets")  # notes: what an assistant was asked to remember
# Conversation exports as they came (a ChatGPT zip, a session's JSONL), kept verbatim once under a
# content-addressed name. They are not sources: the transcripts made from them are, so nothing compiles,
# indexes or re-reads this folder.
EXPORTS_DIR = f"{RAW_DIR}/transcripts/exports"

# page type -> folder. SCHEMA.md may add types; these are the built-in ones.
PAGE_FOLDERS: dict[str, str] = {
    "entity": "entities",
    "concept": "concepts",
    "comparison": "comparisons",
    "query": "queries",
    "source": "sources",  # a page per raw source: what it says, the pages it fed (written by code)
}
# Page types whose pages lead into the wiki rather than being about a subject: code writes them, and a link
# from one of them says nothing about how well the wiki links a subject (lint's orphan-page). Together with
# index.md and overview.md they are the hubs; every other page is a subject page.
HUB_TYPES = frozenset({"source"})
SUBJECT_FOLDERS = tuple(folder for kind, folder in PAGE_FOLDERS.items() if kind not in HUB_TYPES)

SPECIAL_FILES = (SCHEMA_FILE, INDEX_FILE, LOG_FILE, OVERVIEW_FILE, IDENTITY_FILE)

# The folders wikic writes into besides its state's (`state.STATE_FOLDERS`), checked whenever a command opens
# a vault (`require_vault`); the folders of page types SCHEMA.md adds, and anything deeper, are checked where
# they are written.
OWN_FOLDERS = (RAW_DIR, *(f"{RAW_DIR}/{sub}" for sub in RAW_SUBDIRS), *PAGE_FOLDERS.values())

# Where Obsidian puts a new note (.obsidian/app.json): outside the page folders, so a note a person starts
# there is linted for its links only, and is not a wiki page missing its frontmatter and index entry.
INBOX_DIR = "inbox"

# Folders never scanned as notes: tool state, Obsidian settings, trash, VCS.
IGNORED_DIRS = frozenset({STATE_DIR, ".obsidian", ".trash", ".git", ".hg", ".svn", "node_modules"})


def require_own_root_files(root: Path) -> None:
    """For the commands that write the wiki (ingest, filing an answer): VaultError, before a model is asked,
    when a file at the root they read (SCHEMA.md, index.md, log.md, overview.md, identity.md) is a symbolic
    link leading outside the vault ("refusing to read identity.md: it leads outside the vault (to ...)")."""
    for name in SPECIAL_FILES:
        confined(root, Path(root) / name, verb="read")


def in_vault_tree(rel: str) -> bool:
    """`rel` names a place in the vault's visible tree: vault-relative, never climbing out (`..`), never in a
    dot-folder (`.wikic`, `.obsidian`, `.git`), never with a backslash (which Windows reads as `/`)."""
    return bool(rel) and all(part and part[0] != "." and "\\" not in part for part in rel.split("/"))


def is_note_path(rel: str) -> bool:
    """`rel` is a file wikic's one writer (`wikic.pages`) may write: a Markdown note of the vault's tree (a
    page, index.md, overview.md, a source page, a person's note whose link `lint --fix` repairs), never one
    in raw/ (which never changes), SCHEMA.md, or log.md (whose rows are appended, never its text replaced).
    Compared without case: a file system that ignores it writes `Raw/x.md` into raw/."""
    folded = rel.casefold()
    return (in_vault_tree(rel) and folded.endswith(".md") and not folded.startswith(RAW_DIR + "/")
            and folded not in (SCHEMA_FILE.casefold(), LOG_FILE))


def is_export(rel: str) -> bool:
    """A vault-relative path inside the conversation exports folder (kept, never compiled or indexed)."""
    return rel == EXPORTS_DIR or rel.startswith(EXPORTS_DIR + "/")


def find_vault_root(start: Path) -> Path:
    """The nearest directory at or above `start` holding SCHEMA.md, else `start` itself."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if is_vault(candidate):
            return candidate
    return start


def is_vault(root: Path) -> bool:
    """A wikic vault holds SCHEMA.md. Only there does wikic keep state (.wikic/) unless asked to."""
    return (Path(root) / SCHEMA_FILE).is_file()


def require_vault(root: Path) -> None:
    """For everything that needs a wikic vault (ingest, the palace, query, status, the MCP server): refuse a
    plain folder before anything is written into it, and a vault whose own folders lead outside it (before
    a model is asked anything: its replies could not be kept)."""
    if not is_vault(root):
        raise UsageError(
            f"{root} is not a wikic vault (no {SCHEMA_FILE})",
            hint="run `wikic init` to make it one, or give a vault with --vault DIR",
        )
    from wikic.vault.state import STATE_FOLDERS  # state names its own folders, and imports this module

    for folder in (*STATE_FOLDERS, *OWN_FOLDERS):
        confined(root, Path(root) / folder)
