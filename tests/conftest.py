"""Fixtures shared by every test folder.

- An autouse fixture gives each test its own HOME and removes WIKIC_* and OPENAI_* variables, so a
  developer's settings, keys or endpoints never leak into a test.
- The Hypothesis profiles (`HYPOTHESIS_PROFILE`) and the live tier's selection.
- Ctrl-C reaches the tests and the processes they start, however the run was launched.
- `make_vault` and `page`, the helpers of tests/testkit.py as fixtures (`make_vault` bound to the test's
  tmp_path); module-level tables import them: `from testkit import make_vault, page`.
"""

from __future__ import annotations

import functools
import os
import re
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import typer.main
import typer.testing
from hypothesis import HealthCheck, settings
from testkit import PROFILE, make_vault, page

# Hypothesis: `ci` (what .ci/run uses) is derandomized (which also means no example database), so CI never
# fails on an example no one can replay; `dev` (the default) explores new examples each run and replays the
# ones that failed before; `long` is for a thorough local run.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.register_profile(
    "long", max_examples=20_000, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(PROFILE)

# A shell starts a background job (`cmd &`) with SIGINT ignored, and the processes it starts inherit that: the
# tests that press Ctrl-C (on the library in this process, or on a `wikic` they start) would press nothing.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# typer's CliRunner turns the app into a click command on every invoke, reading every command's signature
# again (about 50 ms for wikic's); the suite invokes the CLI hundreds of times, so each app is turned once.
# A click command holds no state between runs, as when `wikic` itself runs once per process. (`_get_command` is
# typer.testing's private name for typer.main.get_command: it is replaced in that module's namespace.)
vars(typer.testing)["_get_command"] = functools.cache(typer.main.get_command)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The live tier talks to a real model: it runs when a `-m` expression asks for it (`-m live`) and is
    deselected, not skipped, in every other run (the default one, `-m "not slow"`, ...)."""
    if re.search(r"(?<!not )\blive\b", config.getoption("markexpr") or ""):
        return
    live = [item for item in items if item.get_closest_marker("live")]
    if live:
        items[:] = [item for item in items if not item.get_closest_marker("live")]
        config.hook.pytest_deselected(items=live)


@pytest.fixture(autouse=True)
def _isolated_env(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    _no_certificates: Path,
) -> None:
    """A fresh HOME and no WIKIC_*/OPENAI_* settings for every test; no trusted certificates but in the live
    tier."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name in list(os.environ):
        if name.startswith(("WIKIC_", "OPENAI_")):
            monkeypatch.delenv(name, raising=False)
    # Every server a test talks to is on loopback, over plain HTTP: a test trusts no certificate, so one that
    # reached for the network over TLS would fail. It also spares each HTTP client (the openai SDK makes one
    # per LLM) reading the machine's whole CA bundle, which costs the suite seconds. The live tier talks to a
    # real endpoint, perhaps over https, and keeps the machine's certificates.
    if request.node.get_closest_marker("live") is None:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.setenv("SSL_CERT_DIR", str(_no_certificates))


@pytest.fixture(scope="session")
def _no_certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty certificate folder: the trust store of every test but the live ones."""
    return tmp_path_factory.mktemp("no-certificates")


@pytest.fixture(name="make_vault")
def make_vault_fixture(tmp_path: Path) -> Callable[..., Path]:
    """`make_vault(files, schema=True, ...)` bound to this test's tmp_path."""

    def make(files: Mapping[str, str | bytes], schema: bool | str = True, **kwargs: Any) -> Path:
        return make_vault(tmp_path, files, schema, **kwargs)

    return make


@pytest.fixture(name="page")
def page_fixture() -> Callable[..., str]:
    return page
