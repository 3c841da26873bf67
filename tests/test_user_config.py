"""What is the user's to decide and not the vault's, which is often a clone or a synced folder: where the API
key from the environment may go (an endpoint the user named, the provider's default, or one they trusted with
`wikic trust`), and what wikic may reach beyond the vault (`[mcp] allow`, `[capture] allow`, a palace
elsewhere), which come from the user's own config (`~/.config/wikic/config.toml`) or the environment."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from standin_openai import StandinServer, error, reply
from typer.testing import CliRunner

from wikic.cli import app
from wikic.config_file import user_config_path
from wikic.errors import ConfigError, LLMError
from wikic.settings import load_settings, load_user_settings
from wikic.user_config import trust_endpoint, trusted_endpoints

KEY = "sk-user-" + secrets.token_hex(12)
ELSEWHERE = "https://llm.attacker.example/v1"


def vault_naming(root: Path, section: str, url: str, extra: str = "") -> Path:
    """A vault whose own wikic.toml names `url` as the endpoint of `section` (line 2 of the file)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "SCHEMA.md").write_text("# Wiki Schema\n", encoding="utf-8")
    if section == "llm":
        text = f'[llm]\nbase_url = "{url}"\nmodel = "m"\n'
    else:
        text = f'[embedding]\nbase_url = "{url}"\nprovider = "openai"\nmodel = "e"\n'
    (root / "wikic.toml").write_text(text + extra, encoding="utf-8")
    return root


def user_config(text: str) -> Path:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_tests_never_read_the_real_users_config() -> None:
    assert user_config_path().is_relative_to(Path(os.environ["HOME"]))
    assert "XDG_CONFIG_HOME" not in os.environ


# -- the key goes only where the user said ---------------------------------------------------------------


@pytest.mark.parametrize("section", ["llm", "embedding"])
@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "WIKIC_{SECTION}_API_KEY"])
def test_a_key_is_refused_to_an_endpoint_elsewhere_that_only_the_vault_names(
    tmp_path: Path, section: str, variable: str
) -> None:
    variable = variable.format(SECTION=section.upper())
    root = vault_naming(tmp_path / "wiki", section, ELSEWHERE)
    part = getattr(load_settings(root, env={variable: KEY}), section)
    assert part.api_key is None
    with pytest.raises(ConfigError) as refused:
        part.sendable_key()
    assert refused.value.exit_code == 2
    assert refused.value.message == (
        f"refusing to send the API key in {variable} to https://llm.attacker.example: [{section}] base_url in the "
        f"vault's {root / 'wikic.toml'}:2 names https://llm.attacker.example, which you have not trusted"
    )
    assert "run `wikic trust https://llm.attacker.example`" in (refused.value.hint or "")
    assert KEY not in f"{refused.value.message} {refused.value.hint} {part!r}"


HOW = ["named in a variable", "trusted", "trusted under another path", "the provider's own"]


@pytest.mark.parametrize(
    ("section", "how"),
    [("llm", how) for how in [*HOW, "named by a flag"]] + [("embedding", how) for how in HOW],  # no embedding flag
)
def test_the_key_goes_to_an_endpoint_the_user_named_or_trusted(tmp_path: Path, section: str, how: str) -> None:
    root = vault_naming(tmp_path / "wiki", section, "https://api.openai.com/v1" if how == "the provider's own"
                        else ELSEWHERE)
    env = {"OPENAI_API_KEY": KEY}
    overrides = {}
    if how == "named in a variable":
        env[f"WIKIC_{section.upper()}_BASE_URL"] = "https://llm.mine.example/v1"
    elif how == "named by a flag":
        overrides["base_url"] = "https://llm.mine.example/v1"
    elif how == "trusted":
        trust_endpoint(ELSEWHERE)
    elif how == "trusted under another path":
        trust_endpoint("https://LLM.attacker.example:443/other/path?x=1")
    part = getattr(load_settings(root, overrides, env=env), section)
    assert part.sendable_key() == KEY and part.key_withheld is None


