"""wikic.toml: one loader for every section, validated up front, every problem reported at once with its
section, key and line, the same message from every command."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from wikic.cli import app
from wikic.config_file import key_lines
from wikic.errors import ConfigError
from wikic.settings import SECTIONS, Settings, load_settings

REPO = Path(__file__).resolve().parents[1]


def write(vault: Path, text: str | bytes) -> Path:
    path = vault / "wikic.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def problems(vault: Path, overrides: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_settings(vault, overrides, env=env or {})
    assert info.value.exit_code == 2
    return info.value


def test_every_section_is_a_model() -> None:
    assert list(SECTIONS) == ["llm", "ingest", "palace", "embedding", "lint", "capture", "search", "eval", "mcp",
                              "export"]


def test_every_problem_of_every_section_is_reported_at_once_in_file_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "[llm]\n"
        'timeout = "soon"\n'  # 2
        'modle = "typo"\n'  # 3
        "concurrency = 0\n"  # 4
        "[ingest]\n"
        "chunk_tokens = 5\n"  # 6
        "[palace]\n"
        'fusion = "borda"\n'  # 8
        "[embedding]\n"  # 9
        'provider = "bert"\n'  # 10
        "[lint]\n"
        'strict = "yes"\n'  # 12
        "[extras]\n"  # 13
        "x = 1\n",
    )
    error = problems(tmp_path, {"max_retries": -1}, {"WIKIC_LLM_BASE_URL": "localhost:11434"})
    assert error.message.split("\n") == [
        "invalid settings:",
        f"  [llm] timeout: Input should be a valid number (got 'soon') (from {path}:2)",
        "  [llm] modle: unknown key; did you mean 'model'? (known keys: base_url, model, timeout, deadline, "
        "max_retries, concurrency, temperature, max_output_tokens, strategy, compose, price_per_1k_input, "
        "price_per_1k_output, extra_body) "
        f"(from {path}:3)",
        f"  [llm] concurrency: Input should be greater than or equal to 1 (got 0) (from {path}:4)",
        f"  [ingest] chunk_tokens: Input should be greater than or equal to 200 (got 5) (from {path}:6)",
        f"  [palace] fusion: Input should be 'calibrated', 'convex' or 'rrf' (got 'borda') (from {path}:8)",
        '  [embedding] provider: unknown embedding provider: choose "use" (multilingual, default), "e5" (better, '
        'slower), "static" (tiny, fast) or "openai" (an OpenAI-compatible endpoint) '
        f"(got 'bert') (from {path}:10)",
        f"  [lint] strict: Input should be a valid boolean (got 'yes') (from {path}:12)",
        "  [extras]: unknown section (known sections: [llm], [ingest], [palace], [embedding], [lint], [capture], "
        f"[search], [eval], [mcp], [export]) (from {path}:13)",
        "  [llm] base_url: must be an http(s) URL like http://localhost:11434/v1 "
        "(got 'localhost:11434') (from environment variable WIKIC_LLM_BASE_URL)",
        "  [llm] max_retries: Input should be greater than or equal to 0 (got -1) (from command-line option)",
    ]
    assert error.hint == (
        f"fix what is named above: the keys in {path}, the environment variables and the flags (see the command's "
        "--help)"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[palce]\n", "[palce]: unknown section; did you mean [palace]?"),
        ("[llm]\nbase-url = 'http://x'\n", "[llm] base-url: unknown key; did you mean 'base_url'?"),
        ("[embedding]\nprovidr = 'use'\n", "[embedding] providr: unknown key; did you mean 'provider'?"),
        ("[palace]\nfussion = 'rrf'\n", "[palace] fussion: unknown key; did you mean 'fusion'?"),
        ("[ingest]\nchunk_token = 300\n", "[ingest] chunk_token: unknown key; did you mean 'chunk_tokens'?"),
        ("[lint]\nstrikt = true\n", "[lint] strikt: unknown key; did you mean 'strict'? (known keys: strict)"),
        # a rule id: severities have one home, SCHEMA.md
        (
            "[lint]\norphan-page = 'error'\n",
            "[lint] orphan-page: unknown key; rule severities are set in SCHEMA.md under '## Lint' "
            "(e.g. '- orphan-page: warning') (known keys: strict)",
        ),
        (
            'llm = "gpt"\n',
            "[llm]: Input should be a valid dictionary or instance of LLMSettings (got 'gpt') (from {path}:1)",
        ),
    ],
)
def test_unknown_and_misplaced_keys_name_the_known_ones(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    assert expected.format(path=path) in problems(tmp_path).message


def test_lines_of_quoted_dotted_and_inline_keys(tmp_path: Path) -> None:
    text = (
        "# comment\n"
        "[llm]\n"
        'base_url = "http://h/v1"\n'  # 3
        'extra_body = { options = { num_ctx = 8192 } }\n'  # 4
        'note = """\n'  # 5: a multi-line string: its lines are not keys
        "model = 1\n"
        '"""\n'
        "[ palace ]\n"  # 8
        '"url" = "x"\n'  # 9
        "embedding.model = 'm'\n"  # 10: a dotted key under [palace]
    )
    assert key_lines(text) == {
        ("llm",): 2, ("llm", "base_url"): 3, ("llm", "extra_body"): 4, ("llm", "note"): 5,
        ("palace",): 8, ("palace", "url"): 9, ("palace", "embedding", "model"): 10,
    }


