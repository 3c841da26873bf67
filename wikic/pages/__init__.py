"""The only writer of wiki content: page files, compiler-owned blocks, index.md, log.md, the journal and
the vault lock. Ingest, query write-back and `lint --fix` plan their changes and hand them here.

Submodules are imported directly; this layer imports only `wikic.vault` and the ground (`errors`).
"""