@pytest.mark.parametrize("other", ["http://llm.attacker.example/v1", "https://llm.attacker.example:8443/v1",
                                   "https://attacker.example/v1", "https://llm.attacker.example.evil.example/v1"])
def test_trusting_an_endpoint_trusts_its_scheme_host_and_port_only(tmp_path: Path, other: str) -> None:
    trust_endpoint(ELSEWHERE)
    root = vault_naming(tmp_path / "wiki", "llm", other)
    with pytest.raises(ConfigError, match="refusing to send the API key"):
        load_settings(root, env={"OPENAI_API_KEY": KEY}).llm.sendable_key()


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434/v1", "http://localhost:8080/v1", "http://[::1]:9/v1"])
def test_a_server_on_loopback_that_only_the_vault_names_is_asked_without_the_key(tmp_path: Path, url: str) -> None:
    root = vault_naming(tmp_path / "wiki", "llm", url)
    llm = load_settings(root, env={"OPENAI_API_KEY": KEY}).llm
    assert llm.sendable_key() is None and llm.key_withheld is not None and llm.key_withheld.loopback


def test_the_model_client_sends_no_key_to_it_and_a_401_says_why_and_how_to_trust_it(tmp_path: Path) -> None:
    from wikic.llm.client import OpenAICompatible

    with StandinServer() as server:
        root = vault_naming(tmp_path / "wiki", "llm", server.base_url, extra="max_retries = 0\n")
        settings = load_settings(root, env={"OPENAI_API_KEY": KEY}).llm
        server.enqueue(reply("hello"), error(401, "Missing API key", should_retry=False))
        assert "".join(OpenAICompatible(settings).complete_text([{"role": "user", "content": "hi"}], max_tokens=9))
        with pytest.raises(LLMError) as refused:
            OpenAICompatible(settings).complete_text([{"role": "user", "content": "hi"}], max_tokens=9)
        assert [r.headers.get("authorization") for r in server.requests] == ["Bearer not-needed"] * 2
        origin = server.base_url.removesuffix("/v1")
        assert "HTTP 401" in refused.value.message
        assert refused.value.hint == (
            f"the API key in OPENAI_API_KEY was not sent: [llm] base_url in the vault's {root / 'wikic.toml'}:2 "
            f"names {origin}, which you have not trusted; if {origin} is yours to trust with that key, run "
            f"`wikic trust {origin}`; or name the endpoint yourself in WIKIC_LLM_BASE_URL"
        )
        trust_endpoint(server.base_url)
        server.enqueue(reply("hello"))
        trusted = load_settings(root, env={"OPENAI_API_KEY": KEY}).llm
        assert "".join(OpenAICompatible(trusted).complete_text([{"role": "user", "content": "hi"}], max_tokens=9))
        assert server.requests[-1].headers.get("authorization") == f"Bearer {KEY}"


