"""Facts over time: dated claims on pages, their timelines, and answers as of a date.

Facts over time, in detail:

Every entity fact and concept claim the compiler writes is one line in the format of `vault/formats/claims.py`:
the claim, the interval it holds in parentheses when it is bound in time, one anchor per source, then the
block id `^c…` (a hash of its normalised text when first written, kept ever after). The page's `claims` block
(an HTML comment at its end) keeps, per claim and source, the observed day (`seen`, and `via`: how it was
found, by `vault/formats/dates.py` in `anchor.py`: frontmatter, file name, transcript turn, else the capture day)
and `by=sentence` for a source's own sentence, and per claim the stated interval (`from`, `to`), the
`topic` it belongs to and what `ended` it. Those rows are the truth; the parenthesis is recomputed from
them. Lines an earlier version wrote (`%%claim ...%%` on the line) are read too. The wire `WireFact` carries optional
`valid_from`, `valid_to` and `replaces`; `pipeline` lists the current claims of the pages a source names
(`lookup.listed_claims`, at most 40, `id | page | claim`) in the prompt, so the model can name the claim a
new value replaces. The compiler checks what the model proposed (`intervals.checked_claim`: a date must be
a date, not in the future, its year stated by the quote, and an interval must end after it starts;
`PageWriter._pairing`: the replaced id must be a claim on the page this claim lands on) and refuses the rest
with a reason in the source's report. When `compile/page.py` renders a page, `timeline.timeline` groups the page's
claims by topic, orders them by when they hold from (stated start, else observed day), ends each at the
next different value, moves the claims that no longer hold into the `history` block under `## History`,
and reports contradictions (claims of a topic that hold on the same day and differ): the compiler sets
`contested: true` then, and clears it when the claims that set it are settled. Blocks a person edited stay
where they are, and if the history block was edited nothing is moved. Lint's `contradiction` rule reads the
claims of a contested page and reports each contradicting pair with both anchors. Two claims state one fact only in
the same words (`same_fact.py`: case, links, articles, the copula and
inflection aside, the same numbers, names and polarity): the compiler writes such claims as one line with
every source's anchor. `lookup.facts_of` answers
`wikic facts SUBJECT --as-of`, `lookup.claims_as_of` filters the pages `query --as-of` gives the model, and
`ingest/invalidate.py` ends a claim by hand (a dated note captured into `raw/notes/` and recorded as compiled, the
claim's `to` and `ended`, the page settled, all through one journal). The palace and the model never see a
claim's comment or block id (`claims.strip_claim_meta`); the fast link scanner reads past the comment
(`parse/fast.py`). No index is derived yet: a subject's facts are read from its one page.
"""
