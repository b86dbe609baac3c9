"""The command line as a newcomer meets it (issue 19): every bad input is one line naming it, exit 2.

Each case runs `python -m inspector` as a real process with its own data folder and HOME, so no test
reads or writes the user's store or settings.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from inspector.cli import build_parser
from inspector.cli_options import DEPRECATED_HELP
from inspector.library import content_hash
from inspector.store import Store, Target
from tests.helpers import ONE_OF_EACH, REPO, SAMPLES

NATIVE = str(SAMPLES / "staging_db_constraint.json")
CLAUDE_CODE = str(ONE_OF_EACH["claude-code"])


def run(tmp_path: Path, *args: str, env: dict[str, str] | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    settings = {k: v for k, v in os.environ.items() if k != "INSPECTOR_DB_URL"}
    settings |= {"INSPECTOR_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path / "home"), **(env or {})}
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    return subprocess.run([sys.executable, "-m", "inspector", *argv], capture_output=True, text=True, cwd=REPO,
                          env=settings, input=stdin, timeout=120)  # fmt: skip


def one_line(result: subprocess.CompletedProcess) -> str:
    """What every bad input must look like: exit 2, nothing on stdout, exactly one line on stderr."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert result.stdout == ""
    return lines[0]


# (id, argv, text the line must contain); {tmp} is the test's folder, which holds no file but `store.db`.
BAD_INPUT = [
    # One rule for every -o/--out: the folder must exist, and the target must not be a folder.
    ("report-o-missing-folder", ["report", NATIVE, "-o", "{tmp}/missing/r.html"],
     ["{tmp}/missing/r.html", "the folder {tmp}/missing does not exist"]),
    ("report-o-folder", ["report", NATIVE, "-o", "{tmp}"], ["{tmp}: is a folder"]),
    ("annotations-export-o-missing-folder", ["annotations", "export", "-o", "{tmp}/missing/a.jsonl"],
     ["{tmp}/missing/a.jsonl", "does not exist"]),
    ("annotations-export-o-folder", ["annotations", "export", "-o", "{tmp}"], ["{tmp}: is a folder"]),
    ("annotations-report-o-missing-folder", ["annotations", "report", NATIVE, "-o", "{tmp}/missing/r.md"],
     ["{tmp}/missing/r.md", "does not exist"]),
    ("annotations-report-o-folder", ["annotations", "report", NATIVE, "-o", "{tmp}"], ["{tmp}: is a folder"]),
    ("scan-out-missing-folder", ["scan", NATIVE, "--out", "{tmp}/missing/fleet.csv"],
     ["{tmp}/missing/fleet.csv", "does not exist"]),
    ("scan-out-folder", ["scan", NATIVE, "--out", "{tmp}"], ["{tmp}: is a folder"]),
    # Exit 2 for bad input everywhere.
    ("policies-weights-unknown-name", ["policies", NATIVE, "--weights", "bogus=1"], ["--weights", "'bogus'", "depth"]),
    ("policies-weights-no-number", ["policies", NATIVE, "--weights", "depth"], ["--weights", "depth needs a number"]),
    ("annotations-import-wrong-file", ["annotations", "import", NATIVE], [NATIVE, "not an annotations export"]),
    ("scan-missing-path", ["scan", "{tmp}/nonexistent"], ["{tmp}/nonexistent: no such file or folder"]),
    # Names a user would recognise, not the parser's.
    ("check-density-not-a-number", ["check", "--min-anchor-density", "abc", NATIVE],
     ["--min-anchor-density", "'abc' is not a number"]),
    ("annotations-no-action", ["annotations"], ["{export,import,report}"]),
    ("no-command", [], ["{check,rules,refresh,policies,annotations,report,scan,export-otel,guard,ledger}"]),
    # A format given by hand that does not fit says what the file is.
    ("check-input-format-codex-on-native", ["check", "--input-format", "codex", NATIVE],
     [NATIVE, "not a Codex CLI rollout", "native trace"]),
    # … even where the reader named would read nothing from it and pass (tests/test_input_format.py: every pair).
    ("check-input-format-codex-on-claude-code", ["check", "--input-format", "codex", CLAUDE_CODE],
     [f"{CLAUDE_CODE}: not a Codex CLI rollout", "looks like a claude-code trace"]),
    ("check-input-format-gemini-cli-on-claude-code", ["check", "--input-format", "gemini-cli", CLAUDE_CODE],
     [f"{CLAUDE_CODE}: not a Gemini CLI session", "looks like a claude-code trace"]),
    ("refresh-at-0", ["refresh", NATIVE, "--at", "0"], ["--at", "S0 is the original context"]),
    ("refresh-at-past-the-end", ["refresh", NATIVE, "--at", "9"], [NATIVE, "--at 9 is not a generation", "S1..S3"]),
    # Every subcommand with a bad path, a bad option value and no arguments.
    ("check-bad-path", ["check", "{tmp}/nope.json"], ["{tmp}/nope.json", "no such file"]),
    ("check-bad-option", ["check", "--input-format", "xml", NATIVE], ["--input-format", "'xml'"]),
    ("check-no-arguments", ["check"], ["TRACE"]),
    ("rules-extra-argument", ["rules", "{tmp}/nope.json"], ["unrecognized arguments", "{tmp}/nope.json"]),
    ("rules-bad-option", ["rules", "--sort", "x"], ["unrecognized arguments", "--sort"]),
    ("refresh-bad-path", ["refresh", "{tmp}/nope.json", "--at", "1"], ["{tmp}/nope.json", "no such file"]),
    ("refresh-bad-option", ["refresh", NATIVE, "--at", "two"], ["--at", "'two' is not a whole number"]),
    ("refresh-no-arguments", ["refresh"], ["TRACE", "--at"]),
    ("policies-bad-path", ["policies", "{tmp}/nope.json"], ["{tmp}/nope.json", "no such file"]),
    ("policies-bad-option", ["policies", NATIVE, "--every", "0"], ["--every", "'0' is less than 1"]),
    ("policies-no-arguments", ["policies"], ["TRACE"]),
    ("annotations-export-bad-path", ["annotations", "export", "--trace", "{tmp}/nope.json"],
     ["--trace", "{tmp}/nope.json: no such file, and not a trace's content hash"]),
    ("annotations-export-bad-option", ["annotations", "export", "--format", "xml"], ["--format", "'xml'"]),
    ("annotations-import-bad-path", ["annotations", "import", "{tmp}/nope.jsonl"], ["{tmp}/nope.jsonl", "cannot read"]),
    ("annotations-import-no-arguments", ["annotations", "import"], ["FILE"]),
    ("annotations-report-bad-path", ["annotations", "report", "{tmp}/nope.json"], ["{tmp}/nope.json", "no such file"]),
    ("annotations-report-bad-option", ["annotations", "report", NATIVE, "--format", "pdf"], ["--format", "'pdf'"]),
    ("annotations-report-no-arguments", ["annotations", "report"], ["TRACE"]),
    ("report-bad-path", ["report", "{tmp}/nope.json"], ["{tmp}/nope.json", "no such file"]),
    ("report-bad-option", ["report", NATIVE, "--format", "pdf"], ["--format", "'pdf'", "html, md"]),
    ("report-no-arguments", ["report"], ["TRACE"]),
    ("scan-bad-option", ["scan", NATIVE, "--workers", "0"], ["--workers", "'0' is less than 1"]),
    ("scan-no-arguments", ["scan"], ["DIR"]),
    ("guard-bad-option", ["guard", "--max-tokens", "0"], ["--max-tokens", "'0' is less than 1"]),
    ("guard-install-bad-path", ["guard", "install", "--project", "{tmp}/nope", "--yes"],
     ["--project", "{tmp}/nope: no such folder"]),
    ("guard-install-bad-option", ["guard", "install", "--agent", "nobody"], ["--agent", "'nobody'"]),
    ("guard-uninstall-bad-path", ["guard", "uninstall", "--project", "{tmp}/nope"], ["{tmp}/nope: no such folder"]),
    ("guard-status-bad-path", ["guard", "status", "--project", "{tmp}/nope"], ["{tmp}/nope: no such folder"]),
    ("ledger-no-arguments", ["ledger"], ["{export}"]),
    ("ledger-export-bad-path", ["ledger", "export", "--trace", "{tmp}/nope.json"],
     ["{tmp}/nope.json: no such file, and not a trace's content hash"]),
    ("ledger-export-bad-option", ["ledger", "export", "--since", "x"], ["unrecognized arguments", "--since"]),
    ("unknown-command", ["frobnicate"], ["invalid choice", "'frobnicate'"]),
]  # fmt: skip

