"""Write `wikic/text/data/common-en.txt`: the most frequent English words, from wordfreq's data.

    pip install wordfreq && python tools/wordlists/build.py

wikic reads the list to tell an ordinary word ("Keeping", "Throughput") from a name ("Quillstore"): a word
on it is a subject only where a source writes it as a name (`wikic/text/common_words.py`). The list is
built once, here, and shipped: wordfreq itself (57 MB) is no dependency of wikic. Its data is licensed
CC BY-SA 4.0, so the file says where it comes from and carries that licence.
"""

from __future__ import annotations

import re
from pathlib import Path

from wordfreq import top_n_list  # type: ignore[import-not-found]

SIZE = 30_000  # deep enough for "throughput" (about 23,000th), shallow enough to leave out most names
OUT = Path(__file__).resolve().parents[2] / "wikic" / "text" / "data" / "common-en.txt"
HEADER = """\
# The {count} most frequent English words of letters only, most frequent first (of the top {size} of
# wordfreq 3.1's English list). Derived from wordfreq's data by Robyn Speer and contributors
# (https://github.com/rspeer/wordfreq), licensed CC BY-SA 4.0
# (https://creativecommons.org/licenses/by-sa/4.0/); this file is shared under the same licence.
# Regenerate with: python tools/wordlists/build.py
"""


def main() -> None:
    words = [w for w in top_n_list("en", SIZE) if re.fullmatch(r"[a-z]+", w)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(HEADER.format(count=len(words), size=SIZE) + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(words)} words")


if __name__ == "__main__":
    main()
