"""Reading and analysing hold the garbage collector only while they run, whatever happens."""

import gc

import pytest

from inspector import analyze, load_trace
from inspector.errors import TraceReadError
from tests.helpers import SAMPLES


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was_after_a_read_an_analysis_and_an_error(tmp_path, enabled):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "compaction-trace/1", "generations": [')
    (gc.enable if enabled else gc.disable)()
    try:
        analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
        assert gc.isenabled() is enabled
        with pytest.raises(TraceReadError):
            load_trace(broken)
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
