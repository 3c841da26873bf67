"""Files wikic writes into vaults (loaded with importlib.resources, so they ship inside the wheel)."""