@pytest.mark.parametrize(
    ("section", "command"),
    [("llm", ["ingest", "{note}"]), ("llm", ["query", "What is it?"]), ("embedding", ["search", "x"]),
     ("embedding", ["index"]), ("embedding", ["ingest", "{note}"])],
)
def test_commands_refuse_before_anything_is_sent_or_captured(
    make_vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, section: str, command: list[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    root = make_vault({})
    vault_naming(root, section, ELSEWHERE, extra='[llm]\nmodel = "m"\n' if section == "embedding" else "")
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nAcme builds widgets.\n", encoding="utf-8")
    raw_before = sorted(p.relative_to(root) for p in (root / "raw").rglob("*"))
    result = CliRunner().invoke(app, [*(a.format(note=note) for a in command), "--vault", str(root)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "Error: refusing to send the API key in OPENAI_API_KEY to https://llm.attacker.example: "
    ), result.stderr
    assert "Hint: if https://llm.attacker.example is yours to trust with that key, run `wikic trust " in result.stderr
    assert KEY not in result.output and "Traceback" not in result.output
    assert sorted(p.relative_to(root) for p in (root / "raw").rglob("*")) == raw_before


# -- `wikic trust` ----------------------------------------------------------------------------------------


def test_trust_adds_lists_and_removes_an_endpoint_keeping_the_rest_of_the_file() -> None:
    path = user_config('# mine\n\n[capture]\nvault = "~/wiki"  # the hook\'s vault\n')

    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(app, ["trust", *args])
        return result.exit_code, result.stdout, result.stderr

    code, out, _ = run("https://alice:pw@LLM.example.com:443/v1?api-key=k")
    assert code == 0 and out == (
        "Trusted https://llm.example.com: the API key from the environment may go there when a vault's wikic.toml "
        f"names it ({path})\n"
    )
    assert run("https://llm.example.com/v2")[1] == f"https://llm.example.com is already trusted ({path})\n"
    assert run("http://127.0.0.1:8080/v1")[0] == 0
    assert run("--list")[1] == "https://llm.example.com\nhttp://127.0.0.1:8080\n"
    assert run("--remove", "https://llm.example.com")[1] == f"No longer trusted: https://llm.example.com ({path})\n"
    assert trusted_endpoints() == ["http://127.0.0.1:8080"]
    text = path.read_text(encoding="utf-8")
    assert text.endswith('# mine\n\n[capture]\nvault = "~/wiki"  # the hook\'s vault\n') and "alice" not in text
    assert load_settings_of_user()["capture"]["vault"] == "~/wiki"


def load_settings_of_user() -> dict[str, Any]:
    from wikic.settings import load_user_settings

    return load_user_settings().model_dump()


def test_trust_rewrites_a_list_written_over_several_lines(tmp_path: Path) -> None:
    user_config('trusted_endpoints = [\n  "https://a.example",  # the first\n  "https://b.example",\n]\n'
                "\n[mcp]\nallow = []\n")
    trust_endpoint("https://c.example/v1")
    assert trusted_endpoints() == ["https://a.example", "https://b.example", "https://c.example"]
    assert user_config_path().read_text(encoding="utf-8").endswith("\n[mcp]\nallow = []\n")


def test_a_bad_user_config_is_one_error_naming_its_file_and_line(tmp_path: Path) -> None:
    root = vault_naming(tmp_path / "wiki", "llm", "http://127.0.0.1:9/v1")
    path = user_config('trusted_endpoints = ["http://[::1:9/v1"]\ntrusted_endpoint = []\n\n[mcp]\nallow = "/"\n')
    with pytest.raises(ConfigError) as error:
        load_settings(root, env={})
    assert error.value.exit_code == 2
    assert error.value.message.splitlines() == [
        "invalid settings:",
        "  trusted_endpoints: is not a valid URL (Invalid IPv6 URL): write it like https://llm.example.com "
        f"(got ['http://[::1:9/v1']) (from {path}:1)",
        "  trusted_endpoint: unknown key; did you mean 'trusted_endpoints'? (known: trusted_endpoints, [capture], "
        f"[mcp], [search]) (from {path}:2)",
        f"  [mcp] allow: Input should be a valid list (got '/') (from {path}:5)",
    ]


# -- what wikic reaches beyond the vault ----------------------------------------------------------------


def refused(root: Path, toml: str) -> str:
    """The line naming the key `wikic status` refuses in the vault's wikic.toml (written as `toml`)."""
    (root / "wikic.toml").write_text(toml, encoding="utf-8")
    result = CliRunner().invoke(app, ["status", "--no-lint", "--vault", str(root)])
    assert result.exit_code == 2, result.output
    return result.stderr.splitlines()[1]


@pytest.mark.parametrize(("section", "line"), [("mcp", 'allow = ["/"]'), ("capture", 'allow = ["~"]')])
def test_a_vaults_own_allow_list_is_refused_naming_where_it_belongs(
    make_vault, section: str, line: str
) -> None:
    root = make_vault({})
    assert refused(root, f'[lint]\nstrict = false\n\n[{section}]\n{line}\n') == (
        f"  [{section}] allow: the vault's own wikic.toml may not widen what wikic reaches (the vault may be a clone "
        f"or a synced folder): list it under [{section}] allow in your own {user_config_path()} "
        f"(from {root / 'wikic.toml'}:5)"
    )
    (root / "wikic.toml").write_text(f"[{section}]\nallow = []\n", encoding="utf-8")  # an empty list widens nothing
    assert getattr(load_settings(root, env={}), section).allow == []


@pytest.mark.parametrize("key", ["serve", "serve_idle"])
def test_a_vault_may_not_have_search_start_a_server(make_vault, key: str) -> None:
    root = make_vault({})
    assert refused(root, f"[search]\n{key} = 1\n") == (
        f"  [search] {key}: the vault's own wikic.toml may not start processes on your machine: set [search] {key} "
        f"in your own {user_config_path()} (from {root / 'wikic.toml'}:2)"
    )
    user_config("[search]\nserve = true\nserve_idle = 60\n")
    (root / "wikic.toml").unlink()
    assert load_user_settings(env=os.environ).search.serve is True


def test_the_allow_lists_come_from_the_users_own_config(tmp_path: Path) -> None:
    root = vault_naming(tmp_path / "wiki", "llm", "http://127.0.0.1:9/v1")
    user_config('[mcp]\nallow = ["~/papers", "http://127.0.0.1:8080/"]\n\n[capture]\nallow = ["~/sessions"]\n')
    settings = load_settings(root, env={})
    assert settings.mcp.allow == ["~/papers", "http://127.0.0.1:8080/"] and settings.capture.allow == ["~/sessions"]


def test_an_absolute_palace_path_outside_the_vault_comes_from_the_environment_only(tmp_path: Path) -> None:
    root = vault_naming(tmp_path / "wiki", "llm", "http://127.0.0.1:9/v1")
    elsewhere = tmp_path / "palaces" / "mine"
    (root / "wikic.toml").write_text(f'[palace]\npath = "{elsewhere}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_settings(root, env={})
    assert error.value.message.splitlines()[1] == (
        "  [palace] path: the vault's own wikic.toml may not widen what wikic reaches (the vault may be a clone or "
        "a synced folder): to keep the palace outside the vault, set WIKIC_PALACE_PATH in the environment "
        f"(from {root / 'wikic.toml'}:2)"
    )
    (root / "wikic.toml").write_text(f'[palace]\npath = "{root / "index"}"\n', encoding="utf-8")  # inside: fine
    assert load_settings(root, env={}).palace.path == root / "index"
    (root / "wikic.toml").unlink()
    assert load_settings(root, env={"WIKIC_PALACE_PATH": str(elsewhere)}).palace.path == elsewhere
    with pytest.raises(ConfigError, match="a relative path must stay inside the vault"):
        load_settings(root, env={"WIKIC_PALACE_PATH": "../out"})


# -- the MCP server's token -----------------------------------------------------------------------------


def test_the_mcp_token_is_made_once_private_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from wikic.user_config import mcp_token

    first = mcp_token()
    path = user_config_path().parent / "mcp-token"
    assert first.created and first.source == str(path) and path.stat().st_mode & 0o777 == 0o600
    assert len(first.value) >= 32 and first.value not in repr(first)
    again = mcp_token()
    assert again.value == first.value and not again.created
    monkeypatch.setenv("WIKIC_MCP_TOKEN", "  a-token-of-my-own-choosing \n")
    assert (mcp_token().value, mcp_token().source) == ("a-token-of-my-own-choosing", "WIKIC_MCP_TOKEN")


@pytest.mark.parametrize("given", ["short", "has a space in it, long enough", "non-ascii-tøken-long-enough"])
def test_a_token_anyone_could_guess_or_no_header_can_carry_is_refused(
    monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    from wikic.user_config import mcp_token

    monkeypatch.setenv("WIKIC_MCP_TOKEN", given)
    with pytest.raises(ConfigError) as refused:
        mcp_token()
    assert refused.value.exit_code == 2 and given not in refused.value.message


def test_a_token_file_others_may_read_is_refused() -> None:
    from wikic.user_config import mcp_token

    path = user_config_path().parent / "mcp-token"
    mcp_token()
    path.chmod(0o644)
    with pytest.raises(ConfigError, match="others may read the MCP server's token") as refused:
        mcp_token()
    assert f"chmod 600 {path}" in (refused.value.hint or "")
