"""The `check` gate as CI pipelines call it: a real subprocess, exit codes, stderr, JSON shape."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.model import Finding, Severity, finding_id
from tests.helpers import REPO, SAMPLES

GOLDEN = Path(__file__).parent / "golden"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def check_json(sample: str) -> dict:
    result = run("check", "--json", str(SAMPLES / sample))
    return {"exit": result.returncode, **json.loads(result.stdout)}


# What a reviewer should see in each sample (sample_traces/README.md), stated by hand:
EXPECTED = {
    "staging_db_constraint.json": {("user-statement-weakened", 2), ("user-statement-lost", 3)},
    "anchor_decay.json": {
        ("ambiguous-anchor", 2), ("anchor-set-drift", 2), ("unresolved-anchor", 3), ("anchor-density-collapse", 3),
        ("anchor-density-floor", 3), ("confidence-inflation", 3), ("orphaned-anaphora", 3),
    },
    "five_item_synthetic.json": {
        ("invariant-weakened", 2), ("invariant-weakened", 3), ("invariant-weakened", 4), ("silent-drift", 4),
        ("recompaction-depth", 3), ("invariant-weakened", 5), ("invariant-lost", 5), ("superseded-fact-resurfaced", 5),
    },
}  # fmt: skip


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_failing_samples_exit_1_and_name_the_expected_rules_at_the_expected_generations(sample):
    report = check_json(sample)
    assert report["exit"] == 1 and report["verdict"] == "fail"
    found = {(f["rule"], f["generation"]) for f in report["findings"]}
    assert EXPECTED[sample] <= found


GOLDEN_TRACES = sorted([*SAMPLES.glob("*.json"), *(REPO / "tests" / "fixtures").glob("*/*.jsonl")])
"""Only traces in the repository: a golden file is a copy of what a trace shows, reviewed in its diffs."""


def pinned(finding: dict) -> dict:
    """What a golden file pins of a finding: rule, severity, place, message, span, and the key reviews attach to."""
    severity, start, end = Severity(finding["severity"]), finding["start"], finding["end"]
    key = finding_id(Finding(finding["rule"], severity, finding["generation"], finding["message"], start, end))
    return {"rule": finding["rule"], "severity": finding["severity"], "generation": finding["generation"],
            "message": finding["message"], "key": key, "span": None if start is None else [start, end]}  # fmt: skip


def golden_path(trace: Path) -> Path:
    return GOLDEN / f"{trace.parent.name}.{trace.stem}.findings.json" if trace.suffix == ".jsonl" else \
        GOLDEN / f"{trace.stem}.findings.json"  # fmt: skip


@pytest.mark.parametrize("trace", GOLDEN_TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_findings_match_the_golden_file(trace):
    """Every finding as reviewed, so any change in what a trace shows is a change a reviewer reads in a diff.

    After a deliberate change: UPDATE_GOLDEN=1 pytest tests/test_cli.py -k golden, then read `git diff tests/golden`.
    """
    result = run("check", "--json", str(trace))
    found = sorted((pinned(f) for f in json.loads(result.stdout)["findings"]),
                   key=lambda f: (f["generation"] if f["generation"] is not None else -1, f["rule"],
                                  f["span"] or [-1], f["message"]))  # fmt: skip
    golden = golden_path(trace)
    if os.environ.get("UPDATE_GOLDEN"):
        text = json.dumps(found, indent=2, ensure_ascii=False)
        golden.write_text(re.sub(r"\[\s+(\d+),\s+(\d+)\s+\]", r"[\1, \2]", text) + "\n")  # a span on one line
    assert found == json.loads(golden.read_text())


def test_healthy_sample_passes():
    report = check_json("healthy_chain.json")
    assert report["exit"] == 0 and report["verdict"] == "pass"
    assert [f for f in report["findings"] if f["severity"] == "error"] == []


def test_json_report_has_exactly_the_documented_shape():
    report = check_json("staging_db_constraint.json")
    report.pop("exit")
    assert list(report) == ["trace", "format", "generations", "invariants", "findings", "verdict"]
    assert report["format"] == "native"
    generation = report["generations"][1]
    assert {"index", "kind", "anchor_density", "anchors", "anaphora"} <= set(generation)
    assert generation["anchors"][0].keys() >= {"key", "status"}
    invariant = report["invariants"][0]
    assert invariant["statuses"] == ["verbatim", "verbatim", "weakened", "lost"]
    assert {"id", "kind", "text"} <= set(invariant)
    assert {"rule", "severity", "generation", "message"} <= set(report["findings"][0])


def test_json_fidelities_are_source_then_local_per_generation():
    """Source→current falls step by step while each step keeps 11/12 of its parent: silent drift's two measures."""
    report = check_json("five_item_synthetic.json")
    assert [g["source_fidelity"] for g in report["generations"]] == pytest.approx([1, 1, 11 / 12, 10 / 12, 9 / 12,
                                                                                   7 / 12])  # fmt: skip
    assert report["generations"][0]["local_fidelity"] is None  # S0 has no parent
    assert [g["local_fidelity"] for g in report["generations"][1:]] == pytest.approx([1, 11 / 12, 11 / 12, 11 / 12,
                                                                                      9 / 12])  # fmt: skip


