"""An anchored plan made pages: code decides every file name, link, tag and line of frontmatter, and the model's
words only fill compiler-owned blocks.

- `plan`: the anchored plan extraction hands over (every fact with its quote and, when found, its anchor);
- `compiler`: one run's `Compiler`, fed one source at a time, all or nothing; what it reads of the vault is
  read once (`on_disk`), what it plans is kept in memory until the write (`drafts`), and each source's report
  is a `result.SourceResult`;
- `placing`: a source's plan placed on the pages of the subjects it names, or waiting in the mentions ledger;
  `writing`: what was placed written into page texts (new pages, updates, See also); `tags`: a new page's tags;
- `page`: a page's text rendered from what its sources contribute, each claim once with all its sources, a
  later value moving the earlier one to the page's history, contradictions marked;
- `tables`: comparison tables; `siblings`: the See also between pages of one source; `repair`: what an
  earlier compile wrote for names now refused, undone;
- `prose`: one page's claims written as anchored prose by the model (`wikic/ingest/prose_step.py` runs it over
  the pages an ingest changed).

`wikic/ingest/` captures and extracts, and runs this package once per source (`ingest/session.py`).
"""
