"""Counting and cutting text: the token estimate, the East Asian script ranges, search and anchoring terms,
and the text of HTML and PDF files. Pure functions over strings and bytes; nothing here reads a vault or
imports anything of wikic above `wikic.errors`."""
