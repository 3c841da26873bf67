"""Ordinary words, which name no subject on their own: the function words of English and Chinese ("the",
"since", "这"), the bare nouns that only say what kind of thing something is ("model", "database", "模型"),
and the most frequent English words (`data/common-en.txt`, about 29,000 of them, from wordfreq).

A word on these lists can still be a name ("Rust", "Go", "Swift", "Obsidian" are frequent English words):
whether a source writes it as one is for `wikic/text/name_use.py` to say. The lists only say what a word is
when nothing else does.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

FUNCTION_WORDS = frozenset(
    """a an the this that these those it its it's they them their theirs there here he she him his her hers we us
    our ours you your yours i me my mine who whom whose which what whatever whichever why how when where whether
    and or but nor so yet if then than because since while though although unless until as once
    of in on at by for with from to into onto over under about above below between among through during before
    after without within across against along around behind beyond toward towards upon via per like unlike near
    is are was were be been being am do does did done doing have has had having can could may might must shall
    should will would not no yes all any both each either neither every few many more most much other others
    some such own same also just only even still again already very too quite rather almost instead
    one two three four five six seven eight nine ten first second third last next
    的 了 是 在 和 与 及 或 而 但 这 那 这个 那个 这些 那些 它 它们 他 她 他们 我们 你 你们 其 该 此 一个 一种 也 都 就
    很 更 最 被 把 从 对 为 以 于 中 上 下 之 并 等""".split()
)

# Nouns that say what kind of thing a subject is, not which one ("a model", "the database"), singular and plural.
KIND_NOUNS = frozenset(
    """model models database databases db tool tools service services store stores system systems library
    libraries framework frameworks app apps application applications plugin plugins api apis server servers
    client clients platform platforms engine engines project projects company companies product products
    language languages method methods algorithm algorithms benchmark benchmarks dataset datasets file files
    folder folders note notes page pages document documents user users team teams paper papers article articles
    format formats version versions feature features setting settings option options command commands
    thing things way ways part parts type types kind kinds data value values number numbers
    kb mb gb tb pb ms ns gib mib kib hz khz mhz ghz
    模型 数据库 工具 服务 系统 库 框架 平台 引擎 项目 公司 产品 语言 方法 算法 数据集 文件 文件夹 文档 笔记 用户 团队
    论文 文章 格式 版本 功能 插件 应用 软件 数据""".split()
)


VERY_COMMON = 5_000  # the most frequent words: a name written in lower case is never one of them ("uv" is 12,334th)


@cache
def _ranked_english() -> dict[str, int]:
    text = files("wikic.text").joinpath("data/common-en.txt").read_text(encoding="utf-8")
    words = (line for line in text.splitlines() if line and not line.startswith("#"))
    return {word: rank for rank, word in enumerate(words)}


def singular(word: str) -> str:
    """A crude English singular, enough for "notes", "aliases", "libraries", "searches" (and not "alias"): a
    word the frequency list knows better than its would-be singular is already one."""
    low = word.casefold()
    if low.endswith("ies") and len(low) > 4:
        one = low[:-3] + "y"
    elif low.endswith(("ses", "xes", "zes", "ches", "shes")) and len(low) > 4:
        one = low[:-2]
    elif low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 3:
        one = low[:-1]
    else:
        return low
    ranks = _ranked_english()
    if low in ranks and ranks.get(one, len(ranks)) > ranks[low]:
        return low
    return one


def function_word(word: str) -> bool:
    return word.casefold() in FUNCTION_WORDS


def kind_noun(word: str) -> bool:
    low = word.casefold()
    return low in KIND_NOUNS or singular(low) in KIND_NOUNS


def common_word(word: str, within: int | None = None) -> bool:
    """`word` (in any case, singular or plural) is a function word, a kind noun or a frequent English word
    (`within`: among that many of the most frequent)."""
    low = word.casefold()
    if function_word(low) or kind_noun(low):
        return True
    ranks = _ranked_english()
    rank = min(ranks.get(low, len(ranks)), ranks.get(singular(low), len(ranks)))
    return rank < (len(ranks) if within is None else within)
