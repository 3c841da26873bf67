"""One module per conversation format: each reads its tool's shape into `transcript.Conversation`s.

`claude_code`, `codex` and `gemini_cli` read an assistant's session (JSON Lines, one entry per line; Gemini
CLI also as one JSON document), `chatgpt` and `claude_ai` one conversation of an account export,
`slack` a workspace export (a folder per channel, a file per day), `chat_log` plain text with `> ` or
`Name:` turns. `wikic.conversations.detect` decides which one a file is, from its content.
"""
