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
"""

from wikic.hubs.plan import HubPlan, HubPlanner, plan_hubs

__all__ = ["HubPlan", "HubPlanner", "plan_hubs"]