INTERNAL_NAMES = ("_density", "_megabytes", "_weights", "annotations_command", "ledger_command", "guard_command",
                  "trace_format", "report_format", "input_format", "invalid int value")  # fmt: skip


@pytest.mark.parametrize(("argv", "expected"), [case[1:] for case in BAD_INPUT], ids=[case[0] for case in BAD_INPUT])
def test_bad_input_is_one_line_naming_it_and_exit_2(tmp_path, argv, expected):
    line = one_line(run(tmp_path, *argv))
    for text in expected:
        assert text.replace("{tmp}", str(tmp_path)) in line, line
    assert not any(name in line for name in INTERNAL_NAMES), line


# A store URL that cannot work, on every command that opens the store (set, or given with --db).
BAD_STORE = [
    ("unknown-kind", "bogus://", ["INSPECTOR_DB_URL bogus://", "unknown database kind 'bogus'"]),
    ("not-a-url", "not a url", ["INSPECTOR_DB_URL: not a database URL"]),
    ("unreachable-postgresql", "postgresql+psycopg://kim:secret@127.0.0.1:1/reviews",
     ["INSPECTOR_DB_URL postgresql+psycopg://kim:***@127.0.0.1:1/reviews", "cannot open the review store"]),
    ("sqlite-in-a-missing-folder", "sqlite:///{tmp}/missing/inspector.db", ["cannot open the review store"]),
]  # fmt: skip
STORE_COMMANDS = [
    ["annotations", "export"], ["annotations", "report", NATIVE], ["report", NATIVE], ["ledger", "export"],
    ["refresh", NATIVE, "--at", "2", "--record"],
]  # fmt: skip


