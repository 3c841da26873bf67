"""What an assistant's session adds around the conversation and a reader does not need: tags the tool
injects (`<system-reminder>`, `<command-name>`, hook output...), "Ran 2 Stop hook" lines and the terminal's
"… +12 lines (ctrl+o to expand)" chrome.

Everything here is anchored at the start of a line and applied to one message at a time: a person who
writes about `<system-reminder>` in a sentence keeps their sentence, and an unclosed tag in one message
can never swallow the next.
"""

from __future__ import annotations

import re

_TAGS = (
    "system-reminder", "command-name", "command-message", "command-args", "command-contents",
    "local-command-stdout", "local-command-stderr", "local-command-caveat", "task-notification",
    "user-prompt-submit-hook", "hook_output", "hook-output",
)
# An opening tag at a line start, through its own closing tag at a line end (lazily, within the message).
_BLOCK = re.compile(
    r"^[ \t]*<(?P<tag>" + "|".join(re.escape(t) for t in _TAGS) + r")(?:\s[^>\n]*)?>.*?</(?P=tag)>[ \t]*(?:\n|\Z)",
    re.MULTILINE | re.DOTALL,
)
_HOOK_EVENTS = (
    "Stop|SubagentStop|PreCompact|PostCompact|PreToolUse|PostToolUse|UserPromptSubmit|Notification|"
    "SessionStart|SessionEnd"
)
_LINES = re.compile(
    r"^[ \t]*(?:⎿[ \t]*)?(?:"
    rf"Ran \d+ (?:{_HOOK_EVENTS}) hooks?\b"  # the terminal's hook runs
    rf"|(?:{_HOOK_EVENTS}) hook (?:feedback|error|blocking error|output)\b"
    r"|(?:…|\.\.\.)[ \t]*\+\d+ lines?\b"  # collapsed output
    r"|\(ctrl\+[a-z] to (?:expand|collapse)\)"
    r"|\[Request interrupted by user[^\]\n]*\]"
    r")[^\n]*(?:\n|\Z)",
    re.MULTILINE,
)
_BLANKS = re.compile(r"\n{3,}")


def strip_noise(text: str) -> str:
    """`text` without the tool's injected blocks and terminal chrome (see the module docstring)."""
    text = _BLOCK.sub("", text)
    text = _LINES.sub("", text)
    return _BLANKS.sub("\n\n", text).strip()
