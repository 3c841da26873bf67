"""The one way the command line prints: every line for a person, every JSON document, every notice and error
goes through `say` or `say_json` (a test holds every command to it), so text from a vault, a source, a model
or an argument never reaches the terminal with a control character in it: an escape sequence in a file name
(OSC 52 sets the clipboard, OSC 0 the window title) shows as `\\x1b]52;...` instead of acting (`printable`).
JSON keeps its meaning: what it would hold raw is escaped the JSON way (`printable_json`).

Only the standard library: `wikic capture` prints through it without Typer.
"""

from __future__ import annotations

import json
import re
import sys
import traceback
from typing import Any

# What must not reach a terminal as it is: C0 controls but the tab and line feed (ESC starts colour codes,
# OSC 52 sets the clipboard, OSC 0 the window title), DEL and the C1 controls (U+009B is a CSI of its own),
# lone surrogates (which no terminal encoding carries), and the bidirectional overrides and isolates that
# show text in another order than it is read ("Trojan source").
_UNSHOWABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
# ...and what JSON text holds as it is: the same but the C0 controls, which json.dumps escapes itself
_UNSHOWABLE_IN_JSON = re.compile(r"[\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` as it is safe to show a person on a terminal: every control character but the tab and line
    feed written out visibly (ESC as `\\x1b`, an override as `\\u202e`), a Windows line break a line feed
    and a lone carriage return `\\x0d`; nothing taken away, so what was hidden in a name or an answer shows."""
    if text.isascii() and text.isprintable():
        return text  # most lines: nothing to look for
    return _UNSHOWABLE.sub(_escaped, text.replace("\r\n", "\n"))


def printable_json(text: str) -> str:
    """JSON text (as json.dumps writes it with ensure_ascii=False) with what `printable` escapes escaped the
    JSON way (`\\u009b`): the same value for a program, nothing a terminal acts on."""
    if text.isascii():
        return text  # json.dumps escapes every ASCII control
    return _UNSHOWABLE_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def say(text: str = "", *, err: bool = False, nl: bool = True, as_json: bool = False) -> None:
    """`text` for a person, on stdout (`err`: stderr), followed by a line break unless `nl` is False;
    `as_json`: `text` is a JSON document (a SARIF report), escaped as JSON."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no console at all (pythonw): nothing to show it on
        return
    stream.write((printable_json(text) if as_json else printable(text)) + ("\n" if nl else ""))
    stream.flush()


def say_json(value: Any, **dumps: Any) -> None:
    """`value` as one JSON document on stdout (`dumps`: json.dumps' options, such as `default=str`; UTF-8
    unless `ensure_ascii=True`)."""
    dumps.setdefault("ensure_ascii", False)
    say(json.dumps(value, **dumps), as_json=True)


def say_on(console: Any, text: str) -> None:
    """`text` as a line on a Rich console that is drawing progress bars (above them, not through them)."""
    console.print(printable(text), highlight=False, markup=False)


def say_traceback(exc: BaseException) -> None:
    """The traceback of `exc` on stderr (WIKIC_DEBUG): file names and messages in it are shown, not run."""
    say("".join(traceback.format_exception(exc)), err=True, nl=False)


def stdout_to_nowhere() -> None:
    """After a closed pipe (`wikic lint | head`), what is left in stdout's buffer goes nowhere: flushed at exit
    into the pipe, it would raise again."""
    import os

    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, sys.stdout.fileno())
    os.close(nowhere)