def test_a_file_saved_with_a_byte_order_mark_loads_every_section(tmp_path: Path) -> None:
    write(
        tmp_path,
        b"\xef\xbb\xbf[llm]\nmodel = \"m\"\n[ingest]\nchunk_tokens = 900\n[palace]\nfusion = \"rrf\"\n"
        b"[embedding]\nprovider = \"static\"\n[lint]\nstrict = true\n",
    )
    settings = load_settings(tmp_path, env={})
    assert (settings.llm.model, settings.ingest.chunk_tokens, settings.palace.fusion) == ("m", 900, "rrf")
    assert (settings.embedding.provider, settings.lint.strict) == ("static", True)


@pytest.mark.parametrize(
    "text, where, what",
    [
        ('[llm]\nmodel = "m"\ntimeout = \n', "3:11", "Invalid value"),
        ("[palace\n", "1:8", "Expected ']' at the end of a table declaration"),
        ("[embedding]\nprovider = [1,\n", "3:1", "Invalid value"),  # tomllib: "at end of document"
    ],
)
def test_bad_toml_is_one_message_naming_file_line_and_column(tmp_path: Path, text: str, where: str, what: str) -> None:
    path = write(tmp_path, text)
    error = problems(tmp_path)
    assert (error.message, error.hint) == (
        f"{path}:{where}: invalid TOML: {what}",
        "see https://toml.io for the syntax",
    )


def test_non_utf8_file_is_one_message(tmp_path: Path) -> None:
    path = write(tmp_path, b'[palace]\ncollection = "caf\xe9"\n')
    error = problems(tmp_path)
    assert (error.message, error.hint) == (f"{path}: not UTF-8 text", "save the file as UTF-8")


def test_values_nested_thousands_deep_are_one_message(tmp_path: Path) -> None:
    path = write(tmp_path, ("[llm]\nextra_body = { x = " + "[" * 5000 + "]" * 5000 + " }\n").encode())
    error = problems(tmp_path)
    assert error.message == f"{path}: values nested too deep to read"


def test_a_number_in_quotes_is_a_string_in_every_section(tmp_path: Path) -> None:
    """TOML has types: the sections used to differ ("60" was a number in [llm] and an error in [palace])."""
    write(tmp_path, '[llm]\ntimeout = "60"\n[palace]\nlock_timeout = "60"\n')
    message = problems(tmp_path).message
    assert "[llm] timeout: Input should be a valid number (got '60')" in message
    assert "[palace] lock_timeout: Input should be a valid number (got '60')" in message


