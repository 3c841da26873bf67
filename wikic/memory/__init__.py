"""The assistant's memory, read from and written into the wiki's pages: the briefing a session starts with
(`briefing.wake_up`), recall by kind and subject (`recall.py`), the one ranking (`rank.py`), who the user is
(`identity.py`, identity.md), how a source's memories join a page's (`merge.py`, the compiler's), and the
confirmation of a lesson (`confirm.py`).

Memories are not a store of their own: they are the memory items the compiler writes on entity pages, in the
format of `wikic/vault/formats/memory_items.py`. `item_index.py` reads them through a derived index under
`.wikic/` that is rebuilt from the pages whenever a page changes. `remember` (a note captured and compiled)
is an ingest of one source: `wikic/ingest/remember.py`.
"""
