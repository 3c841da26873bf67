"""The MCP server's tools as data: each tool's name, what it may do, and the description its client reads,
in the order the server offers them. The server (`mcp_server.py`) adds them from here, and `wikic mcp --help`
lists them from here without importing the MCP SDK."""

from __future__ import annotations

from wikic.vault.formats.memory_items import TOLD_KINDS

# What a tool may do; the server marks each with the MCP annotations that say it.
READ_ONLY = "read-only"
ASKS_MODEL = "asks-model"  # calls the configured LLM, and may write
CAPTURES = "captures"  # writes into raw/, the same note twice once
COUNTS = "counts"  # writes, and each call counts (a confirmation, a claim ended)

TOOLS: tuple[tuple[str, str, str], ...] = (
    (
        "search",
        READ_ONLY,
        "Search the wiki's pages and raw sources by meaning and by words (any language). Returns the best files "
        "with their best passage. wing: entities, concepts, comparisons, queries, raw or notes.",
    ),
    (
        "read_page",
        READ_ONLY,
        "Read a page or raw source: a vault path (entities/openai.md), a page name as in a wikilink (openai), or a "
        "page's title or alias (OpenAI).",
    ),
    (
        "overview",
        READ_ONLY,
        "The wiki's overview: what it covers, its main subjects grouped (each with its lead), its latest changes, "
        "its open questions and its counts. Start here to find your way; read_page any [[link]] in it.",
    ),
    (
        "list_pages",
        READ_ONLY,
        "List wiki pages with their title and summary; filter by type (entity, concept, comparison, query, "
        "source: a page per raw source) or tag.",
    ),
    (
        "query",
        ASKS_MODEL,
        "Answer a question from the wiki with checked [[citations]] (calls the configured LLM). Says so when "
        "the wiki has no answer; when the model finds none but the wiki has sentences that match the question, "
        "quotes them, cited and marked as quoted (never filed). save=true files the answer as a query page; "
        "allow_general=true permits a general-knowledge answer, marked as such, when the wiki has none.",
    ),
    (
        "ingest",
        ASKS_MODEL,
        "Compile sources into wiki pages with the LLM: file paths, http(s) URLs, or raw/ paths from file_note.",
    ),
    (
        "proposals",
        READ_ONLY,
        "The runs kept for review (ingest with [ingest] review = true, or wikic ingest --review) and not accepted "
        "or rejected yet: each one's id, sources, pages created and updated, claims added, dropped and refused.",
    ),
    (
        "proposal",
        READ_ONLY,
        "What one proposal would change, for the user to read: each page (new ones whole, changed ones as a diff) "
        "and the claims it adds or drops, each with the source lines it rests on. pages: only these pages.",
    ),
    (
        "accept",
        COUNTS,
        "Apply a proposal the user accepted, or only the pages or claims (their ids) they accepted; what is left "
        "out stays in the proposal. A page the user changed since, in the same part, is left out and said.",
    ),
    (
        "reject",
        COUNTS,
        "Reject a proposal, or the pages or claims (ids) the user rejected, for good: later runs of those sources "
        "do not propose them again. why: the user's reason, kept beside it.",
    ),
    (
        "lint",
        READ_ONLY,
        "Check the vault: broken links, orphans, index gaps, frontmatter, stale pages, contradictions. "
        "rules: only these rule ids.",
    ),
    (
        "status",
        READ_ONLY,
        "Pages per type, sources, palace size and model, last operations, lint summary and token totals.",
    ),
    (
        "eval",
        READ_ONLY,
        "How good the wiki is, checked by code (no model): sentences cited, anchors still holding in raw/, "
        "specifics their quotes state, leads, layout, links, orphans, contradictions, what the runs refused, and a "
        "health score out of 100, then the worst pages. page: one page's figures (its path, file name or title).",
    ),
    (
        "file_note",
        CAPTURES,
        "Save a note into raw/ (immutable, for a later ingest); nothing is compiled and no model is called.",
    ),
    (
        "facts",
        READ_ONLY,
        "What the wiki says held about a subject (a page's title, alias or file name) on a date: its claims with "
        "the time each holds, its anchor and its id; contradicting claims are marked. as_of: YYYY, YYYY-MM or "
        "YYYY-MM-DD (default today).",
    ),
    (
        "invalidate",
        COUNTS,
        "End a claim (its id, from facts) that no longer holds, with the reason: written as a dated note in "
        "raw/notes/, the claim moves to its page's history. on: the day it stopped holding (default today).",
    ),
    (
        "wake_up",
        READ_ONLY,
        "The briefing for a new session: who the user is, their instructions and preferences, active projects "
        "with their latest decisions, important recent memories; each with its [[link]]. budget: tokens; "
        "project: brief on one project; overview=true adds what the wiki covers and its main subjects.",
    ),
    (
        "recall",
        READ_ONLY,
        f"Find memories, best first (importance, confirmations, recency): query words, kind ({', '.join(TOLD_KINDS)}) "
        "and subject (user, or a project's or tool's page name) narrow them.",
    ),
    (
        "remember",
        ASKS_MODEL,
        f"Remember something for later sessions: kind ({', '.join(TOLD_KINDS)}), content, importance "
        "0-1, subject (user, or what it is about). Saved as a dated note in raw/notes/ and compiled with the LLM "
        "(captured for a later ingest when no model is configured).",
    ),
    (
        "confirm_lesson",
        COUNTS,
        "Confirm a lesson on the wiki (its words, or the same meaning); two confirmations make it verified. "
        "page: where it is, when several pages have lessons.",
    ),
)
