import pytest

from inspector import analyze, load_trace
from inspector.inert import markdown_text
from inspector.library import (
    TraceRef,
    TraceRefError,
    confined,
    resolve,
    sample_index,
    store_upload,
    upload_help,
    upload_label,
)
from inspector.readers import Reader, readers, registry
from inspector.views import (
    CELL_CHAR_PX,
    CELL_PADDING_PX,
    LINE_PX,
    LONG_TEXT_PX,
    MOST_LINES,
    ROW_PADDING_PX,
    chain_chart,
    find_finding,
    finding_rows,
    generation_rows,
    lineage,
    manifest_diff,
    survival_by_kind,
    table_layout,
)
from tests.helpers import REPO, SAMPLES


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
    assert changes["failure:src:counterexample-dedupe"] == "lost"
    assert changes["correction:src:correction-batch"] == "changed"
    assert {c.change for c in manifest_diff(five, 1)} == {"kept"}


def test_lineage_marks_the_first_break(five):
    track = next(t for t in five.facts.invariants if t.invariant.source_key == "src:rule-schema-check")
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


NOTHING_TO_CHART = REPO / "tests" / "fixtures" / "native" / "two_generations_nothing_to_chart.json"


def test_a_chain_chart_with_nothing_to_draw_says_what_it_would_have_shown():
    rows = generation_rows(analyze(load_trace(NOTHING_TO_CHART)))
    for name, words in (("debt", "compaction debt"), ("fidelity", "fidelity"), ("density", "anchor density")):
        chart = chain_chart(rows, name)
        assert chart.points == [] and chart.nothing_to_chart.startswith("Nothing to chart: ")
        assert words in chart.nothing_to_chart


def test_chain_chart_points_leave_out_undefined_generations(five):
    fidelity = chain_chart(generation_rows(five), "fidelity")
    assert {p["measure"] for p in fidelity.points} == {"parent→child", "source→current"}
    local = [p["generation"] for p in fidelity.points if p["measure"] == "parent→child"]
    assert local == [1, 2, 3, 4, 5]  # S0 has no parent
    assert all(p["value"] is not None for p in fidelity.points)
    debt = chain_chart(generation_rows(five), "debt")
    assert max(p["value"] for p in debt.points if p["measure"] == "deepest invariant") == 5


def test_the_sample_picker_starts_on_the_open_sample():
    samples = ["anchor_decay.json", "healthy_chain.json", "staging_db_constraint.json"]
    assert sample_index("sample:staging_db_constraint.json", samples) == 2
    assert sample_index("upload:abc/staging_db_constraint.json", samples) == 0  # not a sample
    assert sample_index("sample:gone.json", samples) == 0
    assert sample_index(None, samples) == 0


def test_a_text_column_is_as_wide_as_its_longest_value_and_long_text_wraps():
    message = "counterexample “Counterexample: the dedupe rule fails for events with a null session_id” is lost"
    layout = table_layout({"id": ["ca6a6a8d7d00", None], "rule": ["invariant-weakened"], "message": [message]})
    assert layout.widths["id"] == len("ca6a6a8d7d00") * CELL_CHAR_PX + CELL_PADDING_PX
    assert layout.widths["rule"] == len("invariant-weakened") * CELL_CHAR_PX + CELL_PADDING_PX
    assert layout.widths["message"] == LONG_TEXT_PX and layout.wraps  # too long for one line: rows wrap
    short = table_layout({"verdict": ["pass"]})
    assert short.widths["verdict"] == len("verdict") * CELL_CHAR_PX + CELL_PADDING_PX and not short.wraps


def test_a_table_wider_than_the_room_narrows_its_prose_and_never_a_name():
    message = "the user's requirement “must be controlled by configuration, default to off” is gone from S2 " * 2
    columns = {"generation": [2], "severity": ["error"], "rule": ["completed-actions-lost"], "message": [message],
               "quote": ["must be controlled by configuration"], "review": [None]}  # fmt: skip
    layout = table_layout(columns, room_px=820)
    assert sum(layout.widths.values()) <= 820  # it fits: nothing is cut off on the right
    assert layout.widths["rule"] == len("completed-actions-lost") * CELL_CHAR_PX + CELL_PADDING_PX  # a name, whole
    assert layout.widths["message"] == layout.widths["quote"] < LONG_TEXT_PX  # the widest prose gave way first
    assert layout.wraps and layout.row_height == MOST_LINES * LINE_PX + ROW_PADDING_PX  # as tall as it can grow
    roomy = table_layout(columns, room_px=2000)
    assert roomy.widths["message"] == LONG_TEXT_PX and roomy.row_height == 4 * LINE_PX + ROW_PADDING_PX  # its lines
    names = {f"rule {n}": ["superseded-fact-resurfaced"] for n in range(6)} | {"message": [message]}
    crowded = table_layout(names, room_px=820)  # no room to make even at the narrowest: it scrolls, uncramped
    assert crowded.widths["message"] == LONG_TEXT_PX and sum(crowded.widths.values()) > 820


def test_the_upload_label_names_every_registered_format_and_the_tooltip_says_what_each_is(monkeypatch):
    assert len(readers()) == 11
    label, tooltip = upload_label(), upload_help()
    for reader in readers():
        assert reader.name in label, reader.name
        assert f"- {markdown_text(reader.name)}: {markdown_text(reader.description)}" in tooltip.splitlines()
    # A reader registered later is named too: the label is the registry's, not a sentence kept beside it.
    toy = Reader(name="toy-agent", description="Toy agent log (JSONL)", sniff=lambda head: False, read=print)
    monkeypatch.setitem(registry._READERS, toy.name, toy)
    assert upload_label().endswith("or toy-agent (.zst compressed too)") and "Toy agent log" in upload_help()
