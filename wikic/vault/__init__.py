"""The in-memory model of a vault: layout, parsing, link resolution, writing."""
