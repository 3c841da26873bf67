"""Review before write: a run kept as a proposal a person reads, accepts in whole or in part, or rejects.

`propose.py` makes a run in a shadow of the vault (`shadow.py`) and keeps what it wrote (`store.py`), with each
source's anchored plan (`plans.py`); `show.py` and `render.py` show a proposal (its pages, the claims it adds
and drops with their source lines, a patch); `accept.py` lands it whole through the journal, or a part of it
by compiling its plans again behind a gate (`ingest/gate.py`), a page a person changed in the same part since
left out (`blocks.py`); a rejection is kept in `.wikic/rejected.md` (`ingest/rejections.py`).
"""
