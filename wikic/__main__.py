"""`python -m wikic`: the same command line as the `wikic` script (used where the script is not on PATH,
e.g. by an MCP client started with the interpreter's own path), its fast paths included."""

from wikic.cli import main

if __name__ == "__main__":
    main(prog_name="wikic")
