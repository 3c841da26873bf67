"""The hubs: the pages that lead into the wiki, written by code from the vault, never by the model.

- `overview.md` (`overview.py`): what the wiki covers, its main subjects grouped (`groups.py`), its latest
  changes, its open questions, its counts;
- a page per raw source in `sources/` (`source_page.py`): what the source is, its key points (anchored
  claims the pages carry), the pages it fed, what was left out and why;
- index.md's entries give each page its lead (`wikic/vault/lead.py`), and link the overview;
- a lead a person edited is followed by the page's summary (`leads.py`), and so by the hubs (`lint --fix`).

`plan.plan_hubs` plans them from the vault as a run leaves it (`view.py`: the vault with the run's planned
pages laid over it), for the run's own journal; `setup.py` adds them to a vault an earlier version made.
Links from a hub never make a subject page less of an orphan (lint's `orphan-page`).

The hubs, in detail:

The pages that lead into the wiki, written by code from the vault with no model call: `overview.md`
(`overview.py`: the Domain, the main subjects in `groups.py`'s groups, the latest changes from log.md, the open
questions, the counts, within `MAX_CHARS`) and a page per source (`source_page.py`: what the source is, its
key points, the pages it fed, what was left out, from the pages, the compiled and mentions ledgers and the
source ledger). `view.py` reads the vault as a run will leave it: the vault on disk (the one the compile read,
when an ingest hands it over) with the run's planned texts laid over it, the links between subject pages
resolved once per name; `plan.HubPlanner` names the source pages first (a run's log rows link them), then
plans the hub texts and the index entries of the pages written, which the run adds to its own journal, so
the hubs are written with the pages or not at all. Ingest does it for the sources it compiled (and any
compiled source with no page yet), the compose step for the leads it wrote, a saved answer for the overview,
`lint --fix` for the hubs its findings name, `wikic init` (`setup.py`) for the hubs an older vault lacks. A
block a person edited stays, and the code's version goes beside it (`blocks.py`, `key:more`). Groups are Louvain
communities among the best-linked pages (`CORE`), the other pages joining their neighbours' group, or the
pages' first tags when the graph is thin; `bench/hubs_bench.py` times it all on a 10,000-page vault.
"""

from wikic.hubs.plan import HubPlan, HubPlanner, plan_hubs

__all__ = ["HubPlan", "HubPlanner", "plan_hubs"]
