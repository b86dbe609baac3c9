"""Keys printed in a transcript resolve on demand exactly as if every turn had been mined up front."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.anchors import AnchorIndex, AnchorStatus, extract_anchors
from inspector.mentions import BATCH_CHARS, Mentions
from inspector.model import SourceRecord
from inspector.places import RecordPlaces

PIECES = [
    "src/a.py", "/home/u/src/a.py", "a.py", "lib/src/a.py", "x/y/z", "and/or", "http://h.io/a.py", "https://h.io/",
    "[[ledger:3.2]]", "[[src/a.py]]", "ledger:3.2", "3f9c2ab", "3f9c2abd", "deadbeef1", "PAY-112", "PAY-1123",
    "config.yaml", "deploy/config.yaml", "~/notes.md", "./run.sh", "../up/run.sh", "v1.2.3", "file:src/a.py",
    "(", ")", ".", ",", ";", ":", "/", "-", "_", "é", "word", "the",
]  # fmt: skip
SPACES = [" ", "\n", "\t", "\u00a0", "\u2003", "\x1c", "\x85", ""]
text = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SPACES)), max_size=14).map(
    lambda parts: "".join(piece + space for piece, space in parts)
)
DURABLE = [SourceRecord("/srv/app/src/a.py", "read it", namespace="file"), SourceRecord("u1", "hi", "transcript")]


def both(turns: list[str]) -> tuple[AnchorIndex, AnchorIndex]:
    """The lazy index and the index over every mention extracted eagerly (the old reader's records)."""
    mentions = Mentions(turns)
    return AnchorIndex(DURABLE, mentions), AnchorIndex([*DURABLE, *Mentions(turns).records()])


@settings(max_examples=300, deadline=None)
@given(st.lists(text, min_size=1, max_size=5), text)
def test_lazy_resolution_equals_eager_extraction(turns, summary):
    lazy, eager = both(turns)
    keys = [a.key for a in extract_anchors(summary)] + ["a.py", "src/a.py", "file:src/a.py", "ledger:3.2"]
    lazy.prepare(keys)
    for key in keys:
        assert lazy.referents(key) == eager.referents(key), key


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(text, st.integers(0, 3)), min_size=1, max_size=6), text)
def test_resolution_at_a_cut_equals_an_index_of_only_the_records_before_it(turns, summary):
    """Each turn is first covered by some state (places rise with the log); at cut k the index answers as one
    built from the durable records and the turns placed at k or before, and nothing else: as if the log
    ended there (folders included), and binding to what eager extraction of those turns binds to."""
    places = sorted(place for _, place in turns)
    texts = [t for t, _ in turns]
    keys = [f"t{i}" for i in range(len(texts))]
    first_cover = {**dict(zip(keys, places, strict=True)), **{r.key: 0 for r in DURABLE}}
    lazy = AnchorIndex(DURABLE, Mentions(texts, (), keys), RecordPlaces(first_cover, session_log=True))
    anchors = extract_anchors(summary) + extract_anchors("a.py src/a.py [[file:src/a.py]] /home/u/src /srv/app")
    lazy.prepare(a.key for a in anchors)
    for cut in range(4):
        before = [t for t, place in zip(texts, places, strict=True) if place <= cut]
        ended, eager = AnchorIndex(DURABLE, Mentions(before)), AnchorIndex([*DURABLE, *Mentions(before).records()])
        for anchor in anchors:
            assert lazy.resolve(anchor, cut) == ended.resolve(anchor), (anchor.key, cut)
            assert lazy.referents(anchor.key, cut) == eager.referents(anchor.key), (anchor.key, cut)


def test_a_mention_is_placed_by_the_first_turn_that_prints_it():
    mentions = Mentions(["nothing here", "see src/a.py,", "then (src/a.py) again"], (), ["t0", "t1", "t2"])
    assert mentions.containing(["a.py"]) == {"a.py": {("file", "src/a.py"): 1}}
    assert mentions.key_at(1) == "t1"


def test_a_mention_past_the_first_batch_is_placed_by_its_own_turn():
    """Texts are searched in batches of bytes: a later batch's turns, after a non-ASCII one, keep their places."""
    mentions = Mentions(["x " * (BATCH_CHARS // 2), "é" * 10 + " src/b.py", "see src/a.py,"], (), ["t0", "t1", "t2"])
    assert mentions.containing(["a.py", "b.py"]) == {
        "a.py": {("file", "src/a.py"): 2}, "b.py": {("file", "src/b.py"): 1}}  # fmt: skip


def test_a_printed_path_resolves_and_two_places_are_ambiguous():
    lazy, _ = both(["I read deploy/config.yaml and then ops/config.yaml.", "commit 3f9c2ab landed"])
    status = {a.anchor.key: a.status for a in map(lazy.resolve, extract_anchors("config.yaml; 3f9c2ab; b.py"))}
    assert status == {"config.yaml": AnchorStatus.AMBIGUOUS, "3f9c2ab": AnchorStatus.RESOLVED,
                      "b.py": AnchorStatus.UNRESOLVED}  # fmt: skip


def test_a_key_inside_a_longer_word_is_not_a_mention():
    lazy, _ = both(["see lib/a.pyc and PAY-1123"])
    assert lazy.referents("lib/a.py") == set() and lazy.referents("PAY-112") == set()
    assert lazy.referents("lib/a.pyc") == {"file:lib/a.pyc"}


def test_a_lone_surrogate_in_a_turn_does_not_stop_the_search():
    lazy, _ = both(["broken \ud800 text, then deploy/config.yaml"])
    assert lazy.referents("config.yaml") == {"file:deploy/config.yaml"}
