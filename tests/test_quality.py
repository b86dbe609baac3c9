"""Findings judged by readers of real sessions: the shared scorer runs `check --json` on the hand-labelled
sessions and compares each finding with their gold labels (../shared/quality/GOLD-FORMAT.md)."""

import json
import operator
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import LABELLED, REAL_TRACES, REPO, SHARED, require_shared

WIDER = REAL_TRACES / "wider"

# The issue #13 contract: what the gate must reach on the labelled real sessions, raised by issue #29 to what
# the detectors reach now. Do not loosen these to make the suite pass; improve the detectors instead.
CONTRACT: dict[str, tuple[str, float]] = {
    "error_precision": (">=", 0.95),
    "warning_precision": (">=", 0.8),
    "error_recall": (">=", 0.9),
    "recall": (">=", 0.6),
    "faithful_errors": ("==", 0),
    "findings_per_session": ("<=", 12),
}
# The issue #29 contract, on the union of labelled/ and wider/ (real sessions from repositories the rules were
# not written on, half of them held out while they were): raise it as the detectors improve, never lower it.
UNION_CONTRACT: dict[str, tuple[str, float]] = {
    "error_precision": (">=", 0.95),
    "warning_precision": (">=", 0.8),
    "error_recall": (">=", 0.85),
    "recall": (">=", 0.47),
    "faithful_errors": ("==", 0),
    "findings_per_session": ("<=", 6),
}
COMPARE = {">=": operator.ge, "<=": operator.le, "==": operator.eq}

SCORER = SHARED / "quality" / "score.py"


def _scored(folder: Path) -> dict:
    # The scorer splits --cli on spaces.
    cli = f"{sys.executable} -m inspector"
    result = subprocess.run([sys.executable, str(SCORER), str(folder), "--json", "--cli", cli],
                            capture_output=True, text=True, cwd=REPO, timeout=900)  # fmt: skip
    assert result.stdout, result.stderr
    return json.loads(result.stdout)["totals"]


@pytest.fixture(scope="module")
def totals() -> dict:
    require_shared(SCORER, LABELLED)
    return _scored(LABELLED)


@pytest.fixture(scope="module")
def union_totals(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Both folders scored as one: their sessions linked into one folder (the logs are never copied)."""
    require_shared(SCORER, LABELLED, WIDER)
    union = tmp_path_factory.mktemp("union")
    for folder in (LABELLED, WIDER):
        for path in folder.glob("*.*"):
            if path.suffix in (".json", ".jsonl", ".zst"):
                (union / path.name).symlink_to(path.resolve())
    return _scored(union)


def test_every_labelled_session_is_scored(totals: dict) -> None:
    assert totals["sessions"] > 0
    assert totals["failed_sessions"] == []


@pytest.mark.parametrize("metric", CONTRACT)
def test_quality_contract(totals: dict, metric: str) -> None:
    relation, bound = CONTRACT[metric]
    value = totals[metric]
    assert value is not None, f"{metric} undefined (nothing to score)"
    assert COMPARE[relation](value, bound), f"{metric} = {value:.3g}; issue #13 requires {relation} {bound}"


@pytest.mark.parametrize("metric", UNION_CONTRACT)
def test_quality_contract_on_both_folders(union_totals: dict, metric: str) -> None:
    relation, bound = UNION_CONTRACT[metric]
    value = union_totals[metric]
    assert value is not None, f"{metric} undefined (nothing to score)"
    said = f"{metric} = {value:.3g} on labelled + wider; issue #29 requires {relation} {bound}"
    assert COMPARE[relation](value, bound), said
