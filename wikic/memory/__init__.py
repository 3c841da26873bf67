"""The assistant's memory, read from and written into the wiki's pages: the briefing a session starts with
(`briefing.wake_up`), recall by kind and subject (`recall.py`), the one ranking (`rank.py`), who the user is
(`identity.py`, identity.md), how a source's memories join a page's (`merge.py`, the compiler's), and the
confirmation of a lesson (`confirm.py`).

Memories are not a store of their own: they are the memory items the compiler writes on entity pages, in the
format of `wikic/vault/formats/memory_items.py`. `item_index.py` reads them through a derived index under
`.wikic/` that is rebuilt from the pages whenever a page changes. `remember` (a note captured and compiled)
is an ingest of one source: `wikic/ingest/remember.py`.

Memory, in detail:

A transcript (a source in `raw/transcripts/`, or any source with timed turn headers, the format of
`wikic/vault/formats/transcript.py`, as the notes `remember` writes into `raw/notes/`) is asked for a
`TranscriptPlan`: the plan of any source plus
capped `memories` (kind, text, quote, importance, subject); `two-pass` asks for them in one more call per
window (`MemoriesPlan`). Articles keep the `ChunkPlan` request unchanged. `anchor.py` anchors each memory's
quote like a claim (repair and support rule included) and dates it by its turn header
(`transcript.turn_at`), else the transcript's frontmatter date. The compiler groups the anchored memories by
subject (the user's words, "user", "me", the name in `identity.md`, all mean the user's page), attaches them
to the entity of that name or places the subject as an entity of its own (so thresholds and the mentions
ledger apply unchanged), and on each page `memory/merge.py` merges them into one block per kind
(`memory:<kind>`, or `memory:<kind>:more` beside a block a person edited): a memory whose embedding (USE,
cosine ≥ 0.92) matches an item on the page adds its anchor to that item; each text's name form, denial and
vector are worked out once a run, and the vectors are kept for the next runs (`memory/kept_vectors.py`,
`.wikic/cache/memory-vectors.npz`, by the text's hash, for one model, read without pickle).
`vault/formats/memory_items.py` is the one
format of an item line (date, text, anchors, `%%memory ...%%` bookkeeping), written by the compiler and
`confirm_lesson` and read by `memory/item_index.py`, which keeps `.wikic/cache/memories.json` (per page: size,
mtime, title, items; link texts keyed by the vault's note names; the memories of subjects still waiting in
the mentions ledger, keyed by its size and mtime, which the briefing and recall show linked to their
transcript) so a warm briefing reads one listing and one JSON file. `memory/rank.py` is the one ranking;
`briefing.py` fills the budget greedily in priority
order, checking the whole text with `estimate_tokens`; `recall.py` matches query terms; `ingest/remember.py`
captures `remember` notes into `raw/notes/` and compiles them through `ingest`, and `memory/confirm.py`
rewrites one lesson line through the journal for `confirm_lesson`. A note's frontmatter records the kind, subject and
importance
the caller gave (`vault/formats/remember_note.py`, the one format of such a note); `anchor.py` holds the note's
memories to them whatever the model proposed, and remembers the note's own words when the model proposed
nothing that holds.
"""