BAD = '[llm]\nmodel = "m"\n[palace]\nfusion = "borda"\n[embeding]\nprovider = "use"\n'


@pytest.mark.parametrize(
    "command",
    [
        ["ingest", "notes.md"],
        ["index"],
        ["search", "x"],
        ["query", "x"],
        ["status", "--no-lint"],
        ["lint"],
        ["lint", "--strict"],
    ],
)
def test_every_command_reports_a_bad_file_the_same_way(make_vault, command: list[str]) -> None:
    root = make_vault({"notes.md": "# Notes\n"})
    path = write(root, BAD)
    result = CliRunner().invoke(app, [*command, "--vault", str(root)])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "Error: invalid settings:\n"
        f"  [palace] fusion: Input should be 'calibrated', 'convex' or 'rrf' (got 'borda') (from {path}:4)\n"
        "  [embeding]: unknown section; did you mean [embedding]? (known sections: [llm], [ingest], [palace], "
        f"[embedding], [lint], [capture], [search], [eval], [mcp], [export]) (from {path}:5)\n"
        f"Hint: fix the keys above in {path}\n"
    )


def _uncommented(text: str) -> str:
    """A TOML text with its commented-out examples (`# key = ...`, `# [section]`) switched on."""
    return re.sub(r"^# (?=\[|[a-z_0-9]+ = )", "", text, flags=re.M)