def test_anaphora_entries_carry_spans_into_the_text():
    report = check_json("anchor_decay.json")
    text = json.loads((SAMPLES / "anchor_decay.json").read_text())["generations"][3]["text"]
    for item in report["generations"][3]["anaphora"]:
        assert text[item["start"] : item["end"]] == item["text"]


def test_min_anchor_density_option_moves_the_floor():
    loose = check_json("anchor_decay.json")
    path = str(SAMPLES / "anchor_decay.json")
    strict = json.loads(run("check", "--json", "--min-anchor-density", "0.95", path).stdout)

    def floor(report: dict) -> list[int]:
        return sorted(f["generation"] for f in report["findings"] if f["rule"] == "anchor-density-floor")

    assert (floor(loose), floor(strict)) == ([3], [1, 2, 3])


def test_rule_explanations_cite_nothing_a_user_cannot_read():
    """`rules` is where a user learns why a rule matters; the design notes behind the rules are not theirs to read."""
    result = run("rules")
    assert result.returncode == 0 and "anchor-density-collapse" in result.stdout
    assert not re.search(r"\b(?:first|second|third) note\b", result.stdout)


def test_text_report_is_readable():
    result = run("check", str(SAMPLES / "staging_db_constraint.json"))
    assert result.returncode == 1
    assert "user-statement-weakened" in result.stdout and "verdict: FAIL" in result.stdout


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "no such file"),
        (b"", "empty file"),
        (b'{"format": "compaction-trace/1", "id": "t", "sources": [', "invalid JSON"),
        (bytes(range(256)) * 4, "binary"),
    ],
    ids=["missing", "empty", "truncated", "binary"],
)
def test_unreadable_input_exits_2_with_one_line_naming_the_file(tmp_path, content, expected):
    path = tmp_path / "input.json"
    if content is not None:
        path.write_bytes(content)
    result = run("check", str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(path)) and expected in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_one_unreadable_file_does_not_hide_the_others(tmp_path):
    result = run("check", str(tmp_path / "missing.json"), str(SAMPLES / "healthy_chain.json"))
    assert result.returncode == 2 and "verdict: PASS" in result.stdout


