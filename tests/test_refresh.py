"""Source refresh, the append-only ledger and refresh-policy comparison."""

import json
import subprocess
import sys

import pytest

from inspector import Config, analyze, load_trace
from inspector.model import Generation, SourceRecord, Trace
from inspector.policies import AdaptiveWeights, adaptive, compare, every, never, simulate
from inspector.refresh import CorrectionType, refresh_and_reanalyse, refresh_at
from tests.helpers import REAL_TRACES, REPO, SAMPLES, chain, record


def analysis_of(sample: str):
    return analyze(load_trace(SAMPLES / sample))


def test_refresh_at_the_last_generation_types_every_lost_or_distorted_item():
    result = refresh_at(analysis_of("five_item_synthetic.json"), 5)
    typed = {(c.type, c.source_key) for c in result.corrections}
    assert typed == {
        (CorrectionType.SUPERSEDED, "src:correction-batch"),  # the correction: 500 is back
        (CorrectionType.OMITTED, "src:counterexample-dedupe"),  # the counterexample
        (CorrectionType.WEAKENED, "src:rule-schema-check"),  # the bounded rule lost its bound
        (CorrectionType.WEAKENED, "src:done-backfill"),  # the completed action became a plan
    }
    superseded = next(c for c in result.corrections if c.type is CorrectionType.SUPERSEDED)
    assert superseded.inherited == "The ingest batch size is 500 records."
    assert "250 records" in superseded.source
    assert result.records_read == 6 and result.tokens_read > 0


@pytest.mark.parametrize(("sample", "k"), [("five_item_synthetic.json", 1), ("healthy_chain.json", 3),
                                           ("healthy_chain.json", 2)])  # fmt: skip
def test_refresh_at_a_healthy_generation_emits_nothing(sample, k):
    assert refresh_at(analysis_of(sample), k).corrections == ()


def test_staging_refresh_restores_the_prohibition_as_a_typed_correction():
    result = refresh_at(analysis_of("staging_db_constraint.json"), 3)
    [correction] = result.corrections
    assert correction.type is CorrectionType.OMITTED and correction.kind == "user-constraint"
    assert correction.source.startswith("Never run migrations against the staging database")


def test_contradicted_and_unsupported():
    sources = [record("a", "The API rate limit is 100 requests per minute.", kind="fact")]
    trace = chain(sources, "The API rate limit is 100 requests per minute.",
                  "The API rate limit is 400 requests per minute. Never deploy on Fridays.")  # fmt: skip
    types = {c.type for c in refresh_at(analyze(trace), 2).corrections}
    assert types == {CorrectionType.CONTRADICTED, CorrectionType.UNSUPPORTED}


def test_a_weakening_that_names_another_value_is_a_contradiction_whatever_the_matcher_said():
    """The user's 'never before 18:00' carried as 'after 20:00': the session matcher explains the lost prohibition,
    not the value; the correction is still typed by what the state says."""
    said = SourceRecord("u1", "Never deploy the billing service before 18:00.", namespace="transcript", kind="user",
                        authority="user")  # fmt: skip
    generations = (Generation(0, "raw", said.text, covers=("u1",)),
                   Generation(1, "summary", "The user wants the billing service deployed after 20:00.", parent=0,
                              covers=("u1",)))  # fmt: skip
    log = Trace("s", "claude-code", (said,), generations, extra={"meta": {"session_log": True}})
    [correction] = refresh_at(analyze(log), 1).corrections
    assert (correction.type, correction.source_key) == (CorrectionType.CONTRADICTED, "u1")


def test_the_refreshed_branch_is_analysed_with_the_thresholds_of_the_analysis_it_refreshes():
    strict = analyze(load_trace(SAMPLES / "five_item_synthetic.json"), Config(max_unchecked_depth=0))
    _, refreshed = refresh_and_reanalyse(strict, 3)
    assert [f.generation for f in refreshed.findings if f.rule == "recompaction-depth"] == [1] * 6  # limit 0, not 2


def test_the_refreshed_branch_resets_debt_and_leaves_history_alone():
    analysis = analysis_of("five_item_synthetic.json")
    result, refreshed = refresh_and_reanalyse(analysis, 3)
    assert analysis.trace.generations[3].refreshed is False  # history untouched
    assert refreshed.trace.generations[3].refreshed and refreshed.trace.generations[3].manifest == result.rebuilt
    depth = lambda a: max(d for t in a.facts.invariants if (d := t.depths[4]) is not None)  # noqa: E731
    assert (depth(analysis), depth(refreshed)) == (4, 1)
    rules = lambda a: sorted((f.rule, f.generation) for f in a.findings)  # noqa: E731
    assert ("recompaction-depth", 3) in rules(analysis) and ("recompaction-depth", 3) not in rules(refreshed)


