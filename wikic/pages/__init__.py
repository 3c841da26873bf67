"""The only writer of wiki content: page files, compiler-owned blocks, index.md, log.md, the journal and
the vault lock. Ingest, query write-back and `lint --fix` plan their changes and hand them here as a
`journal.Journal`, which `Journal.commit` applies under the vault lock (`lock.py`).

Modules: `journal.py` (plan, record, apply, recover), `lock.py`, `index_file.py` (index.md's text),
`log_file.py` (log.md's rows, written and read), `blocks.py` (hashed compiler blocks), `frontmatter.py` (dumping it),
`render.py` (model text made safe, mentions linked), `fingerprint.py` (what a query page records about the
pages it cites). How a link to a page is written, and which page a proposed name is, are read from the vault
(`wikic/vault/link_text.py`, `wikic/vault/names.py`). Submodules are imported directly;
this layer imports only the vault model (`wikic.vault`), `wikic.text` and the ground (`wikic.errors`,
`wikic.settings`, `wikic.resources`).

Writing, in detail:

The only writer of wiki content: page files, compiler-owned blocks, `index.md`, `log.md`, the journal and
the vault lock. Ingest, query write-back and `lint --fix` plan their changes in memory and hand them over as
a `journal.Journal` (each page's new text with the hash of the text it was planned from, index entries,
ledger updates, log rows); `Journal.commit` runs under the vault lock (`lock.py`): it records the plan in
`.wikic/journal.json`, applies it (a page whose bytes changed since the plan was made is left alone and
reported, never overwritten) and leaves the palace its to-do. Whoever takes the lock next first finishes a
journal a killed run left. `index_file.py` builds index.md's text (the only place that does: the line that
leads to the overview, each section's count, entries rewritten to a page's new lead unless a person rewrote
them), `log_file.py` log.md's rows and their one reader (a row's Target and Notes link pages; rows an earlier
version wrote read the same) (both take the index title, section headings and log header from the vault
skeleton),
`blocks.py` the hashed compiler blocks (a block is replaced only if nobody edited it), `frontmatter.py`
dumps frontmatter in the page skeletons' key order, `render.py` escapes model text and links mentions of
known pages (written as `vault/link_text.py` says), and `fingerprint.py` what a query page records about the pages it
cites (lint's `stale-page` reads it).
Outside `pages`, only `wikic init` (the vault's skeleton, once, never over a file), capture (new files
in `raw/`, never rewritten) and `conversations` (transcripts and kept exports in `raw/transcripts/`, created
once, never rewritten) write into a vault, besides the state under `.wikic/` (`vault/state.py`).
"""
