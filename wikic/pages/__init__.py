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
"""
