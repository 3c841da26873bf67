"""The verdicts `wikic eval --judge` kept in `.wikic/judged.json`, summed up for the report (`judge.py` makes
them): read by every `wikic eval`, so this module needs nothing of the model's side.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from wikic.compile.judge import UNJUDGED
from wikic.evaluation.report import JudgeSummary
from wikic.vault.state import JUDGE_CALIBRATION, JUDGED, read_json, state_dir


def saved_summary(root: Path) -> JudgeSummary | None:
    """The last verdicts kept in `.wikic/judged.json`, summed up (None: never judged)."""
    data = read_json(state_dir(root) / JUDGED)
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), list):
        return None
    rows = [r for r in data["verdicts"] if isinstance(r, dict)]
    counts = Counter(str(r.get("verdict")) for r in rows)
    pages: dict[str, dict[str, int]] = {}
    for r in rows:
        by_page = pages.setdefault(str(r.get("page")), {})
        by_page[str(r.get("verdict"))] = by_page.get(str(r.get("verdict")), 0) + 1
    judged = sum(n for verdict, n in counts.items() if verdict != UNJUDGED)
    model = str(data.get("model") or "")
    calibration = read_json(state_dir(root) / JUDGE_CALIBRATION)
    accuracy = calibration.get("accuracy") if isinstance(calibration, dict) and \
        calibration.get("model") == model else None
    return JudgeSummary(model, judged, dict(sorted(counts.items())),
                        support_rate=counts["supported"] / judged if judged else None,
                        interval=wilson(counts["supported"], judged) if judged else None,
                        calibration=accuracy if isinstance(accuracy, float) else None, pages=pages)


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share `successes` / `n` (z for 95 %); (0, 1) for no trial."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
