"""What `check --json` says about every real session and sample is pinned, by digest.

Speed work (typed decoding, faster drift matching) must not change a single finding, and a detection
change must be a deliberate one: the digest of each file's report is kept in `golden/check_digests.json`
(digests only: the real sessions themselves never enter the repository). After a deliberate change,
review the differences and write the new digests with `python -m tests.test_real_trace_outputs`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import orjson
import pytest

from inspector.analysis import analyze
from inspector.readers import load_trace
from inspector.report import to_json
from tests.helpers import REAL_TRACES as REAL
from tests.helpers import REPO, require_shared

DIGESTS = Path(__file__).parent / "golden" / "check_digests.json"


def pinned_files() -> dict[str, Path]:
    """Every bundled sample, test fixture session and real session, by a machine-independent name."""
    found = {f"sample_traces/{p.name}": p for p in sorted((REPO / "sample_traces").glob("*.json"))}
    found |= {f"fixtures/{p.parent.name}/{p.name}": p for p in sorted((REPO / "tests" / "fixtures").glob("*/*.jsonl"))}
    found |= {f"real_traces/{p.relative_to(REAL)}": p for p in sorted(REAL.rglob("*.jsonl"))}
    return found


def report_digest(path: Path) -> str:
    """sha256 of the report `check --json` prints, its `trace` (a machine's path) left out."""
    report = to_json(analyze(load_trace(path)))
    report.pop("trace")
    return hashlib.sha256(orjson.dumps(report, option=orjson.OPT_INDENT_2)).hexdigest()


def pinned_digests() -> dict[str, str]:
    return json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}


@pytest.mark.parametrize("name", sorted(pinned_digests()))
def test_the_report_on_each_pinned_file_is_unchanged(name: str) -> None:
    path = pinned_files().get(name)
    if path is None:
        if not name.startswith("real_traces/"):
            pytest.fail(f"{name} is pinned but no longer in the repository: rewrite the digests")
        require_shared(REAL / name.removeprefix("real_traces/"))  # a real session lives in ../shared
    assert report_digest(path) == pinned_digests()[name], (
        f"check --json on {name} changed: if deliberate, review it and run python -m tests.test_real_trace_outputs"
    )


def test_every_real_session_and_sample_is_pinned() -> None:
    require_shared(REAL)
    assert sorted(pinned_files()) == sorted(pinned_digests())


if __name__ == "__main__":
    digests = {name: report_digest(path) for name, path in pinned_files().items()}
    DIGESTS.write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n")
    print(f"{len(digests)} digests written to {DIGESTS.relative_to(REPO)}", file=sys.stderr)
