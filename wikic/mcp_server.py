"""`wikic mcp`: the vault as an MCP server (official `mcp` SDK; stdio, or streamable HTTP on 127.0.0.1).

Every tool is a thin adapter over the library function the CLI calls: parse arguments, call, render text
for the model. Read-only tools are marked `readOnlyHint`; a search or a page that finds nothing returns
guidance text (what to try next), not an error; a wikic error becomes a tool error carrying its message and
hint. The tools, their descriptions and what each may do are listed in `mcp_tools.py`. Tools run in worker
threads over one `VaultContext`: its one palace is used under its lock, by the searches and by the tools that
write (ingest indexes what it writes through it), so searches always see the latest writes.
"""

from __future__ import annotations

import functools
import hmac
import inspect
import json
import logging
import posixpath
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from wikic.errors import UsageError, WikicError, os_errors_reported, require_extra

require_extra("mcp", "llm", "palace")  # the server's tools search, answer and ingest

from mcp.server.mcpserver import MCPServer as _Server
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from wikic import __version__, mcp_tools
from wikic.context import VaultContext
from wikic.mcp_tools import TOOLS
from wikic.palace import Palace
from wikic.user_config import McpToken, mcp_token
from wikic.vault.formats.memory_items import TOLD_KINDS
from wikic.vault.layout import RAW_DIR, RAW_SUBDIRS, require_vault
from wikic.vault.paths import read_text_inside

F = TypeVar("F", bound=Callable[..., Any])

MAX_PAGE_CHARS = 60_000  # a page longer than this is cut (with a note): tool results go into a context window
MAX_FINDINGS = 50

# The fields are snake_case in the SDK; they go over the wire under their camelCase aliases (readOnlyHint, ...).
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
ASKS_MODEL = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)
CAPTURES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
COUNTS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
ANNOTATIONS = {
    mcp_tools.READ_ONLY: READ_ONLY, mcp_tools.ASKS_MODEL: ASKS_MODEL, mcp_tools.CAPTURES: CAPTURES,
    mcp_tools.COUNTS: COUNTS,
}


