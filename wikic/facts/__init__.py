"""Facts over time: dated claims on pages, their timelines, and answers as of a date."""
