"""The wiki outside Obsidian: `wikic export site DIR`, a static HTML site that opens from disk or any static
host, with no network at view time.

- `site.py` (`export_site`): the export, incremental: each output written from inputs whose digest the
  manifest in DIR keeps (`manifest.py`), so a second export writes only what changed;
- `target.py`: the folder written into, refused inside the vault's page folders, `raw/` or `.wikic/`, at the
  vault's root or around it, and when it holds a person's files (unless `--force`);
- `layout.py`: where each vault file lands and the relative links between outputs;
- `markdown.py`: a page's Markdown as HTML (markdown-it, mdit-py-plugins and the reference parser's Obsidian
  rules), links resolved as lint resolves them, citations carrying the lines they quote (drifted ones
  marked, as `wikic eval` decides: `vault/raw_source.py`), no HTML of the page's own;
- `around.py`: backlinks, the page's cluster (the overview's groups) and the sources that fed it;
- `indexes.py`: the search index and the link graph, as scripts that set a global;
- `template.py` and `assets/`: the page template (`string.Template`, overridable), the stylesheet, the
  script (search, evidence on hover, the graphs) and the vendored graph library, cytoscape.js (MIT; its
  licence beside it, `assets/cytoscape.LICENSE`).
"""
