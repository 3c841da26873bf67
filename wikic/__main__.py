"""`python -m wikic`: the same command line as the `wikic` script (used where the script is not on PATH,
e.g. by an MCP client started with the interpreter's own path)."""

from wikic.cli.application import app

if __name__ == "__main__":
    app(prog_name="wikic")
