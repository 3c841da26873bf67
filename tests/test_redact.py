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


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://host/v1?api-key=SECRET-1", "https://host/v1?api-key=***"),
        ("https://host/v1?api-version=2024-02&key=SECRET-2", "https://host/v1?api-version=2024-02&key=***"),
        ("https://host/v1?token=SECRET-3#frag", "https://host/v1?token=***#frag"),
        ("https://host/v1?access_token=SECRET-4&x=1", "https://host/v1?access_token=***&x=1"),
        ("https://h.blob.example/c?sv=2022&sig=SECRET%2B5", "https://h.blob.example/c?sv=2022&sig=***"),
        ("https://host/v1?apiKey=SECRET-6", "https://host/v1?apiKey=***"),
        ("https://host/v1?X-Amz-Security-Token=SECRET-7", "https://host/v1?X-Amz-Security-Token=***"),
        ("https://host/v1?client_secret=SECRET-8", "https://host/v1?client_secret=***"),
        ("https://u:pw-SECRET-9@host/v1?key=SECRET-9", "https://***@host/v1?key=***"),
        ("https://host/v1?model=m&page=2", "https://host/v1?model=m&page=2"),  # nothing secret: left alone
    ],
)
def test_query_parameters_that_carry_a_secret_are_masked(url: str, shown: str) -> None:
    assert without_credentials(url) == shown
    assert without_credentials(f"cannot reach {url!r}: refused") == f"cannot reach {shown!r}: refused"
    # and wherever the value shows on its own, decoded or escaped, when the URL is known
    redact = Redactor(urls=[url])
    for secret in {s for s in url_secrets(url) if "SECRET" in s}:
        assert "SECRET" not in redact(f"refused {secret} and {secret!r} and {json.dumps(secret)}"), secret
    if "SECRET" in url:
        assert any("SECRET" in s for s in url_secrets(url))
    assert "SECRET" not in redact(f"GET {url} failed")


def test_a_secret_parameter_is_masked_also_decoded_outside_its_url() -> None:
    redact = Redactor(urls=["https://h.blob.example/c?sv=2022&sig=s3cret%2Bsig%3D"])
    assert redact("signature s3cret+sig= refused") == "signature *** refused"
    assert redact("signature 's3cret%2Bsig%3D' refused") == "signature '***' refused"


def test_a_url_that_does_not_parse_has_no_secrets_to_list_but_is_still_masked_where_shown() -> None:
    url = "http://[::1:9/v1?api-key=SECRET-10"
    assert url_secrets(url) == []
    assert "SECRET" not in Redactor(urls=[url])(f"bad URL {url}")
