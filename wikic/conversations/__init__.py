"""Conversations as sources: assistant sessions and chat exports, written as transcripts in raw/transcripts/."""
