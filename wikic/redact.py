"""Secrets out of what is shown: an API key, and the credentials in an endpoint's URL, in every form an
error message or a traceback may carry them.

A library rarely prints a secret as it is: `repr` and JSON escape it (a line break becomes `\\n`, a quote
`\\'`), an HTTP library refusing a header prints it as a bytes repr (`b'Bearer sk-...'`), a URL holds it
percent-encoded. `Redactor` replaces each of these forms with `***`, and in any URL of the text the user
info (`https://user:pass@host` becomes `https://***@host`) and the value of every query parameter that
carries a secret (`?api-key=...`, `&token=...`, `&sig=...` become `?api-key=***`...), whatever they hold.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

MASK = "***"

# `scheme://userinfo@`: up to the last `@` before the host's end (a password may hold an unescaped `@`).
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^\s/?#'\"<>\\]+@")
# `?name=value` or `&name=value`: a query parameter, whose value is masked when its name says it is a secret.
_PARAMETER = re.compile(r"([?&;]([A-Za-z0-9_.~%-]+)=)([^&#;\s'\"<>\\]*)")
# Words of a parameter's name (split at `-`, `_`, `.`, lowercased) that mark it secret; a word ending in
# "key", "token" or "secret" does too (`apikey`, `accessToken`, `client_secret`, `X-Amz-Security-Token`).
_SECRET_WORDS = frozenset({
    "sig", "signature", "password", "passwd", "pass", "pwd", "auth", "authorization", "credential",
    "credentials", "jwt", "session", "sessionid", "sid", "code",
})
_SECRET_ENDINGS = ("key", "token", "secret")
# The parts of a URL's user info shorter than this are found inside URLs only: on their own (a one-letter
# user name) they would blank ordinary words of the message.
_SHORTEST_PART = 4


def secret_parameter(name: str) -> bool:
    """Whether a URL query parameter of this name carries a secret (`api-key`, `token`, `sig`...)."""
    words = [w for w in re.split(r"[-_.]+", unquote(name).lower()) if w]
    return any(w in _SECRET_WORDS or w.endswith(_SECRET_ENDINGS) for w in words)


def without_credentials(text: str) -> str:
    """`text` with the user info of every URL in it (`user:pass@`) replaced by `***@`, and the value of every
    query parameter that carries a secret (`?api-key=...`) by `***`."""
    if "@" in text:
        text = _USERINFO.sub(rf"\1{MASK}@", text)
    if "=" in text:
        text = _PARAMETER.sub(
            lambda m: m.group(1) + MASK if m.group(3) and secret_parameter(m.group(2)) else m.group(0), text
        )
    return text


def forms(secret: str) -> set[str]:
    """`secret` as an error message could show it: as is, escaped (repr, JSON, a bytes repr, each escaped
    once more when the message itself is quoted) and percent-encoded."""
    shown = {
        secret,
        repr(secret)[1:-1],
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret.encode("utf-8", "backslashreplace"))[2:-1],
    }
    shown |= {repr(s)[1:-1] for s in shown} | {json.dumps(s)[1:-1] for s in shown}
    shown |= {quote(secret, safe=""), quote(secret), quote_plus(secret)}
    return {s for s in shown if s}


def url_secrets(url: str) -> list[str]:
    """What is secret in `url`: its whole user info (as written, decoded, and base64-encoded as the Basic
    `Authorization` header an HTTP library makes of it), and the password, or the user name when there is
    no password (a token in the user name); and the value of each query parameter that carries a secret."""
    try:
        split = urlsplit(url)
    except ValueError:  # not a URL (an unclosed `[`): what it holds is masked where it is shown as a URL
        return []
    parts: list[str] = []
    for m in _PARAMETER.finditer("?" + split.query):
        if m.group(3) and secret_parameter(m.group(2)):
            parts += [m.group(3), unquote(m.group(3)), unquote_plus(m.group(3))]
    userinfo = split.netloc.rpartition("@")[0] if "@" in split.netloc else ""
    if userinfo:
        user, colon, password = userinfo.partition(":")
        basic = f"{unquote(user)}:{unquote(password)}"
        parts += [userinfo, unquote(userinfo), *((password, unquote(password)) if colon else (user, unquote(user)))]
        parts += [base64.b64encode(basic.encode(codec, "replace")).decode() for codec in ("utf-8", "latin-1")]
    return [p for p in dict.fromkeys(parts) if len(p) >= _SHORTEST_PART or (p and p == userinfo)]


class Redactor:
    """Replaces every form of the given secrets, and of the credentials of the given URLs, with `***`, and
    the user info of any URL in the text."""

    def __init__(self, secrets: Iterable[str | None] = (), *, urls: Iterable[str | None] = ()) -> None:
        pieces: set[str] = set()
        for secret in secrets:
            if secret:
                pieces |= forms(secret)
        for url in urls:
            for secret in url_secrets(url or ""):
                pieces |= forms(secret)
        # longest first: a form that holds another is replaced whole
        ordered = sorted(pieces, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(MASK, text)
        return without_credentials(text)
