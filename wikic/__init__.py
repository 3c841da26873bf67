"""wikic: compile raw sources into an interlinked Markdown wiki that opens as an Obsidian vault."""

__version__ = "0.1.0"
