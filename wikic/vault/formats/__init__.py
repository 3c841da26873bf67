"""The formats wikic writes inside files and reads back, each in one module: claim anchors, the markers of
compiler blocks, claim lines and their bookkeeping, partial dates, memory items, the transcript format of a
conversation, and the note `remember` captures."""
