"""Find each fact's verbatim quote in the source and record where it is (`raw/articles/x.md:L12-L14`).

Matching is on word sequences, not characters: both the source and the quote are cut into words (letters
and digits; each Han or kana character is a word of its own), folded (NFKC, case) and compared as
sequences (`wikic.text.terms.words`). So whitespace and line breaks, case, curly vs straight quotes, dashes,
and Markdown emphasis (`**`, `_`, backticks) never prevent a match, while a changed word, number or name
always does. Markdown link targets are blanked first, so "[OpenAI](https://openai.com) released" matches
"OpenAI released". A quote that elides with "..." matches when its parts occur in order, close together.

Quotes anchor to what the source says, never to what describes it: the YAML frontmatter block and, in a
transcript, the turn header lines (`**speaker** · YYYY-MM-DD HH:MM`) and the lines of tool activity (`(tools:
Bash ×3, Read)`), written by wikic, not said by anyone, are left out of the word sequence quotes are looked up
in. Their words are replaced by a barrier no quote word matches, so line numbers stay those of the file, and a
quote cannot join the end of one turn to the start of the next across a header. A quote that spans a header
and the turn's text is not found, and is not repaired into the turn when it states the header's date or time
(a specific the turn does not say). Names (`contains`) are still looked up in the whole text: a note's subject
may be written only in its frontmatter.

The index is built once per source (one pass over the text); each lookup is a substring search in the
joined word string, so a 1 MB source with hundreds of quotes takes well under a second.

Small models copy quotes almost verbatim ("Vasquez had spent" becomes "She had spent"). A quote that is not
found is snapped to the source sentence(s) it nearly copies, when they share nearly all their words and
the quote states no number, date, version or name the span does not (`wikic/text/specifics.py`): the claim is
then anchored to the real text, and the fact records that it was repaired. Every anchored claim must also
be supported by its quote (`support.unsupported`: its specifics; `support.unquoted`: its content words), and an
item whose name the source never writes is an invention: dropped with its claims, and counted.
"""

from __future__ import annotations

import bisect
import datetime as dt
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from wikic.compile.page import content_words, lead_holder
from wikic.compile.plan import Anchor, Axis, Cell, Comparison, Concept, Entity, Fact, Memory, Plan, Relation, Section
from wikic.ingest.extract.signals import name_signals
from wikic.ingest.found_claims import Sentence, best, clean, closing, rank
from wikic.ingest.narration import narration
from wikic.ingest.session_project import GENERIC_FORMS, session_project, to_project
from wikic.ingest.standing import FOUND_IMPORTANCE, INSTRUCTION, USER, kind_told, opens_a_rule, said_by_user
from wikic.ingest.subjects import names_subject, refile
from wikic.ingest.unstated import apart, unstated_spans
from wikic.text.code_spans import CodeSpans
from wikic.text.name_use import ANOTHER_SUBJECT, NOT_THE_SAME, NameUse
from wikic.text.specifics import specifics
from wikic.text.support import unquoted, unsupported
from wikic.text.terms import words
from wikic.vault import frontmatter
from wikic.vault.formats import remember_note, transcript
from wikic.vault.formats.dates import VIA_TRANSCRIPT, source_date
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import RAW_DIR
from wikic.vault.names import (
    is_about,
    is_acronym_of,
    is_person,
    lookup_keys,
    name_forms,
    name_keys,
    normalize_name,
    same_subject,
)

# Link targets and autolinks are markup, not text a quote would contain.
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)|<https?://[^>\s]*>")
_ELLIPSIS = re.compile(r"\[?(?:\.\s*\.\s*\.|…)\]?")

MIN_WORDS = 2  # a one-word "quote" would anchor almost anywhere and support nothing
MIN_STATEMENT = 3  # words a claim needs to say something: "Show backlinks" is a label, not a claim
MAX_GAP_WORDS = 250  # how far apart the parts of an elided quote may be
REPAIR_SIMILARITY = 0.8  # share of words a near-copy must have in common with the span it is snapped to
COMPLETION_WORDS = 20  # at most this many words added to a claim cut off inside its sentence (`completed`)
_DANGLING = (",", ";", ":", "–", "—", "，", "；", "：", "、")  # what a claim cut off inside its sentence ends with
_CLAUSE_END = (",", ";", "，", "；", "、")  # of those, what ends a clause that reads whole once closed
_WIDE = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]")  # CJK: closed with "。"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|\n\s*\n|\n(?=\s*[-*#>|])")


def quote_words(quote: str) -> list[list[str]]:
    """The quote as word lists, one per part between ellipses."""
    parts = []
    for part in _ELLIPSIS.split(quote):
        found = [word for word, _, _ in words(part)]
        if found:
            parts.append(found)
    return parts


_BARRIER = "\x00"  # stands for a word quotes may not use; `words` never yields it


def not_content(text: str, path: str) -> list[tuple[int, int]]:
    """The character spans of `text` a quote never anchors to, in order: its frontmatter block, what states
    nothing (fenced code, callout titles, comments: `unstated_spans`) and, in a transcript, its turn header
    lines and lines of tool activity."""
    spans = []
    block = frontmatter.split(text)
    if block.yaml_text is not None:
        end = -1
        for _ in range(block.block_lines):
            end = text.find("\n", end + 1)
            if end < 0:
                end = len(text)
                break
        spans.append((0, end))
    body = spans[0][1] if spans else 0
    spans += unstated_spans(text, body)
    if transcript.is_transcript(path, text):
        spans = apart(spans + transcript.header_spans(text))
    return spans


