"""The one redaction of secrets: a key in any form a message or a traceback can show it, and the credentials
of a URL, wherever they are."""

from __future__ import annotations

import base64
import json
import traceback
from urllib.parse import quote, quote_plus

import pytest

from wikic.redact import MASK, Redactor, url_secrets, without_credentials

# Printable ASCII, as a header allows, with the characters that repr, JSON and URLs escape.
KEY = "sk-Ab1'q\"z\\w/x+y=%~ end"


@pytest.mark.parametrize(
    "shown",
    [
        KEY,
        repr(KEY),
        json.dumps(KEY),
        repr(KEY.encode()),
        repr(f"Bearer {KEY}".encode()),  # as an HTTP library prints a header it refuses
        json.dumps(repr(f"Bearer {KEY}".encode())),  # that message inside a JSON document
        repr(repr(KEY)),
        quote(KEY, safe=""),
        quote(KEY),
        quote_plus(KEY),
    ],
)
def test_every_form_of_the_key_is_masked(shown: str) -> None:
    text = Redactor([KEY])(f"refused: {shown} (retry)")
    assert text.startswith("refused: ") and text.endswith(" (retry)")
    assert MASK in text
    for leak in ("Ab1", "end"):
        assert leak not in text, text


def test_a_key_in_a_traceback_is_masked() -> None:
    try:
        raise ValueError(f"Illegal header value {('Bearer ' + KEY + chr(10)).encode()!r}")
    except ValueError as exc:
        printed = "".join(traceback.format_exception(exc))
    assert "Ab1" in printed
    assert "Ab1" not in Redactor([KEY])(printed)


def test_text_without_secrets_is_left_alone() -> None:
    text = "LLM http://127.0.0.1:8080/v1 (model m): HTTP 500: 'oops' \\n \"quoted\" user@example.org"
    assert Redactor([KEY], urls=["http://127.0.0.1:8080/v1"])(text) == text
    assert Redactor()(text) == text


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:hunter22@host.example/v1", "https://***@host.example/v1"),
        ("http://tok3n-only@127.0.0.1:8080/v1", "http://***@127.0.0.1:8080/v1"),
        ("https://us%40er:p%40ss:w0rd@host/v1", "https://***@host/v1"),
        ("https://user:p@ss@host/v1?q=a@b", "https://***@host/v1?q=a@b"),  # an unescaped @ in the password
        ("https://host/v1", "https://host/v1"),
    ],
)
def test_the_credentials_of_a_url_are_masked(url: str, shown: str) -> None:
    assert without_credentials(url) == shown
    assert without_credentials(f"cannot reach {url}: refused") == f"cannot reach {shown}: refused"


def test_the_credentials_are_masked_also_outside_their_url() -> None:
    url = "https://alice:s3cr%2Ft-pw@host.example/v1"
    redact = Redactor(urls=[url])
    basic = base64.b64encode(b"alice:s3cr/t-pw").decode()  # the Authorization header made of them
    encoded = quote("alice:s3cr/t-pw", safe="")
    for shown in ("s3cr%2Ft-pw", "s3cr/t-pw", "alice:s3cr%2Ft-pw", repr("s3cr/t-pw"), encoded):
        assert "s3cr" not in redact(f"auth for {shown} refused"), shown
    assert redact(f"refused: Basic {basic}") == "refused: Basic ***"
    # a user name with a password beside it is no secret (it would blank the word wherever it is)
    assert redact("alice asked") == "alice asked"
    assert set(url_secrets(url)) >= {"alice:s3cr%2Ft-pw", "s3cr%2Ft-pw", "s3cr/t-pw"}