@pytest.mark.parametrize("argv", STORE_COMMANDS, ids=lambda argv: "-".join(a for a in argv if "/" not in a))
@pytest.mark.parametrize(("url", "expected"), [c[1:] for c in BAD_STORE], ids=[c[0] for c in BAD_STORE])
def test_a_store_that_cannot_open_is_one_line_without_its_password(tmp_path, argv, url, expected):
    line = one_line(run(tmp_path, *argv, env={"INSPECTOR_DB_URL": url.replace("{tmp}", str(tmp_path))}))
    assert all(text in line for text in expected), line
    assert "secret" not in line and "sqlalche.me" not in line


def test_db_option_is_named_when_it_is_the_bad_url(tmp_path):
    line = one_line(run(tmp_path, "annotations", "--db", "bogus://", "export"))
    assert line.startswith("--db bogus://: unknown database kind")


def test_version(tmp_path):
    result = run(tmp_path, "--version")
    assert result.returncode == 0 and result.stdout == f"compaction-inspector {version('compaction-inspector')}\n"


def _options(parser):  # type: ignore[no-untyped-def]
    for action in parser._actions:  # noqa: SLF001  (argparse keeps its options nowhere public)
        if action.option_strings:
            yield parser.prog, action
        for sub in (action.choices or {}).values() if hasattr(action, "add_parser") else ():
            yield from _options(sub)


def test_every_option_has_help_except_the_hidden_old_spellings():
    options = list(_options(build_parser()))
    assert len(options) > 40
    missing = [f"{prog} {action.option_strings[0]}" for prog, action in options if not action.help]
    assert missing == []
    hidden = {(prog, action.option_strings[0]) for prog, action in options if action.help == DEPRECATED_HELP}
    assert hidden == {("compaction-inspector report", "--trace-format")}


def test_format_is_the_output_and_json_its_short_form(tmp_path):
    long, short = run(tmp_path, "check", "--format", "json", NATIVE), run(tmp_path, "check", "--json", NATIVE)
    assert long.returncode == short.returncode == 1 and long.stdout == short.stdout
    assert json.loads(long.stdout)["format"] == "native" and long.stderr == ""


@pytest.mark.parametrize(
    ("argv", "old"),
    [
        (["check", "--format", "native", NATIVE], "--format native for the input format"),
        (["refresh", NATIVE, "--at", "2", "--format", "native"], "--format native for the input format"),
        (["policies", NATIVE, "--format", "native"], "--format native for the input format"),
        (["annotations", "report", NATIVE, "--format", "native"], "--format native for the input format"),
        (["report", NATIVE, "--trace-format", "native", "--no-store"], "--trace-format"),
    ],
    ids=["check", "refresh", "policies", "annotations-report", "report"],
)
def test_old_input_format_spellings_still_work_with_one_deprecation_line(tmp_path, argv, old):
    old_way = run(tmp_path, *argv)
    new_way = run(tmp_path, *(["--input-format" if a in ("--format", "--trace-format") else a for a in argv]))
    assert old_way.stdout == new_way.stdout and old_way.returncode == new_way.returncode
    assert old_way.stderr.splitlines() == [f"compaction-inspector: {old} is deprecated; use --input-format"
                                           + (" native" if old.startswith("--format") else "")]  # fmt: skip
    assert new_way.stderr == ""


def test_deprecated_input_format_that_does_not_fit_still_says_what_the_file_is(tmp_path):
    result = run(tmp_path, "check", "--format", "codex", NATIVE)
    deprecation, error = result.stderr.splitlines()
    assert result.returncode == 2 and "deprecated" in deprecation and "not a Codex CLI rollout" in error


