"""Ingest, up to a validated and anchored plan: capture sources into raw/, ask the model for a plan, anchor it.

    sources = capture(vault, ["paper.pdf", "https://example.org/post"])    # wikic.ingest.capture
    result = extract_plan(llm, sources[0], context=..., existing_pages=[...])  # wikic.ingest.extract
    result.plan  # wikic.compile.plan.Plan: every fact carries its quote and, when found, its anchor

Submodules are imported directly (not re-exported here) so importing one does not pull in the others'
dependencies (bs4, pypdf, openai).

Ingest, in detail:

1. `capture.py` copies each input into `raw/` (safe unique name, sha256 in `.wikic/sources.json`; HTML and
   PDF get an extracted text file beside the original). Raw files are never written again. With no source,
   `pending.py` lists what raw/ holds that is not compiled; a file it cannot use is reported once and set
   aside in `.wikic/set-aside.json` (`vault/formats/set_aside.py`: size, mtime, sha256) until it changes.
2. `pipeline.relevant_pages` picks at most 40 existing page titles that matter to the source (named in it,
   found in an index of every page's labels built once per run, `vault/names.LabelIndex`; or near it in the
   palace, a search that reads the postings of the source's rarest terms only), each extraction worker for
   its own source before asking the model, so its cost does not grow with the wiki. `extract/` (`windows.py`,
   `prompt.py`, `run.py`, `merge.py`) splits long sources into overlapping chunks and asks the model,
   in parallel, for a `ChunkPlan` (pydantic, with caps) through `llm/structured.py` (json_schema response
   format, fallback to json_object when a server rejects it, one re-ask on invalid JSON, reply cache keyed
   by the request). Chunk plans are merged; `anchor.py` finds each quote in the raw text, snaps a near-copy to
   the span it copies, makes a claim cut off inside a sentence the whole sentence, and leaves out a claim whose
   quote another claim states word for word.
3. `wikic/compile/` (`compiler.Compiler`) turns the anchored plan into page texts, one source at a time in the run's
   order, each
   as soon as its plan and every earlier source's are in, while later sources are still with the model
   (`session.py`). That compile reads the vault before the vault lock is taken, so it stamps the vault first
   (each file's size and modification time, the ledgers, the journal); under the lock an unchanged stamp
   keeps it, and any change compiles every source again under the lock. `session.read_vault` takes
   the stamp, the parsed pages and the page names from one listing, and the compile works on copies of the
   names. `vault/names.py` matches
   proposed names to existing pages (title, alias, file name, hyphen-insensitive, acronyms); below-threshold
   names wait in `.wikic/mentions.json`; model text is escaped and compiler text put in hashed blocks by
   `pages` (`render.py`, `blocks.py`). An
   item lands on the page of its name whatever that page's kind; `compile/page.py` renders a page's text in one
   place from what its sources contribute: the lead, one block per section of the page type's layout
   (`vault/page_layout.py`, SCHEMA.md's `## Page Layouts`), each fact once with every source's anchor (a
   recompile takes off only its source's citations), History, Contradictions (disagreeing claims, and two
   values of one measure), one Related block, and the `claims` block of bookkeeping; `compile/tables.py`
   places each anchored cell under the subject it names; `compile/siblings.py` says which pages built on one raw
   source each page lists under See also, across runs; claim anchors are written and
   read by `wikic/vault/formats/anchors.py` (a link to the raw file, then the line range). Each source is compiled
   all or nothing: one that raises is reported failed and leaves no trace in the run. The run's pages,
   index entries, ledgers (`.wikic/compiled.json`, `.wikic/mentions.json`), log rows and hubs (the source
   page of each source compiled, the overview: `wikic/hubs/`) are handed to `pages` as one journal, so an
   interrupted run is finished by the next. Then the palace does its to-do
   (`palace/todo.py`) and the link rules are linted.
   Model calls run on daemon threads (`workers.py`) behind a bound that `stop()`s: Ctrl-C during
   extraction starts no new call, abandons the ones in flight, and compiles the sources that finished
   (a compile step Ctrl-C cut short is thrown away and done again under the lock); the palace work is left
   in its to-do for the next run, which announces it. The run's reply cache writes each reply at once and
   makes them durable in batches, between replies and when extraction ends.
"""
