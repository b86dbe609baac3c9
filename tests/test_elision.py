import re

import pytest

from inspector import analyze, load_trace
from inspector.anchors import extract_anchors
from inspector.config import Config
from inspector.elision import anchor_density, find_elisions
from tests.helpers import REPO, SAMPLES, chain, generations_of, record


def spans(text: str) -> list[tuple[str, bool]]:
    return [(e.text, e.orphaned) for e in find_elisions(text, extract_anchors(text))]


def test_longest_phrase_wins_and_a_key_in_the_sentence_adopts_the_elision():
    assert spans("As noted earlier, the plan holds. See [[k:1]] and the above.") == [
        ("As noted earlier", True),
        ("the above", False),
    ]


def test_etc_with_its_dot_and_related_items():
    assert spans("Retries, timeouts etc. and related items") == [("etc.", True), ("and related items", True)]


def test_words_inside_other_words_do_not_match():
    assert spans("The abovementioned nonearlier etcetera") == []


def test_a_custom_lexicon_replaces_the_default():
    found = find_elisions("per the usual and ditto", [], lexicon=["ditto"])
    assert [(e.text, e.start, e.end) for e in found] == [("ditto", 18, 23)]


@pytest.mark.parametrize(("anchors", "elisions", "expected"), [(9, 1, 0.9), (3, 7, 0.3), (0, 4, 0.0), (0, 0, None)])
def test_anchor_density(anchors, elisions, expected):
    assert anchor_density(anchors, elisions) == expected


SOURCES = [record(f"k:{i}", f"record {i}") for i in range(1, 10)]
DENSE = " ".join(f"[[k:{i}]]" for i in range(1, 10)) + " etc."  # 9 / 10 = 0.9
MIDDLE = " ".join(f"[[k:{i}]]" for i in range(1, 7)) + ". As noted. The above. Earlier. Etc."  # 0.6
SPARSE = "[[k:1]] [[k:2]] [[k:3]]. As noted. The above. Earlier. Etc. And so on. As before. And others."  # 0.3


def test_orphaned_anaphora_fires_per_orphaned_phrase_in_summaries():
    trace = chain(SOURCES, "Plan as noted earlier. Keyed [[k:1]] as noted.")
    assert generations_of(trace, "orphaned-anaphora") == [1]


def test_density_floor_uses_the_configured_floor():
    trace = chain(SOURCES, DENSE, MIDDLE, SPARSE)
    assert generations_of(trace, "anchor-density-floor") == [3]
    assert generations_of(trace, "anchor-density-floor", Config(min_anchor_density=0.7)) == [2, 3]


def test_density_collapse_fires_once_when_density_halves_from_the_first_summary():
    assert generations_of(chain(SOURCES, DENSE, MIDDLE, SPARSE, SPARSE), "anchor-density-collapse") == [3]
    assert generations_of(chain(SOURCES, DENSE, MIDDLE, MIDDLE), "anchor-density-collapse") == []


def test_no_collapse_from_a_first_summary_that_had_no_anchors():
    """0.00 cannot fall: a chain that never printed a key has nothing to collapse from."""
    unkeyed = chain(SOURCES, "Done as noted earlier.", "The above holds, etc.", DENSE, SPARSE)
    assert generations_of(unkeyed, "anchor-density-collapse") == []


def test_offsets_stay_true_when_lower_casing_changes_the_text_length():
    """'İ' lower-cases to two characters; the phrase after it must still be cut from the right place."""
    text = "İstanbul: AS NOTED EARLIER, done. Etc."
    found = find_elisions(text, [])
    assert [(text[e.start : e.end], e.text) for e in found] == [("AS NOTED EARLIER",) * 2, ("Etc.",) * 2]


LINE_BREAKS = REPO / "tests" / "fixtures" / "native" / "line_breaks_in_quoted_text.json"


def test_a_phrase_over_a_line_break_is_quoted_in_its_finding_as_one_line():
    findings = analyze(load_trace(LINE_BREAKS)).findings
    assert [f.message for f in findings if f.rule == "orphaned-anaphora"] == [
        "'as noted above' points back with no key beside it",  # not 'as noted\\nabove'
        "'as before' points back with no key beside it",
    ]


NATIVE_FIXTURES = REPO / "tests" / "fixtures" / "native"


@pytest.mark.parametrize("trace", [*sorted(SAMPLES.glob("*.json")), *sorted(NATIVE_FIXTURES.glob("*.json"))],
                         ids=lambda p: p.name)  # fmt: skip
def test_no_finding_message_holds_a_line_break_tab_or_its_escape(trace):
    for finding in analyze(load_trace(trace)).findings:
        assert not re.search(r"[\n\t\r]|\\[ntr]", finding.message), (finding.rule, finding.message)
