"""Which built-in embedder for the palace? A small Chinese + English probe, with numbers.

Twelve topics, each as an English passage, its Chinese translation, and a question in each language whose
wording differs from the passage. For each model: top-1 accuracy of question -> passage within and across
languages (the passage pool holds all 24 passages), the mean cosine of matching vs non-matching pairs,
speed on 100-word passages, and whether long input is truncated.

Example:
    OMP_NUM_THREADS=1 .venv/bin/python bench/palace_embedders.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from wikic.embed import StaticEmbedder, USEEmbedder  # noqa: E402

# (English passage, Chinese passage, English question, Chinese question)
TOPICS = [
    ("PostgreSQL is the relational database we chose for transactions.",
     "我们选择PostgreSQL作为支持事务的关系型数据库。",
     "Which SQL database did the team pick?", "团队选了哪个数据库？"),
    ("The central bank raised interest rates to fight inflation.", "央行提高利率以对抗通货膨胀。",
     "Why did borrowing costs go up?", "为什么贷款利息变高了？"),
    ("Cats sleep for most of the day.", "猫一天中大部分时间都在睡觉。",
     "How long do cats nap?", "猫每天睡多久？"),
    ("We hiked to the summit and my knees hurt on the way down.", "我们爬到山顶，下山时膝盖很疼。",
     "What happened on the mountain trip?", "爬山的时候发生了什么？"),
    ("Green tea should be brewed with water that is not boiling.", "绿茶应该用不太烫的水冲泡。",
     "How should I make green tea?", "怎么泡绿茶？"),
    ("Electric cars run on batteries and produce no exhaust.", "电动汽车靠电池驱动，没有尾气排放。",
     "Do battery vehicles pollute?", "电动车有污染吗？"),
    ("The football match was cancelled because of heavy rain.", "因为大雨，足球比赛被取消了。",
     "Why was the game called off?", "比赛为什么取消？"),
    ("She is learning to play the violin every evening.", "她每天晚上都在学拉小提琴。",
     "What instrument is she practising?", "她在练什么乐器？"),
    ("The hospital opened a new emergency department.", "医院新开了一个急诊科。",
     "What did the clinic add?", "医院增加了什么科室？"),
    ("Our flight to Tokyo was delayed by three hours.", "我们飞往东京的航班延误了三个小时。",
     "How late was the plane to Japan?", "去日本的飞机晚了多久？"),
    ("He cooked noodles with beef and vegetables for dinner.", "他晚饭做了牛肉蔬菜面条。",
     "What did he make to eat tonight?", "他晚上吃了什么？"),
    ("The company laid off two hundred workers last month.", "这家公司上个月裁掉了两百名员工。",
     "How many people lost their jobs?", "公司裁员多少人？"),
]


def probe(model) -> dict:
    en = [t[0] for t in TOPICS]
    zh = [t[1] for t in TOPICS]
    q_en = [t[2] for t in TOPICS]
    q_zh = [t[3] for t in TOPICS]
    passages = model.embed(en + zh)
    n = len(TOPICS)

    def top1(questions: list[str], pool: slice | None = None) -> float:
        q = model.embed(questions)
        sims = q @ passages.T
        hits = 0
        for i, row in enumerate(sims):
            cols = range(2 * n) if pool is None else range(pool.start, pool.stop)
            best = max(cols, key=lambda c: row[c])
            hits += best % n == i
        return round(hits / n, 3)

    cross = passages[:n] @ passages[n:].T
    match = float(np.mean(np.diag(cross)))
    nonmatch = float((cross.sum() - np.trace(cross)) / (n * n - n))
    long_a = "Cats sleep for most of the day. " + "The weather report said it would be cloudy. " * 120
    va, vb = model.embed([long_a, long_a + " 央行提高利率以对抗通货膨胀。" * 50])
    texts = [" ".join(["retrieval augmented generation combines search with a language model"] * 10)] * 200
    model.embed(texts[:2])
    t0 = time.perf_counter()
    model.embed(texts)
    speed = 200 / (time.perf_counter() - t0)
    return {
        "model": f"{model.provider}:{model.model} ({model.dim}-d)",
        "q_en->passage_en": top1(q_en, slice(0, n)),
        "q_zh->passage_zh": top1(q_zh, slice(n, 2 * n)),
        "q_en->passage_zh": top1(q_en, slice(n, 2 * n)),
        "q_zh->passage_en": top1(q_zh, slice(0, n)),
        "q_any->mixed_pool": round((top1(q_en) + top1(q_zh)) / 2, 3),
        "translation_cos_match": round(match, 3),
        "translation_cos_nonmatch": round(nonmatch, 3),
        "ignores_text_past_window": bool(float(va @ vb) > 0.9999),
        "passages_per_s_100_words": round(speed, 1),
    }


def main() -> None:
    results = [probe(USEEmbedder()), probe(StaticEmbedder())]
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
