"""The OpenAI-compatible embedding provider, through the real `openai` client, against a loopback stand-in."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from library import open_palace, sync

from wikic.errors import PalaceError
from wikic.palace import search
from wikic.text.terms import tokenize
from wikic.text.tokens import estimate_tokens

KEY = "sk-test-secret-4242"


def _vector(text: str, dim: int) -> list[float]:
    """A deterministic bag-of-terms vector: texts sharing words point the same way."""
    v = np.zeros(dim, dtype=np.float64)
    for term in tokenize(text):
        v[int(hashlib.sha256(term.encode()).hexdigest(), 16) % dim] += 1.0
    return (v / (np.linalg.norm(v) or 1.0)).tolist()


class StandIn:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.auth: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.auth.append(self.headers.get("Authorization", ""))
                if self.path != "/v1/embeddings":
                    self.send_error(404)
                    return
                if body["model"] == "broken":
                    payload = json.dumps({"error": {"message": "model not loaded", "type": "invalid_request"}})
                    self.send_response(400)
                elif body["model"] == "echo":  # a server repeating what it was sent, credentials and all
                    said = f"rejected {self.headers.get('Authorization')}"
                    payload = json.dumps({"error": {"message": said, "type": "auth"}})
                    self.send_response(401)
                else:
                    dim = 48 if body["model"] == "wide" else 32
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [
                        {"object": "embedding", "index": i, "embedding": _vector(t, dim)} for i, t in enumerate(inputs)
                    ]
                    payload = json.dumps({"object": "list", "data": data[::-1], "model": body["model"],
                                          "usage": {"prompt_tokens": 1, "total_tokens": 1}})
                    self.send_response(200)
                raw = payload.encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        # shutdown() waits for the loop's next poll: at the default 0.5 s every test would wait that long
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)


@pytest.fixture
def standin() -> Iterator[StandIn]:
    s = StandIn()
    s.thread.start()
    yield s
    s.server.shutdown()
    s.server.server_close()


def _configure(vault: Path, url: str, model: str, *, trusted: bool = False) -> None:
    """The vault's wikic.toml names the endpoint; `trusted`: its user trusts it with the key (`wikic trust`)."""
    from wikic.user_config import trust_endpoint

    (vault / "wikic.toml").write_text(
        f'[embedding]\nprovider = "openai"\nbase_url = "{url}"\nmodel = "{model}"\nbatch_size = 4\n')
    if trusted:
        trust_endpoint(url)


def test_openai_provider_indexes_and_searches(vault: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIC_EMBEDDING_API_KEY", KEY)
    _configure(vault, standin.url, "tiny-embed", trusted=True)
    report = sync(vault)
    assert report.model == "openai:tiny-embed (32-d)"
    assert report.drawers_embedded == report.drawers_total
    assert all(len(r["input"]) <= 4 and r["model"] == "tiny-embed" for r in standin.requests)
    assert set(standin.auth) == {f"Bearer {KEY}"}
    with open_palace(vault) as palace:
        assert search(palace, "Constitutional AI training", k=1)[0].path == "entities/anthropic.md"
    # the key reaches the endpoint and nothing else: not the palace, not the config
    for path in vault.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_other_endpoint_model_is_a_mismatch_even_with_the_same_dimension(vault: Path, standin: StandIn) -> None:
    _configure(vault, standin.url, "tiny-embed")
    sync(vault)
    _configure(vault, standin.url, "tiny-embed-v2")
    with pytest.raises(PalaceError) as err:
        sync(vault)
    assert "openai:tiny-embed " in err.value.message and "wikic index --rebuild" in (err.value.hint or "")
    assert sync(vault, rebuild=True).model == "openai:tiny-embed-v2 (32-d)"


def test_endpoint_errors_become_palace_errors(vault: Path, standin: StandIn) -> None:
    _configure(vault, standin.url, "broken")
    with pytest.raises(PalaceError, match="model not loaded"):
        sync(vault)


def test_drawers_fit_the_endpoint_window_by_the_offline_token_estimate(vault: Path, standin: StandIn) -> None:
    """A remote model's tokenizer cannot be loaded: drawers are cut by wikic's one token estimate."""
    _configure(vault, standin.url, "tiny-embed")
    with (vault / "wikic.toml").open("a") as fh:
        fh.write("max_input_tokens = 24\n")
    sync(vault)
    sent = [text for r in standin.requests for text in r["input"] if text != "dimension probe"]
    assert 12 < max(estimate_tokens(text) for text in sent) <= 24


def test_a_key_pasted_with_its_line_break_reaches_the_endpoint_without_it(
    vault: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIC_EMBEDDING_API_KEY", f"{KEY}\r\n")
    _configure(vault, standin.url, "tiny-embed", trusted=True)
    assert sync(vault).drawers_embedded > 0
    assert set(standin.auth) == {f"Bearer {KEY}"}


@pytest.mark.parametrize("credentials", ["key", "url"])
def test_endpoint_errors_show_neither_the_key_nor_the_urls_credentials(
    vault: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch, credentials: str
) -> None:
    """A server repeating the Authorization header it was sent: `Bearer KEY`, or the Basic one an HTTP library
    makes of the credentials in the base URL."""
    password = "pw-Secret-77"
    url = standin.url.replace("http://", f"http://bob:{password}@") if credentials == "url" else standin.url
    monkeypatch.setenv("WIKIC_EMBEDDING_API_KEY", KEY)
    _configure(vault, url, "echo", trusted=True)
    with pytest.raises(PalaceError) as err:
        sync(vault)
    shown = f"{err.value.message} {err.value.hint}"
    assert "rejected" in shown and "***" in shown, shown
    basic = base64.b64encode(f"bob:{password}".encode()).decode()
    for secret in (KEY, password, "bob", basic):
        assert secret not in shown, shown
    assert standin.auth[-1] == (f"Basic {basic}" if credentials == "url" else f"Bearer {KEY}")


def test_an_endpoint_only_the_vault_names_gets_no_key_and_a_refusal_says_how_to_trust_it(
    vault: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cloned vault's [embedding] base_url on loopback (a local server needs no key) is asked without the
    key from the environment; when it answers 401, the error says the key was not sent, why, and how to
    trust the endpoint. Trusted, it gets the key."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    _configure(vault, standin.url, "tiny-embed")
    assert sync(vault).drawers_embedded > 0
    assert standin.auth and not any(KEY in auth for auth in standin.auth)
    origin = standin.url.removesuffix("/v1")
    _configure(vault, standin.url, "echo")
    with pytest.raises(PalaceError) as err:
        sync(vault, rebuild=True)
    assert err.value.hint is not None and "the API key in OPENAI_API_KEY was not sent" in err.value.hint
    assert f"`wikic trust {origin}`" in err.value.hint and f"{vault / 'wikic.toml'}:3" in err.value.hint
    _configure(vault, standin.url, "tiny-embed", trusted=True)
    sync(vault, rebuild=True)
    assert standin.auth[-1] == f"Bearer {KEY}"
