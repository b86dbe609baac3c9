"""Reading and analysing hold the garbage collector only while they run, whatever happens."""

import gc
import os

import pytest

from inspector import analyze, load_trace
from inspector.errors import TraceReadError
from tests.helpers import REPO, SAMPLES


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


_WALKS = """
import contextlib, gc, io, sys
import inspector.cli  # imported (as the command does) before the work the collector is held for
from inspector.command import main
walked = []
gc.collect()
gc.callbacks.append(lambda phase, info: phase == "start" and walked.append(len(gc.get_objects(0))))
sys.argv = ["compaction-inspector", "check", "--json", sys.argv[1]]
with contextlib.redirect_stdout(io.StringIO()):
    main()
garbage = [[] for _ in range(10 * gc.get_threshold()[0])]  # enough allocation for a collection to be due
print(max(walked, default=0), gc.get_threshold()[0])
"""


def test_a_command_leaves_what_it_built_frozen_so_no_collection_walks_all_of_it_afterwards(tmp_path):
    # What a one-session command builds is still the collector's youngest generation when the command ends: the
    # first collection after would walk all of it (0.4 s of `check` at 100 MB), unless it was frozen first.
    import subprocess
    import sys

    session = REPO / "tests" / "fixtures" / "claude_code" / "three_compactions.jsonl"
    done = subprocess.run([sys.executable, "-c", _WALKS, str(session)], capture_output=True, text=True, check=True,
                          env={**os.environ, "INSPECTOR_CACHE_DIR": str(tmp_path)}, cwd=REPO)  # fmt: skip
    walked, threshold = map(int, done.stdout.split())
    assert walked <= 3 * threshold, f"a collection walked {walked} young objects (threshold {threshold})"
