"""Ingest, up to a validated and anchored plan: capture sources into raw/, ask the model for a plan, anchor it.

    sources = capture(vault, ["paper.pdf", "https://example.org/post"])    # wikic.ingest.capture
    result = extract_plan(llm, sources[0], context=..., existing_pages=[...])  # wikic.ingest.extract
    result.plan  # wikic.compile.plan.Plan: every fact carries its quote and, when found, its anchor

Submodules are imported directly (not re-exported here) so importing one does not pull in the others'
dependencies (bs4, pypdf, openai).
"""
