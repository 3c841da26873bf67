"""Counting and cutting text: the token estimate, the East Asian script ranges, search and anchoring terms,
and the text of HTML and PDF files. Pure functions over strings and bytes; nothing here reads a vault or
imports anything of wikic above `wikic.errors`.

Text, in detail:

Pure functions over strings and bytes that import nothing of wikic above `errors`, so every layer can use
them: `tokens.py` (the one offline token estimate: budgets, `--estimate`, extraction windows, the drawers of
an `openai` embedding endpoint), `scripts.py` (the CJK ranges, defined once), `sentences.py` (the one sentence splitter,
English and CJK: what query quotes), `terms.py` (the tokenizer of
BM25 and of query's relevance test, and the words quote anchoring compares), `specifics.py` (the numbers,
dates, versions and names of a text: what a claim's quote must state, and what two claims of one fact share),
`extract.py` (the main text of
HTML and the text of PDF, for capture and for files the palace finds in `raw/` uncaptured), `archive.py` (the
one way a zip is opened: its stated sizes checked against bounds before anything is inflated, so a zip bomb
is refused by conversation detection and by capture alike), `controls.py` (control characters, terminal
codes and lone surrogates out of what a tool call hands `remember` and `invalidate`), `bounded_json.py` (JSON
someone else wrote, its nesting bounded at 200 levels), `confusables.py` (what a name looks like: NFKC, a
small table of Cyrillic and Greek lookalikes; lint's `confusable-name`), `common_words.py` (function words,
bare kind nouns and the most frequent English words, `data/common-en.txt` from wordfreq, CC BY-SA 4.0),
`name_use.py` (how one text uses its words as names: which proposed names are subjects of it, which aliases
it states, each refusal with its reason) and `reader_text.py` (Markdown as its reader sees it: a link by its
text, an embed as nothing).
"""