def test_rules_lists_every_rule_with_severity_and_explanation():
    result = run("rules")
    assert result.returncode == 0
    lines = {line.split()[0]: line.split()[1] for line in result.stdout.splitlines()}
    assert lines["invariant-lost"] == "error"
    assert lines["orphaned-anaphora"] == "warning"
    assert lines["user-statement-lost"] == "error" and lines["open-failure-lost"] == "warning"
    assert "(on session logs: info)" in next(line for line in result.stdout.splitlines() if "orphaned-anaphora" in line)
    assert {"unresolved-anchor", "ambiguous-anchor", "no-anchors", "anchor-density-floor", "anchor-density-collapse",
            "anchor-set-drift", "invariant-weakened", "superseded-fact-resurfaced", "recompaction-depth",
            "silent-drift", "confidence-inflation"} <= set(lines)  # fmt: skip


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "compaction-inspector"
    result = subprocess.run([str(script), "rules"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "invariant-lost" in result.stdout


_IMPORTED = """
import sys
from inspector.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})), file=sys.__stderr__)
"""
HEAVY = {"sqlalchemy", "alembic", "pandas", "streamlit", "pyarrow", "dask", "altair", "jsonschema"}
"""What the gate, the rule list and a scan must not load: the review store, the app and its charts, and the
native schema's validator (loaded only when a native trace is read)."""


SESSION = REPO / "tests" / "fixtures" / "claude_code" / "three_compactions.jsonl"
"""A Claude Code log that every clone has."""


@pytest.mark.parametrize(
    "argv", [["check", "--json", str(SESSION)], ["rules"], ["scan", str(SESSION), "--workers", "1"]],
    ids=["check", "rules", "scan"],
)
def test_check_rules_and_scan_import_only_what_they_use(argv):
    """A CI gate pays for every import on every run: `rules` once took 0.44 s, most of it SQLAlchemy and Alembic."""
    result = subprocess.run([sys.executable, "-c", _IMPORTED, *argv], capture_output=True, text=True, cwd=REPO,
                            timeout=120)  # fmt: skip
    loaded = set(result.stderr.strip().splitlines()[-1].split())
    assert "inspector" in loaded and not loaded & HEAVY, loaded & HEAVY


_IMPORTED_MODULES = _IMPORTED.replace('{name.split(".")[0] for name in sys.modules}', "set(sys.modules)")


def test_listing_the_rules_loads_no_reader_and_no_analysis_of_a_trace():
    """`rules` only lists what the detectors registered: the eleven readers, the mention search and the
    scan stay unloaded (they cost `rules` a third of its start-up when the parser loaded them)."""
    result = subprocess.run([sys.executable, "-c", _IMPORTED_MODULES, "rules"], capture_output=True, text=True,
                            cwd=REPO, timeout=120)  # fmt: skip
    loaded = set(result.stderr.strip().splitlines()[-1].split())
    assert "inspector.detectors" in loaded
    assert not {m for m in loaded if m.startswith(("inspector.readers", "inspector.fleet", "inspector.mentions"))}


OTHER_READERS = {f"inspector.readers.{name}" for name in (
    "codex", "openhands", "inspect_ai", "langchain", "anthropic_api", "openai_responses", "gemini_cli", "opencode",
    "otel_genai")}  # fmt: skip


def test_checking_a_claude_code_log_loads_only_the_readers_detection_asks():
    """Detection asks the readers in order and loads each on first use: a Claude Code log loads the native and
    Claude Code readers (native sniffs first), not the other nine (a third of `check`'s start-up)."""
    result = subprocess.run([sys.executable, "-c", _IMPORTED_MODULES, "check", "--json", str(SESSION)],
                            capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    loaded = set(result.stderr.strip().splitlines()[-1].split())
    assert {"inspector.readers.native", "inspector.readers.claude_code"} <= loaded
    assert not loaded & OTHER_READERS, loaded & OTHER_READERS


def test_checking_loads_neither_the_guard_nor_its_installer_nor_sqlite():
    """The guard's hook (subprocess, signal), its installer (difflib, tomllib, the settings editors) and SQLite (a
    database's hash) are for other commands: 10 ms of every `check` of a 4 MB session when the parser loaded them."""
    result = subprocess.run([sys.executable, "-c", _IMPORTED_MODULES, "check", "--json", str(SESSION)],
                            capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    loaded = set(result.stderr.strip().splitlines()[-1].split())
    assert "inspector.guard_options" in loaded  # what the parser offers of the guard
    assert not loaded & {"inspector.guard", "inspector.guard_install", "sqlite3", "difflib", "tomllib"}


def test_a_check_keeps_no_shell_line_of_the_log_on_disk(tmp_path):
    """A log's shell lines are the user's commands: a check reads them and keeps none of them in the cache folder (the
    parser before tree-sitter kept every line it parsed there, in an SQLite file), and loads no package metadata
    (email, zipfile and csv come with it: 18 ms of every check and guard run)."""
    log = tmp_path / "session.jsonl"  # a line no grammar reads whole: the shell lexer reads it
    line = "pytest tests/test_fees.py -q $(( 1 +"
    log.write_text(SESSION.read_text().replace("pytest tests/test_fees.py -q", line))
    cache = tmp_path / "cache"
    result = subprocess.run([sys.executable, "-c", _IMPORTED_MODULES, "check", "--json", str(log)],
                            capture_output=True, text=True, cwd=REPO, timeout=120,
                            env={**os.environ, "INSPECTOR_CACHE_DIR": str(cache)})  # fmt: skip
    loaded = set(result.stderr.strip().splitlines()[-1].split())
    assert json.loads(result.stdout)  # the check ran, on the line as written
    assert not cache.exists() or not [path for path in cache.rglob("*") if path.is_file()]
    assert not loaded & {"importlib.metadata", "email", "zipfile", "csv"}, loaded & {"importlib.metadata", "email"}


_HOOK_IMPORTS = """
import sys
sys.argv = ["compaction-inspector", "guard"]
from inspector.command import main
main()
print(" ".join(sorted(sys.modules)), file=sys.__stderr__)
"""
HOOK_PROCESS = {"inspector", "inspector.command", "inspector.guard", "inspector.guard_options",
                "inspector.env_settings", "inspector.guard_pending", "inspector.data_folder",
                "inspector.inert"}  # fmt: skip
"""What the guard's own process may load of ours: it reads the hook's JSON, starts the check's child and passes on what
it printed. An agent waits on it at every compaction, and the CLI's parser and modules cost it 0.27 s of imports."""


def test_the_hook_line_loads_no_reader_no_analysis_and_no_store(tmp_path):
    """`compaction-inspector guard`, as install writes it, goes straight to the hook: here on a request naming no
    transcript, which it logs (the child that reads a trace is never started)."""
    result = subprocess.run([sys.executable, "-c", _HOOK_IMPORTS], input="{}", capture_output=True, text=True,
                            cwd=REPO, timeout=120, env={**os.environ, "INSPECTOR_DATA_DIR": str(tmp_path)})  # fmt: skip
    loaded = set(result.stderr.strip().splitlines()[-1].split())
    ours = {name for name in loaded if name.split(".")[0] == "inspector"}
    assert ours <= HOOK_PROCESS, ours - HOOK_PROCESS
    assert not {name.split(".")[0] for name in loaded} & {"orjson", "regex", "msgspec", "sqlalchemy", "hyperscan"}
    assert "names no transcript_path" in (tmp_path / "guard.log").read_text()
