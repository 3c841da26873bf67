"""The assistant's memory, read from the wiki's pages: the briefing a session starts with (`wake_up`),
recall by kind and subject, ranking, and the writes an assistant asks for (`remember`, `confirm_lesson`).

Memories are not a store of their own: they are the memory items the compiler writes on entity pages
(`wikic/vault/formats/memory_items.py`). `store.py` reads them through a derived index under `.wikic/` that is rebuilt
from the pages whenever a page changes.
"""
