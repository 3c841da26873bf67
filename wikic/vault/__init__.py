"""The in-memory model of a vault: layout, parsing, link resolution, writing.

The vault model, in detail:

- `layout.py` names every folder and special file. `load.walk` lists every file (dot-folders skipped,
  symlinks out of the vault refused, and a named pipe, socket or device left out unopened: `load.not_a_regular_file`
  is the same check for those who list files themselves, the palace and ingest); `load.load_vault` parses every note
  whose links are linted (wiki
  pages, `index.md` and the person's own notes beside them; not `raw/`, `log.md` or `SCHEMA.md`) into `Note` tuples:
  frontmatter, links with exact line and column, headings, block ids, problems. Unchanged files come from
  `.wikic/cache/parse-cache.jsonl` (size + mtime; one JSON line per note, made where the note is parsed and
  copied as bytes while its file is unchanged; JSON, never pickle: a shared vault must not run code). Where
  each note's links land is kept beside it (`resolved_cache.py`, `.wikic/cache/resolved-links.json`): an unchanged
  note's resolutions hold unless a file added or removed since bears a name its links end with (the resolver looks
  a link up only by keys ending in its last segment); never written by a cold run, and rewritten only when much
  of it is new (writing costs about what resolving saves).
  `note_json.py` writes and reads those lines: with msgspec when the `fast` extra is installed (about 3x
  faster, straight into the named tuples), else with the standard library's json, the same lines either way.
  A cold parse of a big vault uses both cores: this process parses one share while a forked one parses the
  other and sends its notes back as those same cache lines. `lint` pauses Python's cyclic collector for the
  run (the parsed vault is millions of objects, none of them garbage), and on a big vault runs some rules in
  a forked process beside the others (`lint/run.py`'s `_FORKED_GROUPS`: in a wikic vault the page rules and
  `frontmatter`, joined on a cold run by `stale-page`, `duplicate-page` and the two name rules; in a plain one
  `broken-wikilink`). After a few pages were edited, lint reads those notes alone (`notes_on_demand.py`,
  `lint/changed.py`).
- `parse/` has two scanners that must agree: a handful of regular expressions (`fast.py`), and markdown-it
  with wikic's own Obsidian rules as the reference (`reference.py`, which imports markdown-it only when a
  page needs it); `note.py` (`parse_note`) reads the frontmatter and picks the scanner. The fast one takes
  a page when nothing in it can hide a link, or when what can is masked first exactly as markdown-it reads
  it (`mask.py`, one pass: blocks top-down, then inline text left to right): fences at the margin, `$$`
  blocks and indented code after a blank line, code spans and inline math closed on their line, HTML and
  `%%` comments, autolinks, backslash escapes and character references; plain GFM tables are read as text
  (`plain_tables`), and a `[[` with no `]]` after it on its line is reported and read as text, as the
  reference does. Other HTML, setext headings, reference definitions, these constructs inside containers,
  a `[[` followed on its line by a `]]` that closes no wikilink, and a `$` on a page with a backslash go to
  markdown-it (on the 10,000-page bench vault: 256 pages of 10,000). Property tests hold every fast path to
  the reference, links, headings, block ids and problems alike (`tests/vault/test_*_equivalence.py`, and a
  fuzzer, `bench/fuzz_parser.py`); the patterns that scan whole pages open with a literal character (a
  line pattern with the newline before its line, searched in "\\n" + body), so the regex engine jumps
  between candidates instead of trying every offset. No scan reads from every opener to its line's or page's
  end: lint's time is linear in a page's size whatever it holds (`tests/guarantees/test_linear_lint.py`);
  `reference.py` reads links with `link_helpers.py` (markdown-it's label, destination and footnote-label
  results without reading one character at a time) and tries each inline rule only where it can start;
  `comments.py` finds a text's `<!-- -->` and `%% %%` comments in one pass.
- `frontmatter.py` is the one reader of page frontmatter (its YAML anchors and aliases are refused, and so
  are values nested deeper than 100 levels: no reader expands a billion laughs; lint, the compiler, query and the
  palace:
  `parse`, or `read_page`/`split_page` for frontmatter and body together): YAML only on line 1, at most
  256 KB, duplicate keys and per-key lines reported; a strict subset parser for flat frontmatter (what
  `yaml.safe_load` would return, property-tested; it takes what wikic writes, a flow list PyYAML wrapped
  over lines and prose with commas included), and for the rest python-frontmatter's YAML handler
  (`load_yaml`: PyYAML's safe loader, libyaml's when present). python-frontmatter is used for that alone:
  its `loads` strips the text before looking for the block (line numbers move, and a block after blank
  lines counts, which Obsidian ignores), takes `----` and TOML or JSON blocks, and keeps the last of two
  equal keys without a word, so finding the block stays wikic's own. A block that cannot be read (an
  impossible date such as `2024-02-30` included) is reported by lint, and everything else reads the page
  as having no frontmatter: its text is still searched.
- `resolve.py`: Obsidian resolution (case-insensitive, `.md` optional for notes only, relative, absolute,
  bare name anywhere, suffix paths), deterministic tie-break, ambiguity reported; aliases never resolve.
- `schema_md.py`: SCHEMA.md (domain, taxonomy, thresholds, naming, page types, lint severities): `load` for
  lint, which reports every problem, and `checked` for what acts on the schema (ingest and watch, saving
  or refreshing an answer, status, confirming a lesson, ending a claim: `VaultContext.checked_schema`), which
  refuses a file it cannot read as meant (a near miss of a known section or key, a value it does not take:
  `Schema.errors`);
  `graph.py`: the link graph (a networkx `MultiDiGraph` keyed by vault paths, one edge per link
  occurrence, citations marked) and its health; `fields.py`: the frontmatter fields of a wiki page; `lead.py`:
  a page's lead as one line of plain text (its `summary` block without anchors, claim ids or links), what
  index.md and the overview show. `layout.py` names the hubs: `overview.md`, and the page types in
  `HUB_TYPES` (`source`, in `sources/`); `Vault.is_hub` and `Vault.subject_pages` tell them from the pages
  about a subject, which is what lint's `orphan-page` and `too-few-links`, the compiler's names and siblings,
  query's related pages and the palace (which indexes no hub) go by.
  `wikic/graph_export.py` stays beside the other command cores: it builds the report of `wikic graph` and
  writes its exports to files the user names, outside the vault, which the vault model never does.
- `raw_source.py`: a raw source as it is now against what capture recorded, and whether an anchor citing its
  lines holds or drifted (`wikic eval` counts them, the static site marks them).
- `link_text.py` is the one rule for link text (the bare name when no other note has it, else the path), and
  `names.py` says which page a proposed name is: the read-side page models that facts, lint, memory, query and
  the writer all use.
- `formats/`: every format wikic writes inside a file and reads back: anchors, block markers, claim lines and
  partial dates, memory items, the transcript and the `remember` note.
- `write.py` (the one atomic write: temp file + rename, or + hard link for a raw capture that must never
  replace a file; fsynced except for caches; never outside the vault), `paths.py` (the one check that keeps
  wikic inside its vault, `confined`, and the one reader of a vault's own files, `read_inside`: never through
  a link that leads out, never a folder, named pipe or device), `tree.py` (`walk_tree`: what `os.walk`
  yields, from a list instead of the call stack: every walk of `raw/`, an export's folder or the palace's
  files goes through it), `slug.py` (one slug function for page names, the links to them and raw file names:
  `PAGE` and `SOURCE` rules, so a name never changes once given; the device names Windows reserves, COM0 and
  LPT0 included, get a suffix), `names.py` (the forms of one name, `name_forms`/`same_subject`, and proposed
  names matched to the pages that exist), `formats/markers.py` (the format of the compiler's block markers, for the
  writer and for every reader
  that skips them), `state.py` (names every file under `.wikic/` and reads and writes them: the source
  ledger, the compiled and mentions ledgers, the journal, the palace's to-do, the locks, the caches).
"""