def _tool_errors(fn: F) -> F:
    """A WikicError becomes a tool error the model can read (message and hint); anything else is a bug. Every
    argument is checked first (`_unusable_text`), for every tool alike."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for name, value in signature.bind_partial(*args, **kwargs).arguments.items():
            for text in value if isinstance(value, list) else [value]:
                problem = _unusable_text(text) if isinstance(text, str) else None
                if problem is not None:
                    raise ToolError(f"{name}: {problem}; nothing was done")
        try:
            with os_errors_reported():
                return fn(*args, **kwargs)
        except WikicError as exc:
            raise ToolError(exc.message + (f" (hint: {exc.hint})" if exc.hint else "")) from None

    return wrapper  # type: ignore[return-value]


def _unusable_text(text: str) -> str | None:
    """What makes a tool's text argument unusable, or None: a NUL character (no path holds one: the file system
    refuses it) or a lone surrogate (no text: it cannot be written as UTF-8, in a file or a reply). Neither is
    shown back, nor is the text."""
    if "\x00" in text:
        return "holds a NUL character, which no path or text may hold"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (\\ud800-\\udfff), which is no text"
    return None


def _echo(text: str, limit: int = 100) -> str:
    """`text` as a reply shows it back: a query is named, not repeated whole."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class WikiTools:
    """The tools, as plain methods over one vault (usable without MCP, e.g. in tests)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        require_vault(self.root)
        # the server's one context: wikic.toml and SCHEMA.md read again only when they change, one palace
        self.context = VaultContext(self.root)
        self._lock = self.context.palace_lock

    # -- the palace --------------------------------------------------------------------------------------
    def palace(self) -> Palace:
        return self.context.palace()

    def warm(self) -> None:
        """Open the palace and load the embedding model ahead of the first call (seconds on a cold start).
        Errors are left for that first call to report, with its own message."""
        try:
            import openai  # noqa: F401 - the SDK takes a second to import: not on the first query

            with self._lock:
                palace = self.palace()
                if palace.store.fresh() is not None:
                    palace.embedder.embed_query("warm up")
        except Exception as exc:  # noqa: BLE001 - a warm-up must never take the server down
            logging.getLogger(__name__).debug("palace warm-up failed: %s", exc)

    def close(self) -> None:
        with self._lock:
            self.context.close()

    # -- read-only tools ---------------------------------------------------------------------------------
    def search(self, query: str, k: int = 8, wing: str | None = None) -> str:
        from wikic.palace import search
        from wikic.query.retrieve import relevant_hits

        if not query.strip():
            return ("Nothing to search for: the query is empty. Give a few words or a question, in any language "
                    "(search(\"who founded OpenAI\")), or browse the wiki with list_pages.")
        with self._lock:
            palace = self.palace()
            hits = relevant_hits(palace, query, search(palace, query, max(1, min(k, 50)), wing=wing or None))
        if not hits:
            return (f"No page or source matches “{_echo(query)}”. Try other words or a shorter query (search matches "
                    "meaning and words, in any language), browse with list_pages, or save what you know with "
                    "file_note for a later ingest.")
        lines = [f"{len(hits)} result(s) for “{_echo(query)}” (best first):"]
        for n, hit in enumerate(hits, 1):
            heading = f" § {hit.heading}" if hit.heading else ""
            lines.append(f"{n}. {hit.path} — {hit.title}{heading} (lines {hit.line_start}-{hit.line_end})")
            lines.append(f"   {hit.snippet}")
        lines.append("Read a whole page with read_page(path).")
        return "\n".join(lines)

    def read_page(self, page: str) -> str:
        from wikic.vault.load import walk
        from wikic.vault.resolve import Resolver

        files, _ = walk(self.root)
        resolver = Resolver(files)
        target = page.strip().removeprefix("[[").removesuffix("]]").split("|", 1)[0].split("#", 1)[0].strip()
        found = resolver.resolve("", target).path if target else None
        if found is None and target:  # a page's title or one of its aliases, as `facts` takes them
            from wikic.vault.names import page_names

            found = page_names(self.root, self.context.schema)[0].lookup(target)
        if found is None or not (found.endswith(".md") or found.startswith(RAW_DIR + "/")):
            return self._no_page(page, files)
        try:
            text = read_text_inside(self.root, self.root / found)
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolError(f"{found}: cannot be read as UTF-8 text ({exc})") from None
        if text is None:
            return self._no_page(page, files)
        note = ""
        if len(text) > MAX_PAGE_CHARS:
            text = text[:MAX_PAGE_CHARS]
            note = f"\n\n[cut at {MAX_PAGE_CHARS:,} characters]"
        return f"{found}\n\n{text}{note}"

    def _no_page(self, page: str, files: dict[str, Any]) -> str:
        from wikic.lint.close_names import Names

        # as lint offers a name for a broken link, but whatever the case of the letters asked
        by_lower = {posixpath.basename(p)[:-3].lower(): p for p in files if p.endswith(".md")}
        close = Names(by_lower).closest(page.strip().lower())
        hint = f" Did you mean: {by_lower[close]}?" if close else ""
        return (f"No page “{page}” in this vault.{hint} Give a vault path (entities/openai.md) or a page name "
                "(openai); find pages with search or list_pages.")

    def list_pages(self, type: str | None = None, tag: str | None = None) -> str:
        from wikic.vault.load import load_vault

        vault = load_vault(self.root, use_cache=True, schema=self.context.schema)
        lines = [f"- {path} — {title}" + (f": {summary}" if summary else "") for path, title, summary in
                 vault.listed(type, tag)]
        if not lines:
            filters = " and ".join(x for x in (f"type {type}" if type else "", f"tag {tag}" if tag else "") if x)
            kinds = ", ".join(vault.schema.page_folders) or "note"
            if filters:
                return (f"No page with {filters}. Page types: {kinds}; call list_pages() without filters to see "
                        "every page.")
            return "The wiki has no pages yet. Capture notes with file_note, then compile them with ingest."
        return f"{len(lines)} page(s):\n" + "\n".join(lines)

    def lint(self, rules: list[str] | None = None) -> str:
        from wikic.lint.run import LintOptions, run_lint

        report = run_lint(self.context, LintOptions(select=tuple(rules or ()), use_cache=True))
        s = report.summary()
        head = f"{s['pages']} page(s), {s['links']} link(s): {s['errors']} error(s), {s['warnings']} warning(s)"
        if not report.findings:
            return head + ". The vault is clean."
        lines = [head + ":"]
        for f in report.findings[:MAX_FINDINGS]:
            where = f"{f.path}:{f.line}" if f.line else f.path
            lines.append(f"- {where}: {f.severity} {f.rule}: {f.message}")
        if len(report.findings) > MAX_FINDINGS:
            lines.append(f"… and {len(report.findings) - MAX_FINDINGS} more (run `wikic lint` for all)")
        return "\n".join(lines)

    def proposals(self) -> str:
        from wikic.review.render import render_list
        from wikic.review.show import list_proposals

        return render_list(list_proposals(self.context))

    def proposal(self, proposal_id: str, pages: list[str] | None = None) -> str:
        from wikic.review.render import render_view
        from wikic.review.show import show

        return render_view(show(self.context, proposal_id, pages or []))

    def accept(self, proposal_id: str, pages: list[str] | None = None, claims: list[str] | None = None) -> str:
        from wikic.review.accept import accept
        from wikic.review.render import render_accepted

        with self._lock:  # the accept indexes what it writes through the server's palace
            return render_accepted(accept(self.context, proposal_id, pages=pages or [], claims=claims or []))

    def reject(self, proposal_id: str, pages: list[str] | None = None, claims: list[str] | None = None,
               why: str = "") -> str:
        from wikic.review.accept import reject
        from wikic.review.render import render_rejected

        return render_rejected(reject(self.context, proposal_id, pages=pages or [], claims=claims or [], why=why))

    def status(self) -> str:
        from wikic.status import render_status, vault_status

        with self._lock:
            return render_status(vault_status(self.context))

    def eval(self, page: str | None = None) -> str:
        from wikic.evaluation import EvalOptions, evaluate, render

        return render(evaluate(self.context, EvalOptions(page=page)))

    # -- tools that ask the model or write ---------------------------------------------------------------
    def query(self, question: str, save: bool = False, allow_general: bool = False) -> str:
        from wikic.query.answer import QueryOptions, answer_question
        from wikic.review.propose import file_answer

        # the search holds the palace lock; the model is asked without it
        result = answer_question(self.context, question, QueryOptions(allow_general=allow_general))
        if result.status == "not_found":
            return result.answer
        lines = [result.answer, ""]
        if result.citations:
            lines.append("Cited: " + ", ".join(f"{c.link} ({c.path})" for c in result.citations))
        lines.extend(f"Warning: {w}" for w in result.warnings)
        if save:
            try:
                with self._lock:
                    filed = file_answer(self.context, result)
            except WikicError as exc:
                lines.append(f"Not filed: {exc.message}")
            else:
                saved = filed.saved
                if saved is None:
                    lines.append(f"Kept for review as proposal {filed.proposal}: show it with proposal, then accept "
                                 "or reject it")
                else:
                    lines.append(f"Filed as {saved.path}" + (f"; linked from {', '.join(saved.asked_pages)}"
                                                              if saved.asked_pages else ""))
        lines.append(f"({result.tokens:,} tokens{', from cache' if result.cached else ''})")
        return "\n".join(lines).strip()

    def ingest(self, sources: list[str]) -> str:
        from wikic.ingest.client_inputs import client_inputs, url_prefixes
        from wikic.ingest.pipeline import IngestOptions
        from wikic.ingest.report import render_report
        from wikic.review.propose import ingest_run

        if not sources:
            return "Nothing to ingest: give file paths, http(s) URLs, or raw/ paths captured with file_note."
        allow = self.context.settings.mcp.allow
        inputs = client_inputs(self.root, sources, allow)
        with self._lock:  # the run indexes what it writes through the server's palace
            report = ingest_run(self.context, IngestOptions(inputs=inputs, client_url_allow=url_prefixes(allow)))
        return render_report(report)

    def file_note(self, title: str, text: str, kind: str = "articles") -> str:
        from wikic.ingest.capture import capture

        if not text.strip():
            return "Nothing captured: the note's text is empty."
        if kind not in RAW_SUBDIRS:
            return f"Unknown kind “{kind}”: use one of {', '.join(RAW_SUBDIRS)}."
        heading = " ".join(title.split()) or "Note"
        body = f"# {heading}\n\n{text.strip()}\n"
        (captured,) = capture(self.root, ["-"], kind=kind, settings=self.context.settings.ingest,
                              stdin=body.encode("utf-8"))
        state = "Captured" if captured.new else "Already captured (same text)"
        with self._lock:
            # searchable at once, before any ingest (a later ingest of a file already in raw/ does not index it)
            self.palace().update_paths([p for p in (captured.raw_path, captured.text_path) if p])
        return (f"{state} as {captured.raw_path}. It is not in the wiki yet: compile it with "
                f"ingest([\"{captured.raw_path}\"]) when ready.")


    # -- facts over time ---------------------------------------------------------------------------------
    def facts(self, subject: str, as_of: str | None = None) -> str:
        from wikic.facts.lookup import facts_for, render_facts

        return render_facts(facts_for(self.root, self.context.schema, subject, as_of or None))

    def invalidate(self, claim: str, reason: str, on: str | None = None) -> str:
        from wikic.ingest.invalidate import invalidate
        from wikic.palace.todo import update_palace

        with self._lock:
            done = invalidate(self.context, claim, reason, on=on or None)
            try:
                update_palace(self.root, [done.page, done.note], self.palace)
            except (WikicError, OSError) as exc:
                logging.getLogger(__name__).debug("palace not updated after invalidate: %s", exc)
        return (f"Ended {done.claim} on {done.page} as of {done.ended.isoformat()}: “{done.text}”. It is in the "
                f"page's history now; the reason is recorded in {done.note}.")

    # -- memory ------------------------------------------------------------------------------------------
    def wake_up(self, budget: int = 900, project: str | None = None, overview: bool = False) -> str:
        from wikic.memory.briefing import wake_up

        return wake_up(self.context, budget=max(20, min(budget, 20_000)), project=project or None,
                       overview=overview).text

    def overview(self) -> str:
        from wikic.vault.layout import OVERVIEW_FILE

        try:
            text = read_text_inside(self.root, self.root / OVERVIEW_FILE)
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolError(f"{OVERVIEW_FILE}: cannot be read as UTF-8 text ({exc})") from None
        if text is None:
            return ("The wiki has no overview yet: it is written by every ingest (or `wikic init` in a vault an "
                    "earlier version made). Browse with list_pages meanwhile.")
        if len(text) > MAX_PAGE_CHARS:
            text = text[:MAX_PAGE_CHARS] + f"\n\n[cut at {MAX_PAGE_CHARS:,} characters]"
        return f"{OVERVIEW_FILE}\n\n{text}"

    def recall(self, query: str = "", kind: str | None = None, subject: str | None = None, k: int = 10) -> str:
        from wikic.memory.recall import recall

        found = recall(self.context, query, kind=kind or None, subject=subject or None, k=k)
        if not found:
            filters = ", ".join(f"{name} {value}" for name, value in (("kind", kind), ("subject", subject)) if value)
            asked = f" “{_echo(query)}”" if query else ""
            return (f"No memory matches{asked}{' (' + filters + ')' if filters else ''}. "
                    f"Try fewer words, another kind ({', '.join(TOLD_KINDS)}), or search.")
        lines = [f"{len(found)} memor{'y' if len(found) == 1 else 'ies'} (best first):"]
        for r in found:
            m = r.memory
            verified = ", verified" if m.item.verified else ""
            lines.append(
                f"- [{m.item.kind}{verified}] {m.item.date.isoformat()} · {m.item.text} [[{m.link}]] ({m.path})"
            )
        return "\n".join(lines)

    def remember(self, kind: str, content: str, importance: float = 0.5, subject: str = "user") -> str:
        from wikic.ingest.remember import remember

        with self._lock:
            done = remember(self.context, kind, content, importance=importance, subject=subject)
        if not done.compiled:
            return (f"Captured as {done.raw_path}; not compiled yet ({done.error}). It will be compiled into the "
                    "wiki by the next `wikic ingest` (or ingest([]) here) once a model is configured.")
        where = ", ".join(done.pages) if done.pages else "no page yet"
        waiting = (
            f"; waiting for more sources before its page exists: {', '.join(done.pending)}" if done.pending else ""
        )
        return f"Remembered ({done.raw_path} → {where}{waiting})."

    def confirm_lesson(self, lesson: str, page: str | None = None) -> str:
        from wikic.memory.confirm import confirm_lesson
        from wikic.palace.todo import update_palace

        with self._lock:
            done = confirm_lesson(self.context, lesson, page=page or None)
            try:
                update_palace(self.root, [done.page], self.palace)
            except (WikicError, OSError) as exc:
                logging.getLogger(__name__).debug("palace not updated after confirm_lesson: %s", exc)
        state = "verified" if done.verified else f"{done.confirmations} confirmation(s); verified at 2"
        return f"Confirmed on {done.page}: “{done.lesson}” ({state})."


def build_server(root: Path) -> tuple[Any, WikiTools]:
    """An MCP server over the vault at `root` (not started), and its tools object."""
    tools = WikiTools(root)
    server = _Server(
        name="wikic",
        instructions=(
            f"wikic: an LLM-compiled Obsidian wiki (vault {tools.root.name}). Start with overview; look things up "
            "with search and read_page, browse with list_pages, get a cited answer with query (save=true files it "
            "as a page), "
            "capture new knowledge with file_note and compile it with ingest; lint and status report health; facts "
            "tells what held about a subject on a date, invalidate ends a claim that no longer holds; proposals, "
            "proposal, accept and reject review a run kept for review before it lands. As "
            "memory: start a session with wake_up, look things up with recall, save with remember, and "
            "confirm_lesson when a lesson held again."
        ),
        version=__version__,
        # the SDK sets up the root logger at this level: below WARNING, libraries (httpx's "HTTP Request: ...",
        # the SDK's own "Processing request ...") would fill the stderr an MCP client shows its user
        log_level="WARNING",
    )

    def add(fn: Callable[..., str], annotations: ToolAnnotations, description: str) -> None:
        server.add_tool(_tool_errors(fn), name=fn.__name__, description=description, annotations=annotations,
                        structured_output=False)

    for name, kind, description in TOOLS:
        add(getattr(tools, name), ANNOTATIONS[kind], description)
    return server, tools


def serve(
    root: Path, *, http_port: int | None = None, on_listening: Callable[[str, McpToken], None] | None = None
) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP on 127.0.0.1). Over HTTP every
    request must carry `Authorization: Bearer <token>` (`user_config.mcp_token`), or it gets 401 and reaches no
    tool: loopback is open to every user and process of the machine, and the tools write into the vault.
    `on_listening(url, token)` is told where the server listens, before it starts."""
    token = None
    if http_port is not None:
        _check_port(http_port)
        token = mcp_token()  # a token that cannot be used is said before anything starts
    server, tools = build_server(root)
    # The client's handshake and tool listing need no palace: warm it meanwhile, not on the first search.
    threading.Thread(target=tools.warm, name="wikic-warm", daemon=True).start()
    try:
        if http_port is None or token is None:
            server.run()
        else:
            if on_listening is not None:
                on_listening(f"http://127.0.0.1:{http_port}/mcp", token)
            _serve_http(server, http_port, token)
    finally:
        tools.close()


def _serve_http(server: Any, port: int, token: McpToken) -> None:
    """The SDK's streamable HTTP app behind the token, served by uvicorn on 127.0.0.1 (the SDK's own `run`
    offers no place for the check)."""
    import uvicorn

    app = BearerToken(server.streamable_http_app(host="127.0.0.1"), token.value)
    # warnings only, as the server logs: uvicorn's access log would fill the terminal with every call
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()


class BearerToken:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <token>` is answered 401 and goes no
    further. The comparison takes the same time whatever the header holds."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps({"error": "unauthorized", "error_description": "this server needs the header "
                                   "Authorization: Bearer <token> (see `wikic mcp --help`)"}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="wikic"')]})
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)


def _check_port(port: int) -> None:
    """A taken port is the user's to change: say so before the server starts (uvicorn exits 3 with a log line)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise UsageError(
                f"cannot serve on 127.0.0.1:{port}: {exc.strerror}", hint="choose another port with --http PORT"
            ) from None
