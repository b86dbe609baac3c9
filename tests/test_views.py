import pytest

from inspector import analyze, load_trace
from inspector.library import TraceRef, TraceRefError, confined, resolve, store_upload
from inspector.views import find_finding, finding_rows, generation_rows, lineage, manifest_diff, survival_by_kind
from tests.helpers import SAMPLES


@pytest.fixture(scope="module")
def five():
    return analyze(load_trace(SAMPLES / "five_item_synthetic.json"))


def test_generation_rows_carry_what_the_chain_node_shows(five):
    rows = generation_rows(five)
    assert [r["label"] for r in rows] == ["S0", "S1", "S2", "S3", "S4", "S5"]
    assert rows[5]["invariants_lost"] == 1 and rows[5]["max_depth"] == 5
    assert rows[4]["source_fidelity"] == pytest.approx(0.75)


def test_survival_counts_cover_every_invariant_every_generation(five):
    rows = survival_by_kind(five)
    assert sum(r["count"] for r in rows if r["generation"] == 3) == len(five.facts.invariants)


def test_manifest_diff_names_the_change(five):
    changes = {c.invariant_id: c.change for c in manifest_diff(five, 5)}
    assert changes["counterexample:src:counterexample-dedupe"] == "lost"
    assert changes["correction:src:correction-batch"] == "changed"
    assert {c.change for c in manifest_diff(five, 1)} == {"kept"}


def test_lineage_marks_the_first_break(five):
    track = next(t for t in five.facts.invariants if t.invariant.kind.value == "procedural-rule")
    steps = lineage(track)
    assert [s.generation for s in steps if s.first_break] == [2]
    assert steps[1].wording and "only until" in steps[1].wording


def test_finding_ids_are_stable_across_loads(five):
    again = analyze(load_trace(SAMPLES / "five_item_synthetic.json"))
    assert [r["id"] for r in finding_rows(five)] == [r["id"] for r in finding_rows(again)]
    first = finding_rows(five)[0]
    assert find_finding(five, first["id"]).rule == first["rule"]


def test_trace_refs_round_trip_and_reject_junk():
    assert str(TraceRef.parse("sample:a.json")) == "sample:a.json"
    for bad in ("a.json", "disk:/etc/passwd", "sample:"):
        with pytest.raises(TraceRefError):
            TraceRef.parse(bad)


def test_paths_are_confined_to_their_folder(tmp_path, monkeypatch):
    (tmp_path / "in.json").write_text("{}")
    assert confined(tmp_path, "in.json") == (tmp_path / "in.json").resolve()
    for escape in ("../x.json", "/etc/passwd", "a/../../x"):
        with pytest.raises(TraceRefError, match="refused"):
            confined(tmp_path, escape)
    (tmp_path / "link").symlink_to("/etc")
    with pytest.raises(TraceRefError, match="outside"):
        confined(tmp_path, "link/passwd")
    monkeypatch.delenv("INSPECTOR_TRACES_DIR", raising=False)
    with pytest.raises(TraceRefError, match="INSPECTOR_TRACES_DIR"):
        resolve(TraceRef("path", "x.json"), SAMPLES)


def test_uploads_are_kept_by_content_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    data = (SAMPLES / "healthy_chain.json").read_bytes()
    ref = store_upload(data, "../../evil name.json")
    assert ref == store_upload(data, "../../evil name.json")
    path = resolve(ref, SAMPLES)
    assert path.read_bytes() == data and path.is_relative_to(tmp_path)
    assert ref.name.endswith("/evil_name.json")
