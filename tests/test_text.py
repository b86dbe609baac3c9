"""Text primitives read lower-cased text for speed; what they find must not change."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.completeness import CLAIM, find_claims
from inspector.literals import Literals
from inspector.text import WORD, content_terms, quoted, quoted_name, words

PIECES = ["Never", "RUN", "it's", "v1.2", "a.b.", "'quoted'", "_x_", "--flag", "src/a.py.", "İstanbul", "K", "ß",
          " ", "\n", ".", "100 %", "Fully Preserved", "ALL items ARE complete", "nothing was lost", "Comprehensively",
          "é"]  # fmt: skip
text = st.lists(st.sampled_from(PIECES), max_size=30).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text)
def test_words_are_the_lower_cased_words_of_the_text(sample):
    assert words(sample) == [w.lower() for w in WORD.findall(sample)]


@settings(max_examples=300, deadline=None)
@given(text)
def test_claims_match_case_insensitively_at_their_true_offsets(sample):
    reference = re.compile(CLAIM.pattern, re.IGNORECASE)
    expected = [(m.group(0), m.start(), m.end()) for m in reference.finditer(sample)]
    assert [(c.text, c.start, c.end) for c in find_claims(sample)] == expected
    assert all(sample[c.start : c.end] == c.text for c in find_claims(sample))


def test_a_claim_after_a_character_that_lower_cases_to_two_is_cut_from_the_right_place():
    sample = "İ: Everything IS PRESERVED."
    assert [c.text for c in find_claims(sample)] == ["Everything IS PRESERVED"]


def test_a_literal_scan_answers_as_a_search_of_the_lower_cased_text_would():
    """`Literals.any_in` stands in for `any(l in text.lower() for l in literals)` on ASCII text, and leaves other
    text to the caller (None): there Hyperscan's ASCII case folding is not Python's."""
    markers = Literals(("free(): ", "segmentation fault", "[request interrupted"))
    texts = ["", "all good", "Segmentation Fault (core dumped)", "x FREE(): y", "free()",
             "[Request interrupted by user]", "segmentation faul", "Segmentation fault\u00e9"]  # fmt: skip
    got = [markers.any_in(text) for text in texts]
    assert got == [False, False, True, True, False, True, False, None]
    assert [any(m in t.lower() for m in markers.literals) for t in texts[:-1]] == got[:-1]
    with pytest.raises(ValueError):
        Literals(("Upper",))


def test_a_message_quotes_trace_text_on_one_line_without_escapes():
    """Python's repr, which some rules quoted with, wrote a summary's line break as a literal backslash-n."""
    assert quoted("as noted\nabove,\tthen") == "“as noted above, then”"
    assert quoted("it's   done", 5) == "“it's…”"
    assert quoted_name("as noted\r\nabove") == "'as noted above'"
    assert quoted_name("C:\\temp") == "'C:\\temp'"  # one backslash, as written; repr doubled it
    for ordinary in ("etc.", "src/checkout.py", "ledger:1.2", "500"):  # the same message, so the same finding id
        assert quoted_name(ordinary) == repr(ordinary)


def test_a_contraction_is_its_words_not_a_term_of_its_own() -> None:
    """flutterdocker_aba9151e (outside set): "don't" and "can't" were topic terms, so '"mode: full" is settled
    already, don't look into modes anymore' needed a summary to say "don't" to be kept."""
    assert content_terms("don't look into modes, we can't, that's settled, we'll see") == content_terms(
        "do not look into modes, we can not, that is settled, we will see")
    assert "don't" not in content_terms("don't") and "that" not in content_terms("that's")