def test_trace_means_a_file_or_its_hash_in_both_exports(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    Store(f"sqlite:///{data / 'inspector.db'}").annotations.add(content_hash(Path(NATIVE)), Target("generation",
                                                                generation=2), "confirmed", "", "kim")  # fmt: skip
    assert run(tmp_path, "refresh", NATIVE, "--at", "2", "--record").returncode == 0
    digest = content_hash(Path(NATIVE))
    for command in (["annotations", "export"], ["ledger", "export"]):
        by_path, by_hash = (run(tmp_path, *command, "--trace", given) for given in (NATIVE, digest))
        assert by_path.returncode == by_hash.returncode == 0
        assert by_path.stdout == by_hash.stdout and len(by_path.stdout.splitlines()) == 1
        other = run(tmp_path, *command, "--trace", "0" * 32)
        assert other.returncode == 0 and other.stdout == ""


def test_refresh_record_says_what_it_recorded(tmp_path):
    result = run(tmp_path, "refresh", NATIVE, "--at", "2", "--record", "--by", "kim")
    first = result.stdout.splitlines()[0]
    assert result.returncode == 0
    assert first.startswith("recorded 1 correction for S2 by kim in the corrections ledger (")
    assert str(tmp_path / "data" / "inspector.db") in first
    as_json = run(tmp_path, "refresh", NATIVE, "--at", "2", "--record", "--json")
    assert json.loads(as_json.stdout)["generation"] == 2 and as_json.stderr.startswith("recorded 1 correction")


def test_an_empty_export_says_so_on_stderr_and_still_writes_the_empty_export(tmp_path):
    result = run(tmp_path, "annotations", "export")
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.startswith("no annotations in the review store (sqlite:///")
    as_csv = run(tmp_path, "annotations", "export", "--format", "csv", "-o", "{tmp}/a.csv")
    assert as_csv.returncode == 0 and "no annotations" in as_csv.stderr
    assert (tmp_path / "a.csv").read_text().startswith("id,trace_hash")


def test_counts_are_in_the_singular_when_there_is_one(tmp_path):
    document = json.loads(Path(NATIVE).read_text())
    document["generations"] = document["generations"][:3]  # S3, which loses the prohibition, is cut
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "one.json").write_text(json.dumps(document))
    (folder / "notes.md").write_text("not a session")
    checked = run(tmp_path, "check", str(folder / "one.json"))
    assert "3 generations" in checked.stdout and "findings: 1 error, 0 warnings, 0 info" in checked.stdout
    refreshed = run(tmp_path, "refresh", NATIVE, "--at", "2")
    assert "re-read 1 record (~" in refreshed.stdout and "tokens), 1 correction\n" in refreshed.stdout
    scanned = run(tmp_path, "scan", str(folder), "--workers", "1")
    assert "1 file: 1 fail, 0 pass, 0 unreadable; 1 other file skipped" in scanned.stdout


def test_markdown_report_title_is_a_heading_not_code(tmp_path):
    title = run(tmp_path, "report", NATIVE, "--format", "md", "--no-store").stdout.splitlines()[0]
    assert title == r"# Review: The staging DB is read\-only\: kept\, paraphrased\, then forgotten"


def test_check_table_values_start_under_their_headers(tmp_path):
    lines = run(tmp_path, "check", str(SAMPLES / "anchor_decay.json")).stdout.splitlines()
    header = next(line for line in lines if line.startswith("gen "))
    starts = [header.index(name) for name in ("gen", "kind", "density", "anchors", "anaphora", "fidelity")]
    rows = [line for line in lines if line[:2] in ("S0", "S1", "S2", "S3")][:4]
    assert len(rows) == 4
    for row in rows:  # a value begins at each header's first character
        assert all(row[s] != " " and (s == 0 or row[s - 1] == " ") for s in starts), [header, row]


def test_policies_table_values_end_under_their_headers(tmp_path):
    lines = run(tmp_path, "policies", str(SAMPLES / "five_item_synthetic.json")).stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("refresh"))
    ends = [i for i, c in enumerate(header) if c != " " and (i + 1 == len(header) or header[i + 1] == " ")]
    rows = [line for line in lines[lines.index(header) + 1 :] if line.startswith("S")]
    assert len(rows) == 6
    for row in rows:  # a value ends where its header ends, or one before the silent-drift mark after it
        cells = [i for i, c in enumerate(row) if c not in " *" and (i + 1 == len(row) or row[i + 1] in " *")]
        assert cells[1:] == ends, [header, row]


def test_guard_with_no_arguments_is_the_hook_and_never_fails_the_session(tmp_path):
    result = run(tmp_path, "guard", stdin="")
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_make_demo_says_exit_1_is_expected_instead_of_an_ignored_error(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    script = venv / "bin" / "compaction-inspector"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m inspector "$@"\n')
    script.chmod(0o755)
    (venv / ".installed-app").touch()  # and -o below: make must never install into this (or any) venv
    result = subprocess.run(["make", "-s", "-o", f"{venv}/.installed-app", "demo", f"VENV={venv}"],
                            capture_output=True, text=True, cwd=REPO, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Error" not in result.stderr and "ignored" not in result.stderr
    assert result.stdout.rstrip().splitlines()[-1].startswith("demo: exit status 1, as expected")
