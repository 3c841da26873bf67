"""`wikic hooks install|uninstall claude-code|codex`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._help import HelpCommand, HelpGroup
from wikic.cli._output import say, say_json
from wikic.vault.layout import require_vault

Tool = Annotated[str, typer.Argument(metavar="claude-code|codex", help="The assistant.")]
User = Annotated[
    bool,
    typer.Option(
        "--user/--project",
        help="The user's settings (~/.claude, ~/.codex) or this project's (./.claude, ./.codex; the default).",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print what changed as JSON.")]


def register(app: typer.Typer) -> None:
    hooks_app = typer.Typer(help="Install or remove the assistant hooks that capture sessions into the vault.\n\n"
                                 "Example: wikic hooks install claude-code --vault ~/wiki --user",
                            no_args_is_help=True, rich_markup_mode=None, cls=HelpGroup)
    app.add_typer(hooks_app, name="hooks")

    def run(action: str, tool: str, vault: Path | None, user: bool, json_output: bool) -> None:
        from wikic.conversations import hooks

        root = resolve_vault(vault)
        require_vault(root)
        path = hooks.settings_file(tool, user=user, home=Path.home(), project=Path.cwd())
        change = (hooks.install if action == "install" else hooks.uninstall)(path, tool, root)
        for warning in change.warnings:
            say(f"Warning: {warning}", err=True)
        if json_output:
            say_json({"file": str(change.path), "added": change.added, "removed": change.removed,
                      "warnings": change.warnings}, ensure_ascii=True)
            return
        if change.unchanged:
            say(f"{change.path}: nothing to {action}")
        for line in change.added:
            say(f"{change.path}: + {line}")
        for line in change.removed:
            say(f"{change.path}: - {line}")

    @hooks_app.command("install", cls=HelpCommand)
    @translate_errors
    def install_command(tool: Tool, vault: VaultDir = None, user: User = False, json_output: Json = False) -> None:
        """Add hooks: Stop and PreCompact run `wikic capture`, SessionStart runs `wikic wake-up`.

        Merges into the assistant's settings file, keeping everything else in it; running it twice adds
        nothing. The hooks run this install's `wikic` by its absolute path (the assistant's PATH need not
        hold it), and replace hooks an earlier install wrote for the vault. A settings file that is a
        symbolic link is written through: its target changes, the link stays.

        Example: wikic hooks install claude-code --vault ~/wiki --user
        """
        run("install", tool, vault, user, json_output)

    @hooks_app.command("uninstall", cls=HelpCommand)
    @translate_errors
    def uninstall_command(tool: Tool, vault: VaultDir = None, user: User = False, json_output: Json = False) -> None:
        """Remove exactly the hooks `wikic hooks install` added for this vault (by any version); everything else stays.

        Example: wikic hooks uninstall claude-code --vault ~/wiki --user
        """
        run("uninstall", tool, vault, user, json_output)
