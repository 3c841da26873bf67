"""Conversations as sources: assistant sessions and chat exports, written as transcripts in raw/transcripts/.

Conversations in, in detail:

Assistant sessions and chat exports become sources through one format, `transcript.py` (`render`: the
frontmatter and a header line `**speaker** · YYYY-MM-DD HH:MM` per turn, the text `clean`ed of control
characters and lone surrogates; `headers`, `turn_at`: a line's speaker and time, for anchors and dates;
`header_spans`: the lines `ingest/anchor.py` never anchors a quote to, with the frontmatter block). The rest brings
conversations into it:
- `formats/`: one module per tool (`claude_code`, `codex`, `gemini_cli`, `chatgpt`, `claude_ai`, `slack`,
  `chat_log`), each turning its tool's shape into a `Conversation` through `turns.TurnBuilder` (one turn per
  run of a speaker, tool calls and results collapsed to `(tools: Bash ×3, Read)`) and `noise.strip_noise`
  (the tool's injected tags and terminal chrome, anchored at line starts, one message at a time).
- `detect.py` says which format a file, zip or folder holds from its content, None for an ordinary source,
  ExportError for a conversation export of an unknown shape. `jsonio.py` is the one JSON reader of
  everything this package reads (exports, sessions, hook payloads, assistants' settings): `parse` bounds the
  nesting at 200 levels (`text/bounded_json.py`, which the model's replies are read through too: a `TooDeep`
  ValueError, never a RecursionError); it streams a top-level JSON array
  one element at a time over `json.JSONDecoder.raw_decode` with a buffer the size of one element (a 200 MB
  ChatGPT export, or the same file inside its zip), and reads JSON Lines with the line of every entry.
  `sources.py` turns a damaged zip into an ExportError naming it.
- `store.py` keeps an export once under `raw/transcripts/exports/<sha256>` (streamed copy, hard-linked into
  place) and names transcripts (`<date>-<tool>-<slug of the title>`, the one slug function; a taken name gets
  the id's first characters). `ledger.PartWriter` writes the turns not written before as part 1 or a
  further part and records them in `.wikic/conversations.json` (`ledger.ConversationLedger`): by turn
  count and digest for a conversation read whole, by byte offset for an append-only session file.
- `intake.py`: `bring_in` (exports named on the command line or dropped into `raw/`) and `drain_queue`
  (what capture queued), under the conversations lock; an export that cannot be read fails alone (its
  report carries the error, the pipeline reports it as a failed source), and a queue entry that is no
  capture is moved to `.wikic/capture/quarantine/` (`queue.quarantine`); `ingest/pipeline.py` calls them before
  capture and
  hands the new transcripts on as ordinary sources (with no source: the queue and dropped exports, then
  `pending.py`, which skips the exports folder and every kept export; the palace skips them too).
- `queue.py` is `wikic capture`: the hook's JSON in, the session file's new whole lines copied into
  `.wikic/capture/queue/` under a lock of that session file's own, nothing else. It imports the standard
  library, the vault's layout, paths, state and write helpers, `conversations/jsonio`, the errors and
  `config_file` (whose vaults may be captured into), and filelock: no extra, and `wikic.cli.main` reaches it without
  building the Typer
  application (`cli/capture_fast.py`), so a hook's process starts fast. `hooks.py` merges the hook entries
  into Claude Code's or Codex's settings file (running this install's `wikic` by its absolute path, written
  through a symbolic link) and removes exactly those, whichever `wikic` an older install wrote. `ingest/watch.py`
  (`wikic watch`)
  runs the no-source ingest whenever `raw/` or the queue changes (watchfiles), paced by `Pacer`: a changed
  file once it has been quiet for 3 s, a file compiled before at most once a minute (a session's captures are
  one file), its last change always.
"""