class AnchorIndex:
    """One source text, ready for quote lookups. `text` must be the text of the file at `path`."""

    def __init__(self, text: str, path: str) -> None:
        self.path = path
        blanked = _LINK_TARGET.sub(lambda m: " " * len(m.group()), text)
        folded: list[str] = []
        every: list[str] = []
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._left_out: set[int] = set()  # indices of the words of `not_content` spans
        spans = not_content(text, path)
        at = 0
        for word, start, end in words(blanked):
            while at < len(spans) and spans[at][1] <= start:
                at += 1
            if at < len(spans) and spans[at][0] <= start:
                self._left_out.add(len(folded))
                folded.append(_BARRIER)
            else:
                folded.append(word)
            every.append(word)
            self._starts.append(start)
            self._ends.append(end)
        # " w0 w1 w2 ": a quote matches at word boundaries as " q0 q1 ".
        self._joined = " " + " ".join(folded) + " "
        self._every = " " + " ".join(every) + " " if self._left_out else self._joined
        self._words = folded
        self._text = text
        self._code = CodeSpans(text)
        self._sentence_bounds: list[tuple[int, int]] | None = None
        self._sentence_list: list[Sentence] | None = None
        self._word_pos: list[int] = []
        pos = 0
        for word in folded:
            self._word_pos.append(pos)
            pos += len(word) + 1
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def locate(self, quote: str) -> Anchor | None:
        """The line range of `quote` in the text, or None if it is not there (verbatim, modulo folding)."""
        span = self.span(quote)
        return self._anchor(*span) if span is not None else None

    def span(self, quote: str) -> tuple[int, int] | None:
        """The first and last word of `quote` in the text (its parts in order, for an elided one), or None if it
        is not there."""
        parts = quote_words(quote)
        if sum(len(p) for p in parts) < MIN_WORDS:
            return None
        first, rest = parts[0], parts[1:]
        needle = " " + " ".join(first) + " "
        at = self._joined.find(needle)
        while at != -1:
            start_word = bisect.bisect_left(self._word_pos, at)
            end_word = self._follow(start_word + len(first), rest)
            if end_word is not None:
                return start_word, end_word
            at = self._joined.find(needle, at + 1)
        return None

    def said_at(self, claim: str, quote: str) -> Anchor | None:
        """The lines of `quote` where the source writes `claim` itself, when the claim is a stretch of the
        source holding the quote: a quote the source writes more than once ("in the right sidebar") is then
        the one the claim's own words are at, not its first. None when the claim is no such stretch."""
        parts, said = quote_words(quote), [w for w, _, _ in words(claim)]
        if len(parts) != 1 or len(said) <= len(parts[0]):
            return None
        wanted = parts[0]
        at = next((i for i in range(len(said) - len(wanted) + 1) if said[i : i + len(wanted)] == wanted), None)
        span = self.span(claim) if at is not None else None
        if at is None or span is None or span[1] - span[0] + 1 != len(said):
            return None
        return self._anchor(span[0] + at, span[0] + at + len(wanted) - 1)

    def unglued(self, claim: str, quote: str) -> str | None:
        """The quote, when `claim` is a quote of whole sentences with words glued before or after it that the
        source does not write there ("Quillstore is our team moved its app to Quillstore in 2024."): a small
        model's way of making a sentence its claim. None when the claim is no such thing: a claim that frames
        a fragment ("Quillstore handled ..." for "handled 40,000 writes per second") is the model's to make,
        and the support rule checks it."""
        parts = quote_words(quote)
        span = self.span(quote) if len(parts) == 1 else None
        if span is None or not self._whole_sentences(*span):
            return None
        said, wanted = [w for w, _, _ in words(claim)], parts[0]
        at = next((i for i in range(len(said) - len(wanted) + 1) if said[i : i + len(wanted)] == wanted), None)
        if at is None or len(said) == len(wanted):
            return None
        before, after = said[:at], said[at + len(wanted) :]
        first, last = span
        if self._words[max(0, first - len(before)) : first] == before and \
                self._words[last + 1 : last + 1 + len(after)] == after:
            return None  # the claim is a longer stretch of the source itself
        return self._text[self._starts[first] : closing(self._text, self._ends[last])]

    def completed(self, claim: str, quote: str) -> tuple[Anchor, str] | None:
        """(anchor, the sentences' own text) when `claim` is the source's words visibly cut off inside a sentence
        and `quote` is them: a claim that stops at a comma where the sentence goes on (on the next line of a
        wrapped paragraph: "...on the same load test,"), or one that starts in lower case where a sentence goes
        on ("now with encryption at rest turned on."). The claim is then the whole sentence(s) it was cut from,
        as long as that adds at most COMPLETION_WORDS words. None for a claim of whole sentences, one cut at a
        clause that reads whole ("The drawers live in Chroma." of "..., and ..."), one the model framed in its
        own words, or an elided quote."""
        parts = quote_words(quote)
        said = [w for w, _, _ in words(claim)]
        if len(parts) != 1 or said != parts[0]:
            return None
        cut_end = claim.rstrip().endswith(_DANGLING)
        cut_start = claim.lstrip()[:1].islower()
        if not (cut_end or cut_start):
            return None
        span = self.span(quote)
        if span is None:
            return None
        first, last = span
        bounds = self._sentences()
        start = next((b[0] for b in bounds if b[0] <= first <= b[1]), None)
        end = next((b[1] for b in bounds if b[0] <= last <= b[1]), None)
        if start is None or end is None:
            return None
        hanging_start = cut_start and first > start
        hanging_end = cut_end and last < end
        if not (hanging_start or hanging_end):
            return None  # the cut is where a sentence starts or ends: nothing is left hanging
        if (end - start + 1) - len(said) > COMPLETION_WORDS:
            return None
        return self._anchor(start, end), self._text[self._starts[start] : closing(self._text, self._ends[end])]

    def _whole_sentences(self, first: int, last: int) -> bool:
        bounds = self._sentences()
        return any(b[0] == first for b in bounds) and any(b[1] == last for b in bounds)

    def _follow(self, after: int, rest: list[list[str]]) -> int | None:
        """Index of the last word once every remaining part is found in order, each within the gap limit."""
        last = after - 1
        for part in rest:
            needle = " " + " ".join(part) + " "
            lo = self._word_pos[after] if after < len(self._word_pos) else len(self._joined)
            limit = after + MAX_GAP_WORDS
            hi = self._word_pos[limit] if limit < len(self._word_pos) else len(self._joined)
            at = self._joined.find(needle, lo, hi + len(needle))
            if at == -1:
                return None
            found = bisect.bisect_left(self._word_pos, at)
            after = found + len(part)
            last = after - 1
        return last

    def contains(self, name: str) -> bool:
        """`name` is written in the text (as a run of words: case, hyphens and spacing aside)."""
        found = [word for word, _, _ in words(name)]
        return bool(found) and (" " + " ".join(found) + " ") in self._every

    def repair(self, quote: str) -> tuple[Anchor, str] | None:
        """(anchor, the span's own text) of the sentence(s) `quote` nearly copies, or None when nothing is
        close enough or the quote states a specific the span does not (then it is not a copy, it is a change)."""
        wanted = [w for part in quote_words(quote) for w in part]
        if len(wanted) < MIN_WORDS + 1 or not self._text:
            return None
        best: tuple[float, int, int] | None = None
        for first, last in self._spans(len(wanted)):
            ratio = difflib.SequenceMatcher(None, wanted, self._words[first : last + 1], autojunk=False).ratio()
            if ratio >= REPAIR_SIMILARITY and (best is None or ratio > best[0]):
                best = (ratio, first, last)
        if best is None:
            return None
        _, first, last = best
        span = self._text[self._starts[first] : self._ends[last]]
        said, copied = specifics(quote), specifics(span)
        if said.numbers - copied.numbers or said.words - copied.words:
            return None
        return self._anchor(first, last), span

    def _spans(self, length: int) -> Iterable[tuple[int, int]]:
        """Word ranges of one to three consecutive sentences about as long as a quote of `length` words."""
        bounds = self._sentences()
        for i in range(len(bounds)):
            for j in range(i, min(i + 3, len(bounds))):
                if j > i and bounds[j][0] != bounds[j - 1][1] + 1:
                    break  # words left out lie between: a span never runs across a header
                first, last = bounds[i][0], bounds[j][1]
                size = last - first + 1
                if size > 2 * length + 4:
                    break
                if 2 * size + 4 >= length:
                    yield first, last

    def _sentences(self) -> list[tuple[int, int]]:
        if self._sentence_bounds is None:
            out: list[tuple[int, int]] = []
            start = 0
            for match in _SENTENCE_END.finditer(self._text):
                if self._code.around(match.start()) is not None:
                    continue  # "`a. b`": a full stop in code ends no sentence
                end = bisect.bisect_left(self._starts, match.start())
                if end > start:
                    out.append((start, end - 1))
                start = end
            if start < len(self._words):
                out.append((start, len(self._words) - 1))
            self._sentence_bounds = self._content_runs(out) if self._left_out else out
        return self._sentence_bounds

    def _content_runs(self, bounds: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """`bounds` cut where words are left out: no sentence a quote is repaired to holds a header's or
        the frontmatter's words."""
        out = []
        for first, last in bounds:
            start = first
            for i in range(first, last + 1):
                if i in self._left_out:
                    if i > start:
                        out.append((start, i - 1))
                    start = i + 1
            if start <= last:
                out.append((start, last))
        return out

    def sentences(self) -> list[Sentence]:
        """The source's sentences, in order: not its headings, table rows or left-out spans."""
        if self._sentence_list is None:
            out = []
            for first, last in self._sentences():
                start = self._starts[first]
                prefix = self._text[self._text.rfind("\n", 0, start) + 1 : start].lstrip()
                if prefix.startswith(("#", "|")):
                    continue
                end = self._ends[last]
                code = self._code.around(end)
                end = closing(self._text, code[1] if code is not None else end)  # never inside a code span
                introduces = self._text[end : end + 1] == ":"
                out.append(Sentence(first, last, tuple(self._words[first : last + 1]), self._text[start:end],
                                    introduces))
            self._sentence_list = out
        return self._sentence_list

    def anchor_of(self, sentence: Sentence) -> Anchor:
        return self._anchor(sentence.first, sentence.last)

    def _anchor(self, first_word: int, last_word: int) -> Anchor:
        start_line = bisect.bisect_left(self._newlines, self._starts[first_word]) + 1
        end_line = bisect.bisect_left(self._newlines, self._ends[last_word] - 1) + 1
        return Anchor(self.path, start_line, end_line)


MAX_MISSED = 8  # names found by code per source: the gist of what the model passed over, not a list of it
RECURRING = 2  # a name the model did not propose is a candidate once the source writes it as a name this often


def missed_names(text: str, use: NameUse, known: Sequence[str], *, planned: Iterable[str]) -> list[str]:
    """The names the source writes as names that the model did not propose: the wiki's own (`known`) first,
    then names the source writes as one more than once (a capitalised run of words, "Brightline Sync", or a
    name-like token, "SQLite", "BM25"). Never one `planned` names, in any form."""
    planned = list(planned)
    taken = {k for n in planned for k in name_keys(n)}
    out: list[str] = []
    signals = [n for n in name_signals(text) if use.count(n) >= RECURRING or product_shaped(n)]
    for name in [*known, *signals]:
        keys = name_keys(name)
        if taken & {*keys, *lookup_keys(name)} or use.refusal(name) is not None or not use.count(name):
            continue
        if any(use.states_same(p, name) or use.states_same(name, p) for p in planned):
            continue  # "Chroma (ChromaDB)": another form of a name the model proposed
        words = [w for w in name.split() if w]
        if name not in known and len(words) < 2 and not _name_shaped(name):
            continue  # one capitalised word the model passed over is too often no name at all
        taken.update(keys)
        out.append(name)
        if len(out) >= MAX_MISSED:
            break
    return out


def _opens_with(said: Sequence[str], forms: Sequence[tuple[str, ...]]) -> bool:
    """The sentence's words open with one of the name's `forms` (after an article)."""
    start = 1 if said[:1] and said[0] in ("the", "a", "an") else 0
    return any(tuple(said[start : start + len(form)]) == form for form in forms)


def product_shaped(name: str) -> bool:
    """One word only a name is written as: a capital first, then capitals beside small letters, or small letters
    and digits ("SQLite", "LongMemEval", "Qwen3"); never all capitals ("MTEB", "JSON": an abbreviation anyone
    writes) nor a small first letter ("p0w1", "x86"). Written once, such a name is a candidate: it waits in
    the mentions ledger for a second source, as every name code finds does."""
    if " " in name.strip() or not name[:1].isupper():
        return False
    tail = name.rpartition("-")[2]
    if "-" in name and tail.isalpha() and tail.islower():
        return False  # a name made a word ("OpenAI-compatible", "GPU-accelerated"): the word is what is said
    letters = [ch for ch in name if ch.isalpha()]
    if all(ch.isupper() for ch in letters):
        return False
    mixed = any(ch.isupper() for ch in name[1:]) and any(ch.islower() for ch in letters)
    return mixed or (any(ch.isdigit() for ch in name) and any(ch.islower() for ch in letters))


def _name_shaped(word: str) -> bool:
    """Digits, capitals after the first letter, or all capitals: a name by its shape ("SQLite", "BM25", "HNSW")."""
    return any(ch.isdigit() for ch in word) or any(ch.isupper() for ch in word[1:])


def _one_per_subject(entities: list[Entity]) -> list[Entity]:
    """`entities` with each one the source says is another's ("Quillstore (also called QStore)", proposed as
    Quillstore and as QStore) joined to the first: its facts and names added to that one's."""
    out: list[Entity] = []
    owner: dict[str, int] = {}
    for e in entities:
        keys = [normalize_name(n) for n in (e.name, *e.aliases)]
        at = next((owner[k] for k in keys if k in owner), None)
        if at is None or normalize_name(out[at].name) == keys[0]:  # one name twice: the plan's merge's to join
            owner.update((k, len(out)) for k in keys)
            out.append(e)
            continue
        first = out[at]
        names = tuple(dict.fromkeys(n for n in (*first.aliases, e.name, *e.aliases)
                                    if normalize_name(n) != normalize_name(first.name)))
        known = {(f.text, f.quote) for f in first.facts}
        out[at] = replace(first, aliases=names, summary=first.summary or e.summary,
                          facts=first.facts + tuple(f for f in e.facts if (f.text, f.quote) not in known))
        owner.update((k, at) for k in keys)
    return out


def kept_aliases(name: str, aliases: Iterable[str], use: NameUse, index: AnchorIndex, *, person: bool = False,
                 others: set[str]) -> tuple[tuple[str, ...], list[tuple[str, str, str]]]:
    """(the aliases the code can see name `name`'s subject, (name, alias, reason) for each one refused). An
    alias is kept when it is another form of the name ("ChromaDB", "Chroma DB"), or its acronym the source
    writes, or when the source says they are one ("Chroma (ChromaDB)", "X, also called Y", or it is titled
    `name` and its frontmatter gives it `alias`); never when it is the name of another subject of the same
    plan: the two stay apart."""
    kept: list[str] = []
    refused: list[tuple[str, str, str]] = []
    for alias in dict.fromkeys(a for a in aliases if a.strip()):
        if same_subject(name, alias, person=person) or use.own_alias(name, alias) or \
                (index.contains(alias) and (is_acronym_of(name, alias) or use.states_same(name, alias))):
            kept.append(alias)
        elif normalize_name(alias) in others:
            refused.append((name, alias, ANOTHER_SUBJECT))
        else:
            refused.append((name, alias, NOT_THE_SAME))
    return tuple(kept), refused


def _only_its_title(name: str, text: str, title: str | None) -> bool:
    """`name` is the source's title (`use.title`) and the source writes it nowhere else: a small model proposes
    "The Memory Palace Method and AI Memory" as an entity of that very article."""
    key = _compact(name)
    if not key or title is None or _compact(title) != key:
        return False
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return not any(_compact(line.lstrip("#")) != key and key in _compact(line) for line in lines)


def _compact(name: str) -> str:
    return "".join(word for word, _, _ in words(name))


def anchor_plan(plan: Plan, text: str, known: Sequence[str] = ()) -> Plan:
    """`plan` with every fact's anchor looked up in `text` (the content of `plan.source_path`), near-copied
    quotes repaired, each fact checked for support, and items whose name `text` never writes dropped. `known`:
    the names the wiki already has (its pages' titles, the names waiting in its ledger); one the source writes
    as a name and the model did not propose is added with the source's own sentences about it, as is a name
    the source writes as one more than once (`missed_names`)."""
    index = AnchorIndex(text, plan.source_path)
    turns = transcript.headers(text)
    conversation = plan.source_path.startswith(f"{RAW_DIR}/transcripts/") or bool(turns)
    project = session_project(text) if conversation else None
    if project is not None:  # "the project" of a coding session is the folder it ran in
        plan = to_project(plan, project)
    source = _Anchoring(plan, text, index, turns)
    tally = _Tally()
    use = NameUse.of_source(text, *split_page(text), plan.source_path)
    entities = source.entities(plan, use, tally)
    # each claim on the page of what it is about, before a name left without one gets sentences found for it
    entities, refiled = refile(entities, text, conversation=conversation, turns=[h.line for h in turns],
                               also={project: GENERIC_FORMS} if project is not None else None)
    by_model = [*(n for e in plan.entities for n in (e.name, *e.aliases)), *(c.name for c in plan.concepts),
                *(n for r in plan.relations for n in (r.source, r.target)),
                *(n for c in plan.comparisons for n in (c.name, *c.subjects)), *(m.subject for m in plan.memories)]
    # a conversation's names are its memories' subjects, which the model names: code adds none to it
    missed = [] if conversation else missed_names(text, use, known, planned=[*by_model, *tally.titles])
    entities += [Entity(name, "", (), "", (), found=True) for name in missed]
    entities = [source.with_claims_and_lead(e, tally) for e in entities]
    concepts = source.concepts(plan, use, tally)
    comparisons = tuple(source.comparison(c) for c in plan.comparisons)
    relations = source.relations(plan, tally)
    memories, rules = source.memories(plan)
    return Plan(
        plan.source_path, plan.summary, tuple(entities), tuple(concepts), comparisons, tuple(relations),
        plan.notes, tuple(dict.fromkeys(tally.invented)), tally.invented_claims, tuple(memories), tally.replaced,
        source.found_count, refiled, tuple(dict.fromkeys(tally.titles)), sum(1 for m in rules if m.fact.anchored),
        tuple(dict.fromkeys(tally.no_subject)), tally.refused_claims, tuple(dict.fromkeys(tally.refused_aliases)),
    )


@dataclass
class _Tally:
    """What anchoring a plan leaves out or changes, for the plan's report."""

    invented: list[str] = field(default_factory=list)  # names the source never writes
    invented_claims: int = 0
    titles: list[str] = field(default_factory=list)  # the source's own title: its source page is about it
    # (name, why the source does not use it as a subject's)
    no_subject: list[tuple[str, str]] = field(default_factory=list)
    refused_claims: int = 0
    # (name, alias, why it is not the same subject)
    refused_aliases: list[tuple[str, str, str]] = field(default_factory=list)
    replaced: int = 0  # the model's summaries refused


class _Anchoring:
    """One source's plan being anchored: the source's text and its index, each quote's lookup (once), the
    leads given so far (no two subjects' pages open with one sentence) and the sentences found by code."""

    def __init__(self, plan: Plan, text: str, index: AnchorIndex, turns: list[transcript.TurnHeader]) -> None:
        self.text = text
        self.index = index
        self.turns = turns
        self.conversation = plan.source_path.startswith(f"{RAW_DIR}/transcripts/") or bool(turns)
        self.dated = source_date(text, plan.source_path)
        self.memo: dict[str, tuple[Anchor | None, str]] = {}
        # every name of the plan, as the source may write it: a sentence listing many of them is about none
        self.everyone = [form for e in plan.entities for form in name_forms(e.name, e.aliases)]
        self.everyone += [form for c in plan.concepts for form in name_forms(c.name)]
        self.leads: dict[str, str] = {}  # lead -> whose: no two subjects' pages open with one sentence
        self.found_count = 0

    # -- the plan's items, step by step ---------------------------------------------------------------

    def entities(self, plan: Plan, use: NameUse, tally: _Tally) -> list[Entity]:
        """The plan's entities the source names as subjects, their facts anchored; the others tallied."""
        subjects = {normalize_name(n) for n in [*(e.name for e in plan.entities), *(c.name for c in plan.concepts)]}
        entities = []
        for e in plan.entities:  # a named thing the source never names is the model's invention
            if _only_its_title(e.name, self.text, use.title):
                tally.titles.append(e.name)  # the source itself, which its source page is about
                continue
            # the page named like the source takes the other names the source gives itself
            own = use.aliases if use.titled(e.name) else ()
            others = subjects - {normalize_name(e.name)}
            aliases, dropped_aliases = kept_aliases(e.name, [*e.aliases, *own], use, self.index,
                                                    person=is_person(e.kind), others=others)
            tally.refused_aliases += dropped_aliases
            if not self.real(e.name, aliases):
                tally.invented.append(e.name)
                tally.invented_claims += len(e.facts)
                continue
            # and a word the source does not use as a name is no subject ("Keeping", "The", "Model")
            reason = use.refusal(e.name)
            if reason is not None:
                tally.no_subject.append((e.name, reason))
                tally.refused_claims += len(e.facts)
                continue
            entities.append(Entity(e.name, e.kind, aliases, e.summary, self.facts(e.facts, e.name, *aliases)))
        return _one_per_subject(entities)

    def with_claims_and_lead(self, e: Entity, tally: _Tally) -> Entity:
        """`e` with the source's own sentences about it when none of its claims is anchored, and its lead."""
        checked = _said_once(e.facts, self.index)
        if not any(f.anchored for f in checked):
            checked += self.found(e.name, e.aliases, (f.quote for f in checked), about=e.found)
        lead, more, refused = self.summary(e.summary, checked, e.name, *e.aliases, named=True)
        tally.replaced += refused
        return replace(e, summary=lead, facts=checked + more)

    def concepts(self, plan: Plan, use: NameUse, tally: _Tally) -> list[Concept]:
        """The plan's concepts, their claims anchored. Concepts are ideas the model may name in its own words
        ("vector search"); their claims still need quotes, and a concept the source never names with no claim
        its quote anchors is the model's invention."""
        concepts = []
        for c in plan.concepts:
            sections = tuple(Section(sec.heading, _said_once(self.facts(sec.facts, c.name), self.index))
                             for sec in c.sections)
            claims = tuple(f for sec in sections for f in sec.facts)
            if not any(f.anchored for f in claims):
                sections = _with_claims(sections, self.found(c.name, (), (f.quote for f in claims)))
            lead, more, refused = self.summary(c.summary, tuple(f for sec in sections for f in sec.facts), c.name,
                                               named=True)
            sections = _with_claims(sections, more)
            claims = tuple(f for sec in sections for f in sec.facts)
            concept = Concept(c.name, lead, sections)
            if not self.real(c.name) and not any(f.anchored for f in claims):
                tally.invented.append(c.name)
                tally.invented_claims += sum(len(sec.facts) for sec in concept.sections)
                continue
            reason = use.refusal(c.name, concept=True) if self.real(c.name) else None
            if reason is not None:
                tally.no_subject.append((c.name, reason))
                tally.refused_claims += sum(len(sec.facts) for sec in concept.sections)
                continue
            tally.replaced += refused  # counted for a concept kept: an invented one is dropped whole, and counted so
            concepts.append(concept)
        return concepts

    def comparison(self, c: Comparison) -> Comparison:
        """`c` with each cell's fact anchored. A cell is a label of a few words on its axis ("Local
        experiments"), too short for a share of its words to say anything: its quote must state its specifics."""
        return Comparison(
            c.name,
            c.subjects,
            tuple(
                Axis(a.axis, tuple(Cell(cell.subject, self.fact(cell.fact, (cell.subject, c.name), worded=False))
                                   for cell in a.values))
                for a in c.axes
            ),
        )

    def relations(self, plan: Plan, tally: _Tally) -> list[Relation]:
        """The plan's relations, anchored; a relation of an invented entity goes with it."""
        dropped = {normalize_name(name) for name in tally.invented}
        relations = []
        for r in plan.relations:
            if dropped & {normalize_name(r.source), normalize_name(r.target)}:
                tally.invented_claims += 1
                continue
            # a relation's words are its label ("developed by"), not the source's: its quote must state its specifics
            relations.append(Relation(r.source, r.relation, r.target,
                                      self.fact(r.fact, (r.source, r.target), worded=False)))
        return relations

    def memories(self, plan: Plan) -> tuple[list[Memory], list[Memory]]:
        """(the memories, anchored, with the rules a transcript's user set; those rules alone)."""
        text = self.text
        request = _remember_request(plan.source_path, text)
        proposed = list(plan.memories)
        if request is not None:
            # the caller of `remember` said what this is and whom it is about: the model does not decide that
            proposed = [replace(m, kind=request.kind, subject=request.subject,
                                importance=m.importance if request.importance is None else request.importance)
                        for m in proposed]
        source_day = _source_date(text) if proposed or request else None

        def remembered(m: Memory) -> Memory:
            anchored = self.fact(m.fact, (m.subject,))
            turn = transcript.turn_at(text, anchored.anchor.start_line, self.turns) if anchored.anchor else None
            when = turn.when.date() if turn is not None and turn.when is not None else source_day
            kind = m.kind if request is not None or turn is None else kind_told(m.kind, anchored.quote, turn.speaker)
            return Memory(kind, m.subject, m.importance, anchored, when)

        memories = [remembered(m) for m in proposed]
        rules = ([remembered(m) for m in _rules_set(self.index, text, self.turns, memories)]
                 if request is None and self.turns else [])
        memories += rules
        if request is not None and not any(m.fact.anchored for m in memories):
            content = _remembered_content(request, text)
            if content:  # the model proposed nothing that holds: the note itself says what to remember
                memories.append(remembered(Memory(request.kind, request.subject, 0.5 if request.importance is None
                                                  else request.importance, Fact(" ".join(content.split()), content))))
        return memories, rules

    # -- a fact, a name, a lead -----------------------------------------------------------------------

    def observed(self, anchor: Anchor | None) -> tuple[dt.date | None, str]:
        """When the claim was observed: the source's own date, else the time of its turn (a transcript),
        else unknown here (the compiler then takes the day the source was captured)."""
        if self.dated is not None:
            return self.dated
        turns = self.turns
        turn = transcript.turn_at(self.text, anchor.start_line, turns) if anchor is not None and turns else None
        return (turn.when.date(), VIA_TRANSCRIPT) if turn is not None and turn.when is not None else (None, "")

    def fact(self, f: Fact, subject: Iterable[str], *, worded: bool = True) -> Fact:
        """`f` anchored: its quote located (or repaired), its claim completed or read as the source's reader
        would, checked for support (`worded`: its content words too), and dated."""
        index = self.index
        if f.quote not in self.memo:
            found = index.locate(f.quote)
            self.memo[f.quote] = (found, f.quote) if found else (index.repair(f.quote) or (None, f.quote))
        anchor, quote = self.memo[f.quote]
        said = (index.unglued(f.text, quote) or f.text) if anchor else f.text
        whole = index.completed(said, quote) if anchor else None
        if whole is not None:  # the model copied part of a sentence: the claim is the sentence, in its own words
            anchor, quote = whole
            said = clean(quote)
        else:  # the model's words, read as the source's reader would read them: no half a link
            said = _closed(clean(said))
            anchor = (index.said_at(said, quote) or anchor) if anchor else None
        missing = tuple(unsupported(said, quote, subject_names=subject, source=self.text)) if anchor else ()
        beyond = tuple(unquoted(said, quote, subject_names=subject, source=self.text)) \
            if anchor and worded and not missing else ()
        seen, via = self.observed(anchor)
        return replace(f, text=said, quote=quote, anchor=anchor, repaired=quote != f.quote, missing=missing,
                       unquoted=beyond,
                       extracted=f.extracted or whole is not None, completed=f.completed or whole is not None,
                       seen=seen, via=via, off_subject=f.off_subject or self.talk(anchor, quote))

    def talk(self, anchor: Anchor | None, quote: str) -> bool:
        """A quote of a conversation's talk about the talk ("Understood. Let me check the project."): no claim
        rests on it, whatever the claim says (a small model wrote "The project already uses uv; tests pass."
        on that very quote) (`narration.py`)."""
        if not self.conversation or anchor is None:
            return False
        turn = transcript.turn_at(self.text, anchor.start_line, self.turns)
        return turn is not None and narration(quote, turn.speaker)

    def facts(self, items: Iterable[Fact], *subject: str) -> tuple[Fact, ...]:
        """A page's claims anchored; one of a word or two is a label, no claim (a table's cell may be one)."""
        out = []
        for f in items:
            done = self.fact(f, subject)
            out.append(replace(done, fragment=True) if sum(1 for _ in words(done.text)) < MIN_STATEMENT else done)
        return tuple(out)

    def real(self, name: str, aliases: Iterable[str] = ()) -> bool:
        """The source writes the name, or another form of it ("ChromaDB" for "Chroma")."""
        return any(self.index.contains(" ".join(form)) for form in name_forms(name, aliases))

    def as_fact(self, sentence: Sentence) -> Fact:
        anchor = self.index.anchor_of(sentence)
        seen, via = self.observed(anchor)
        return Fact(clean(sentence.text), sentence.text, anchor=anchor, seen=seen, via=via, extracted=True)

    def found(self, name: str, aliases: Iterable[str], tried: Iterable[str], *,
              about: bool = False) -> tuple[Fact, ...]:
        """The source's own sentences about a name the model could not quote (`found_claims.py`); `about`: only
        those that open with the name or say what it is (for a name the model did not propose at all, a
        sentence that merely writes it is about something else: "It keeps its data in SQLite.")."""
        forms = name_forms(name, aliases)
        ranked = rank(self.index.sentences(), forms, tried=list(tried), others=self.everyone)
        if about:
            ranked = [f for f in ranked if f.defines or _opens_with(f.sentence.words, forms)]
        out = tuple(self.as_fact(f.sentence) for f in best(ranked))
        self.found_count += len(out)
        return out

    def summary(self, said: str, claims: tuple[Fact, ...], name: str, *aliases: str,
                named: bool = False) -> tuple[str, tuple[Fact, ...], bool]:
        """(the item's summary, claims it adds, whether the model's summary was refused). The source's own
        sentence that defines the subject ("X is a …") when there is one, unless `said` is a source sentence
        that does too; else `said` if the anchored quotes of its item state every specific it has (and,
        `named`, it names the subject: an entity's lead says what that entity is) and it is the source's own
        sentence or says what one of the item's anchored claims says; else, for a refused one, the item's first
        anchored claim (naming it, when `named`), or nothing (the page then shows its title). Never the lead
        of an item before it."""
        lead, more, refused = self._summary(said, claims, name, aliases, named)
        whose = normalize_name(name)
        own = name_forms(name, aliases)
        others = [form for form in self.everyone if form not in own]

        def about(sentence: str) -> bool:
            return is_about(sentence, name, aliases)

        def fits(sentence: str) -> bool:
            """A lead of this subject: no other subject's lead, and not a sentence about another one (it
            opens with their name: "Quillstore is … written in Rust" is Quillstore's, not Rust's)."""
            return self.leads.get(sentence, whose) == whose and \
                (about(sentence) or not _opens_with([w for w, _, _ in words(sentence)], others))

        if lead and not fits(lead):  # the next sentence about this one, or none
            lead = next((f.text for f in (*claims, *more) if f.anchored and fits(f.text) and about(f.text)), "")
        if lead:
            self.leads[lead] = whose
        return lead, more, refused

    def _summary(self, said: str, claims: tuple[Fact, ...], name: str, aliases: tuple[str, ...],
                 named: bool) -> tuple[str, tuple[Fact, ...], bool]:
        backed = [f for f in claims if f.anchored]
        said = clean(said)
        ranked = rank(self.index.sentences(), name_forms(name, aliases), others=self.everyone)
        definition = next((f.sentence for f in ranked if f.defines), None)
        quotes = "\n".join(f.quote for f in backed)
        if said.strip() and (not named or names_subject(said, name, aliases)) and \
                not unsupported(said, quotes, subject_names=(name, *aliases), source=self.text) and \
                not unquoted(said, quotes, subject_names=(name, *aliases), source=self.text):
            kept = self._supported_summary(said, backed, definition, name)
            if kept is not None:
                return kept[0], kept[1], False
        refused = bool(said.strip())
        found = self._defined(definition, backed)
        if found is not None:
            return found[0], found[1], refused
        naming = next((f for f in backed if not named or names_subject(f.text, name, aliases)), None)
        return (naming.text if naming is not None and refused else ""), (), refused

    def _supported_summary(self, said: str, backed: list[Fact], definition: Sentence | None,
                           name: str) -> tuple[str, tuple[Fact, ...]] | None:
        """The lead for a summary `said` its item's quotes support, and the claims it adds: the source's own
        sentence, or what one of the item's claims says; None when it is neither (it is refused)."""
        index = self.index
        verbatim = index.locate(said)  # the source's own sentence: cited like any claim (it is the lead)
        whole = index.completed(said, said) if verbatim is not None else None
        if whole is not None:  # part of a sentence (a two-pass summary is its first claim): the sentence
            verbatim, said = whole[0], clean(whole[1])
        if verbatim is not None and definition is not None and clean(definition.text) != said:
            found = self._defined(definition, backed)  # a source sentence, but another says what the subject is
            if found is not None:
                return found
        if verbatim is not None and any(f.anchor == verbatim for f in backed):
            return said, ()
        if verbatim is not None:
            seen, via = self.observed(verbatim)
            return said, (Fact(said, said, anchor=verbatim, seen=seen, via=via, extracted=whole is not None,
                               completed=whole is not None),)
        # In its own words, it must say what one of the item's claims says, whose anchors it then shows:
        # a sentence no quote holds ("X wrote the notes", with no such claim) would stand on the page
        # with none. Where the source says what the subject is, its sentence leads instead.
        if lead_holder(said, [f.text for f in backed], content_words(name)) is not None:
            return self._defined(definition, backed) or (said, ())
        return None

    def _defined(self, definition: Sentence | None, backed: list[Fact]) -> tuple[str, tuple[Fact, ...]] | None:
        """The lead the source's sentence `definition` (what the subject is) gives, and the claim it adds when
        no claim of the item already quotes it."""
        if definition is None:
            return None
        wanted = clean(definition.text)  # a line may hold two sentences: the same line is not the same one
        known = next((f for f in backed if f.anchor == self.index.anchor_of(definition) and clean(f.quote) == wanted),
                     None)
        return (known.text, ()) if known else (wanted, (self.as_fact(definition),))


FOUND_SECTION = "Overview"  # where a concept's found sentences go when the model gave it no section


def _closed(claim: str) -> str:
    """A claim the model cut at a clause of its quote ("The project already uses uv;" of "…uv; tests pass.")
    ends as a sentence: the clause reads whole, and the page shows it as one."""
    text = claim.rstrip()
    if not text.endswith(_CLAUSE_END):
        return claim
    text = text[:-1].rstrip()
    return text + ("。" if text and _WIDE.match(text[-1]) else ".") if text else claim


def _rules_set(index: AnchorIndex, text: str, turns: list[transcript.TurnHeader],
               memories: list[Memory]) -> list[Memory]:
    """The rules the user set in so many words ("From now on use uv, never pip.") that no memory of the
    source quotes: instructions about the user, in their words (`standing.py`)."""
    quoted = [m.fact.anchor for m in memories if m.fact.anchored and m.fact.anchor is not None]
    out = []
    for sentence in index.sentences():
        if not opens_a_rule(sentence.text):  # the few that do, before their turn is looked up
            continue
        anchor = index.anchor_of(sentence)
        turn = transcript.turn_at(text, anchor.start_line, turns)
        if turn is None or not said_by_user(turn.speaker):
            continue
        if any(q.start_line <= anchor.end_line and anchor.start_line <= q.end_line for q in quoted):
            continue
        said = clean(sentence.text)
        out.append(Memory(INSTRUCTION, USER, FOUND_IMPORTANCE, Fact(said, sentence.text, extracted=True)))
    return out


def _quoted(fact: Fact) -> tuple[str, ...]:
    return tuple(w for part in quote_words(fact.quote) for w in part)


def _verbatim(fact: Fact) -> bool:
    """The claim is its quote, word for word."""
    return tuple(w for w, _, _ in words(fact.text)) == _quoted(fact)


def _said_once(facts: tuple[Fact, ...], index: AnchorIndex) -> tuple[Fact, ...]:
    """`facts` without the claims whose quote lies within what another of them states word for word: that one
    says all a claim its quote supports can say. A small model wrote "Quillstore is a local cache on every
    device. Since …" beside its quote stated whole, and made a sentence a claim of its own and part of a
    longer one too: the page said each twice. The longest word-for-word claims are kept (of equal ones, the
    first)."""
    spans = {i: span for i, f in enumerate(facts) if f.anchored and (span := index.span(f.quote)) is not None}
    whole = {i for i in spans if _verbatim(facts[i])}
    kept: list[tuple[int, int]] = []
    said: set[int] = set()
    for i in sorted(whole, key=lambda i: (spans[i][0] - spans[i][1], i)):  # longest first
        first, last = spans[i]
        if any(a <= first and last <= b for a, b in kept):
            said.add(i)
        else:
            kept.append((first, last))
    said.update(i for i in spans if i not in whole and any(a <= spans[i][0] and spans[i][1] <= b for a, b in kept))
    return tuple(f for i, f in enumerate(facts) if i not in said)


def _with_claims(sections: tuple[Section, ...], extra: tuple[Fact, ...]) -> tuple[Section, ...]:
    """`sections` with `extra` claims added to the first (a new one when there is none)."""
    if not extra:
        return sections
    if not sections:
        return (Section(FOUND_SECTION, extra),)
    return (Section(sections[0].heading, sections[0].facts + extra), *sections[1:])


def _remember_request(source_path: str, text: str) -> remember_note.Asked | None:
    """What the caller of `remember` asked for, when the source is one of its notes (in raw/notes/)."""
    if not source_path.startswith(f"{RAW_DIR}/notes/"):
        return None
    return remember_note.asked(split_page(text)[0])


def _remembered_content(request: remember_note.Asked, text: str) -> str:
    """The content a `remember` note's turn holds, after the words that ask for it ('' when not found)."""
    lead = request.turn("")
    at = text.find(lead)
    return text[at + len(lead):].strip() if at >= 0 else ""


_DATE_KEYS = ("started", "date", "captured", "created")


def _source_date(text: str) -> dt.date | None:
    """The day a source says it is from (its frontmatter's `started`, `date`, `captured` or `created`): the
    date of a memory whose turn has no time."""
    data, _ = split_page(text)
    for key in _DATE_KEYS:
        value = (data or {}).get(key)
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value[:10])
            except ValueError:
                continue
    return None
