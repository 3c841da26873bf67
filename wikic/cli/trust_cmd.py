"""`wikic trust URL`: let the API key from the environment go to an endpoint a vault's wikic.toml names.

Example: wikic trust https://llm.example.com/v1
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import translate_errors
from wikic.cli._output import say
from wikic.errors import UsageError

_HELP = """Trust an endpoint with the API key from the environment.

A vault is often a clone or a synced folder, so an [llm] or [embedding]
base_url written in its wikic.toml gets the key (WIKIC_LLM_API_KEY,
OPENAI_API_KEY...) only once you trust that endpoint: its scheme, host and
port are added to trusted_endpoints in your own ~/.config/wikic/config.toml.
An endpoint you name yourself (WIKIC_LLM_BASE_URL, OPENAI_BASE_URL,
WIKIC_EMBEDDING_BASE_URL, --base-url) or api.openai.com needs no trust; a
server on this machine's loopback that the vault names is asked without the
key until you trust it.

Example: wikic trust https://llm.example.com/v1
"""


def register(app: typer.Typer) -> None:
    @app.command("trust", help=_HELP)
    @translate_errors
    def trust_command(
        url: Annotated[
            str | None, typer.Argument(metavar="URL", help="The endpoint, as base_url names it.", show_default=False)
        ] = None,
        remove: Annotated[bool, typer.Option("--remove", help="Stop trusting the endpoint of URL.")] = False,
        list_trusted: Annotated[bool, typer.Option("--list", help="Show the trusted endpoints.")] = False,
    ) -> None:
        from wikic.user_config import distrust_endpoint, trust_endpoint, trusted_endpoints

        if list_trusted:
            if url is not None or remove:
                raise UsageError("--list takes no URL and no --remove", hint="run wikic trust --list alone")
            listed = trusted_endpoints()
            for origin in listed:
                say(origin)
            if not listed:
                say("No endpoint is trusted but those you name yourself and api.openai.com.", err=True)
            return
        if url is None:
            raise UsageError("give the URL of the endpoint to trust, or --list",
                             hint="for example: wikic trust https://llm.example.com/v1")
        done = distrust_endpoint(url) if remove else trust_endpoint(url)
        if remove:
            say(f"No longer trusted: {done.origin} ({done.path})" if done.changed
                else f"{done.origin} was not trusted ({done.path})")
        else:
            say(f"Trusted {done.origin}: the API key from the environment may go there when a vault's "
                f"wikic.toml names it ({done.path})" if done.changed
                else f"{done.origin} is already trusted ({done.path})")