# --- ledger (the store-backed ledger's own tests are in test_store.py) --------------------------


# --- policies ------------------------------------------------------------------------------------


def test_no_refresh_shows_silent_drift_and_every_n_reads_more_to_remove_it():
    runs = {r.policy: r for r in compare(analysis_of("five_item_synthetic.json"), n=2)}
    none, periodic = runs["no refresh"], runs["every 2"]
    assert none.records_read == 0 and [s.generation for s in none.steps if s.silent_drift] == [4]
    assert [s.generation for s in periodic.steps if s.refreshed] == [2, 4]
    assert periodic.records_read == 12 and periodic.drift < none.drift


@pytest.mark.parametrize("config", [Config(), Config(source_fidelity_drop=0.1), Config(high_local_fidelity=0.95)])
def test_the_policies_mark_silent_drift_where_the_findings_report_it(config):
    """One definition of silent drift: without refresh, the policy table marks what `silent-drift` reports."""
    analysis = analyze(load_trace(SAMPLES / "five_item_synthetic.json"), config)
    reported = [f.generation for f in analysis.findings if f.rule == "silent-drift"]
    marked = [s.generation for s in simulate(analysis, never()).steps if s.silent_drift]
    assert marked == reported


def test_the_depth_signal_counts_debt_as_recompaction_depth_does():
    """A summary with no text checks nothing: debt runs on through it in the findings and in the policies."""
    port = "The API listens on port 8443."
    analysis = analyze(chain([record("f:0", port, kind="fact")], port, None, port, port))
    assert [f.generation for f in analysis.findings if f.rule == "recompaction-depth"] == [3]  # 3 > limit 2
    limit = analysis.facts.config.max_unchecked_depth
    assert [s.signals["depth"] * limit for s in simulate(analysis, never()).steps] == [0, 1, 0, 3, 4]


def test_adaptive_refreshes_when_its_weighted_signals_reach_the_threshold():
    analysis = analysis_of("staging_db_constraint.json")
    run = simulate(analysis, adaptive())
    assert [s.generation for s in run.steps if s.refreshed] == [2]
    assert run.steps[2].signals["authority"] == 1.0 and run.steps[2].signals["irreversible"] == 1.0
    deaf = simulate(analysis, adaptive(AdaptiveWeights(depth=0, corrections=0, authority=0, volatility=0,
                                                       irreversible=0)))  # fmt: skip
    assert deaf.refreshes == 0
    assert simulate(analysis, never()).refreshes == 0 and simulate(analysis, every(1)).refreshes == 3


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=300)  # fmt: skip


def test_refresh_cli_json_and_record(tmp_path):
    import os

    env_path = tmp_path / "data"
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "refresh", str(SAMPLES / "five_item_synthetic.json"), "--at", "5",
         "--json", "--record", "--by", "reviewer"],
        capture_output=True, text=True, cwd=REPO, timeout=120, env={**os.environ, "INSPECTOR_DATA_DIR": str(env_path)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert sorted(c["type"] for c in payload["corrections"]) == ["omitted", "superseded", "weakened", "weakened"]
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(env_path)}
    exported = subprocess.run([sys.executable, "-m", "inspector", "ledger", "export"], capture_output=True,
                              text=True, cwd=REPO, timeout=120, env=env)  # fmt: skip
    assert [json.loads(line)["requested_by"] for line in exported.stdout.splitlines()] == ["reviewer"] * 4


def test_refresh_cli_rejects_a_missing_generation():
    result = run_cli("refresh", str(SAMPLES / "healthy_chain.json"), "--at", "9")
    assert result.returncode == 2 and "not a generation" in result.stderr


@pytest.mark.parametrize(
    "trace",
    sorted(SAMPLES.glob("*.json")) + sorted(p for p in REAL_TRACES.glob("*.jsonl")),
    ids=lambda p: p.name,
)
def test_policies_runs_on_every_sample_and_real_session(trace):
    result = run_cli("policies", str(trace), "--json")
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)
    assert [r["policy"] for r in runs] == ["no refresh", "every 2", "adaptive"]
    assert all(len(r["steps"]) == len(runs[0]["steps"]) for r in runs)