def test_the_readme_documents_every_key_of_every_section(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^## Configuration\n.*?^```toml\n(.*?)^```", readme, re.M | re.S)
    assert block is not None
    documented = {key for key in key_lines(_uncommented(block.group(1))) if len(key) == 2}
    assert documented == {
        (name, key) for name, model in SECTIONS.items() for key in model.model_fields if key != "api_key"
    }
    # as shown, it is valid, and the values not commented out are the defaults (but the [llm] example endpoint)
    write(tmp_path, block.group(1))
    shown = load_settings(tmp_path, env={}).model_dump(exclude={"llm": {"base_url", "model"}})
    assert shown == Settings().model_dump(exclude={"llm": {"base_url", "model"}}) | {"palace": shown["palace"]}
    assert shown["palace"] == Settings().model_dump()["palace"] | {"path": tmp_path / ".wikic" / "palace"}


def test_the_wikic_toml_of_a_new_vault_and_its_examples_are_valid(tmp_path: Path) -> None:
    from wikic.resources import template_text

    text = template_text("vault/wikic.toml")
    write(tmp_path, text)
    assert load_settings(tmp_path, env={}).llm.model == "qwen3:8b"
    write(tmp_path, _uncommented(text))
    assert load_settings(tmp_path, env={}).lint.strict is True


# -- numbers: finite and in range, every numeric key of every section ---------------------------------------


def _numeric_keys() -> list[tuple[str, str, type]]:
    out: list[tuple[str, str, type]] = []
    for section, model in SECTIONS.items():
        for key, info in model.model_fields.items():
            kinds = {info.annotation} | set(getattr(info.annotation, "__args__", ()))
            number = next((kind for kind in (float, int) if kind in kinds), None)
            if number is not None:
                out.append((section, key, number))
    return out


NUMERIC_KEYS = _numeric_keys()


def test_every_numeric_key_has_a_lower_and_an_upper_bound() -> None:
    """A new numeric key without a range fails here: an absurd value must be refused, not overflow later."""
    assert len(NUMERIC_KEYS) >= 20
    for section, key, _ in NUMERIC_KEYS:
        info = SECTIONS[section].model_fields[key]
        names = {type(m).__name__ for m in info.metadata}
        assert names & {"Ge", "Gt"} and names & {"Le", "Lt"}, f"[{section}] {key} has no range"


BAD_NUMBERS = ["inf", "-inf", "nan", "-1", "1e400", "1" + "0" * 30, "9" * 400]


@pytest.mark.parametrize(("section", "key", "kind"), NUMERIC_KEYS, ids=[f"{s}.{k}" for s, k, _ in NUMERIC_KEYS])
def test_a_non_finite_or_absurd_number_is_refused_with_its_section_key_and_line(
    tmp_path: Path, section: str, key: str, kind: type
) -> None:
    for value in BAD_NUMBERS:
        path = write(tmp_path, f"# numbers\n[{section}]\n{key} = {value}\n")
        error = problems(tmp_path)
        (line,) = error.message.split("\n")[1:]
        assert line.startswith(f"  [{section}] {key}: "), (value, line)
        assert line.endswith(f"(from {path}:3)"), (value, line)
        assert len(line) < 300, line  # a 400-digit number is not repeated whole


def test_in_range_values_load_and_a_huge_integer_names_the_range(tmp_path: Path) -> None:
    write(tmp_path, "[ingest]\nmax_source_mb = 4096\nfetch_timeout = 0.5\n[llm]\ntimeout = 86400\n")
    settings = load_settings(tmp_path, env={})
    assert settings.ingest.max_source_bytes == 4096 * 1024 * 1024 and settings.llm.timeout == 86400
    write(tmp_path, "[ingest]\nmax_source_mb = 1" + "0" * 400 + "\n")
    shown = "[ingest] max_source_mb: Input should be a number greater than 0 and less than or equal to 4096 (got 1000"
    assert shown in problems(tmp_path).message


def test_chunk_overlap_is_at_most_half_a_chunk(tmp_path: Path) -> None:
    write(tmp_path, "[ingest]\nchunk_tokens = 1000\nchunk_overlap_tokens = 900\n")
    assert "[ingest] chunk_overlap_tokens: must be at most half of chunk_tokens (500 for chunk_tokens = 1000)" in (
        problems(tmp_path).message
    )
    write(tmp_path, "[ingest]\nchunk_tokens = 1000\nchunk_overlap_tokens = 500\n")
    assert load_settings(tmp_path, env={}).ingest.chunk_overlap_tokens == 500


def test_extra_body_may_not_hold_inf_or_nan(tmp_path: Path) -> None:
    write(tmp_path, "[llm]\nextra_body = { options = { num_ctx = 8192, penalties = [1.0, nan] } }\n")
    assert "[llm] extra_body: holds inf or nan, which JSON cannot send" in problems(tmp_path).message
    write(tmp_path, "[llm]\nextra_body = { options = { num_ctx = 8192, penalty = 1.1 } }\n")
    assert load_settings(tmp_path, env={}).llm.extra_body == {"options": {"num_ctx": 8192, "penalty": 1.1}}


def test_a_bad_flag_value_is_named_by_its_flag(tmp_path: Path) -> None:
    error = problems(tmp_path, {"concurrency": 0, "strategy": "fast"})
    assert "[llm] concurrency: Input should be greater than or equal to 1 (got 0) (from the --concurrency flag)" in (
        error.message
    )
    assert "(from the --strategy flag)" in error.message
    assert error.hint == "fix what is named above: the flags (see the command's --help)"


@pytest.mark.parametrize(
    ("toml", "shown"),
    [
        ("[ingest]\nmax_source_mb = 1e400\n", "[ingest] max_source_mb: Input should be a finite number (got inf)"),
        ("[llm]\ntimeout = inf\n", "[llm] timeout: Input should be a finite number (got inf)"),
        ("[llm]\ntimeout = 1e12\n", "[llm] timeout: Input should be less than or equal to 86400 (got 1000000000000.0)"),
    ],
)
def test_ingest_refuses_an_infinite_number_before_anything_is_read(make_vault, toml: str, shown: str) -> None:
    root = make_vault({"notes.md": "# Notes\n"})
    path = write(root, toml)
    result = CliRunner().invoke(app, ["ingest", str(root / "notes.md"), "--vault", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2
    assert f"  {shown} (from {path}:2)\n" in result.stderr
    assert not any((root / "raw").rglob("notes*"))


# -- URLs: one check for every URL of the settings ---------------------------------------------------------

BAD_URLS = {
    "http://[::1:9/v1": "is not a valid URL (Invalid IPv6 URL)",
    "http://127.0.0.1:99999/v1": "is not a valid URL (Port out of range 0-65535)",
    "http://127.0.0.1:port/v1": "is not a valid URL (Port could not be cast to integer value as 'port')",
    "http://host name/v1": "without spaces or control characters",
    "http://h\tst/v1": "without spaces or control characters",
    "http://h<s>t/v1": "is not a valid URL (bad host 'h<s>t')",
    "ftp://host/v1": "must be an http(s) URL like",
    "localhost:11434": "must be an http(s) URL like",
}


@pytest.mark.parametrize("url", sorted(BAD_URLS))
@pytest.mark.parametrize(
    ("section", "before"),
    [("llm", 'model = "m"\n'), ("embedding", 'provider = "openai"\nmodel = "e"\n'), ("palace", "")],
)
def test_a_url_the_http_client_would_choke_on_is_refused_naming_its_key_and_line(
    make_vault, section: str, before: str, url: str
) -> None:
    """The same check of every URL ([llm] base_url, [embedding] base_url, [palace] url): exit 2 with the key
    and its line, never a traceback from deep inside the HTTP client (an unclosed `[` was one, exit 1)."""
    root = make_vault({"notes.md": "# Notes\n"})
    key = "url" if section == "palace" else "base_url"
    path = write(root, f'[{section}]\n{before}{key} = "{url}"\n'.replace("\t", "\\t"))
    line = 2 + before.count("\n")
    result = CliRunner().invoke(app, ["ingest", str(root / "notes.md"), "--vault", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    shown = [row for row in result.stderr.splitlines() if row.startswith(f"  [{section}] {key}: ")]
    assert len(shown) == 1 and BAD_URLS[url] in shown[0] and shown[0].endswith(f"(from {path}:{line})"), shown
    assert not any((root / "raw").rglob("notes*"))


def test_a_bad_url_from_a_variable_or_a_flag_is_refused_the_same_way(tmp_path: Path) -> None:
    error = problems(tmp_path, {"base_url": "http://[::1:9/v1"}, {"WIKIC_EMBEDDING_BASE_URL": "http://h:0x/v1"})
    assert "[llm] base_url: is not a valid URL (Invalid IPv6 URL)" in error.message
    assert "(from the --base-url flag)" in error.message
    assert "[embedding] base_url: is not a valid URL" in error.message
    assert "(from environment variable WIKIC_EMBEDDING_BASE_URL)" in error.message


def test_the_readme_gives_the_range_of_every_numeric_key() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    paragraph = next(p for p in readme.split("\n\n") if p.startswith("Numbers must be finite"))
    assert [key for _, key, _ in NUMERIC_KEYS if f"`{key}`" not in paragraph and f"{key}`" not in paragraph] == []


def test_the_palace_lives_in_the_vault_state_folder_by_default(tmp_path: Path) -> None:
    # settings import nothing from the vault model, so the default is written there too; the two must agree
    from wikic.settings import DEFAULT_PALACE_DIR
    from wikic.vault.layout import STATE_DIR
    from wikic.vault.state import STATE_FOLDERS

    assert f"{STATE_DIR}/palace" == DEFAULT_PALACE_DIR and DEFAULT_PALACE_DIR in STATE_FOLDERS
    assert load_settings(tmp_path, env={}).palace.path == tmp_path / STATE_DIR / "palace"


def test_the_config_file_is_one_of_the_files_wikic_init_writes() -> None:
    from wikic.config_file import CONFIG_FILE
    from wikic.resources import file_names

    assert f"vault/{CONFIG_FILE}" in file_names("templates")
