"""The offline token estimate: deterministic, close to a real BPE tokenizer on prose, sane on CJK."""

from __future__ import annotations

from wikic.text.tokens import estimate_messages, estimate_tokens

# Calibration sample; SmolLM2-135M's BPE tokenizer (49k vocabulary) counts 1,591 tokens for it.
PROSE = (
    "The quick brown fox jumps over the lazy dog. Retrieval-augmented generation combines a search index with a "
    "language model, so that answers cite the documents they were drawn from. In 2017, researchers at Google "
    "published the Transformer architecture. "
) * 30
PROSE_REAL_TOKENS = 1591


def test_close_to_a_real_tokenizer_on_english_prose():
    estimate = estimate_tokens(PROSE)
    assert abs(estimate - PROSE_REAL_TOKENS) / PROSE_REAL_TOKENS < 0.10
    assert estimate >= PROSE_REAL_TOKENS * 0.98  # errs high rather than low for budgets


def test_additive_over_paragraphs():
    """A source's estimate is the sum of its paragraphs' (cut after the blank line), so chunk budgets add up."""
    paragraphs = ["First paragraph here, about 2017.\n\n", "Second one, with punctuation!\n\n", "中文段落，也算。\n"]
    whole = "".join(paragraphs)
    assert estimate_tokens(whole) == sum(estimate_tokens(p) for p in paragraphs)
    assert estimate_tokens(whole) > max(estimate_tokens(p) for p in paragraphs)
    assert estimate_tokens("") == 0
    assert estimate_tokens("a b c") == 3
    assert estimate_tokens("internationalization") > estimate_tokens("nation")


def test_cjk_counts_per_character():
    chinese = "中央银行宣布加息以应对通货膨胀" * 10  # 150 characters, no spaces
    assert 150 <= estimate_tokens(chinese) <= 2 * 150
    assert estimate_tokens("猫") >= 1


def test_messages_add_framing():
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert estimate_messages(messages) == estimate_tokens("be brief") + estimate_tokens("hi") + 2 * 4 + 2
