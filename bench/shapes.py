"""Every command a user waits for, as a whole process, on sessions shaped like real ones, beside the parse floor.

    python bench/shapes.py [--shapes 4x3,30x110,100x364,105x4] [--write FILE]   (part of make bench)

A shape is MB × summaries: Claude Code sessions from `bench/generate.py`, whose summaries are of real size (6 to 24
KB, Claude Code's nine sections), so a session of many compactions carries megabytes of summary text, which is what
the analysis weighs. Beside them, the real sessions of ../shared of about 4 MB when present. For each session, best
of three fresh processes (interpreter start and imports in):

* floor: start Python, `orjson.loads` every line, keep nothing;
* `check --json`, `report -o FILE.html --no-store`, `scan FILE --out FILE.json --workers 1 --no-cache`;
* `guard` as Claude Code runs it after the last compaction (the session cut just after its last summary, the
  hook's JSON on stdin): best and worst of three, then worst of three again beside a CPU-bound process, so that
  both cores are busy;
* the two transcript viewers people use, `claude-code-log FILE -o FILE.html` and `claude-code-transcripts json FILE
  -o DIR` (the `bench` extra installs both), on the same file.

Generated sessions go to a temporary folder, never the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.generate import claude_code  # noqa: E402

BIN = Path(sys.executable).parent
INSPECTOR = BIN / "compaction-inspector"
REAL = [REPO.parent / "shared" / "real_traces" / folder / name for folder, name in (
    ("wider", "claude_code_2.1.217_ohmyposh_d3cfdfe7.jsonl"),
    ("wider", "claude_code_2.1.20_entirecli_70d782f7.jsonl"))]  # fmt: skip
"""Real sessions of about 4 MB (the issue's 'real 4 MB session'), measured where ../shared is beside the clone."""
_FLOOR = """
import sys
import orjson
with open(sys.argv[1], "rb") as stream:
    for line in stream:
        if line.strip():
            orjson.loads(line)
"""
_BUSY = "while True: pass"


def timed(command: list[str], stdin: str | None = None, env: dict[str, str] | None = None,
          runs: int = 3) -> list[float]:  # fmt: skip
    """Wall-clock seconds of `runs` fresh processes of `command`."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, input=stdin, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env, check=False)  # fmt: skip
        times.append(time.perf_counter() - start)
    return times


def cut_after_last_summary(session: Path, folder: Path) -> Path:
    """The session as it stands when the SessionStart hook fires after its last compaction."""
    lines = session.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if b'"isCompactSummary":true' in line or
               b'"isCompactSummary": true' in line)  # fmt: skip
    cut = folder / f"{session.stem}.at-last-compaction.jsonl"
    cut.write_bytes(b"".join(lines[: last + 1]))
    return cut


def guard_times(session: Path, folder: Path) -> dict[str, float]:
    cut = cut_after_last_summary(session, folder)
    stdin = json.dumps({"session_id": "bench", "transcript_path": str(cut), "hook_event_name": "SessionStart",
                        "source": "compact"})  # fmt: skip
    data = folder / f"guard-data-{session.stem}"  # its own log: whether this session's check was cut short
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(data)}
    quiet = timed([str(INSPECTOR), "guard"], stdin, env)
    busy = subprocess.Popen([sys.executable, "-c", _BUSY])
    try:
        loaded = timed([str(INSPECTOR), "guard"], stdin, env)
    finally:
        busy.kill()
        busy.wait()
    log = data / "guard.log"
    cut_short = log.is_file() and "cut short" in log.read_text()
    return {"guard": min(quiet), "guard_worst": max(quiet), "guard_busy_worst": max(loaded), "cut_short": cut_short}


def viewer_times(session: Path, folder: Path) -> dict[str, float | None]:
    """The two viewers on the same file: None when the `bench` extra is not installed."""
    found: dict[str, float | None] = {}
    for name, command in (
        ("claude_code_log", [str(BIN / "claude-code-log"), str(session), "-o", str(folder / "ccl.html")]),
        ("claude_code_transcripts", [str(BIN / "claude-code-transcripts"), "json", str(session), "-o",
                                     str(folder / "cct")]),
    ):  # fmt: skip
        found[name] = min(timed(command)) if Path(command[0]).is_file() else None
    return found


def row(session: Path, label: str, folder: Path) -> dict[str, Any]:
    floor = min(timed([sys.executable, "-c", _FLOOR, str(session)]))
    check = min(timed([str(INSPECTOR), "check", "--json", str(session)]))
    report = min(timed([str(INSPECTOR), "report", str(session), "-o", str(folder / "report.html"), "--no-store"]))
    scan = min(timed([str(INSPECTOR), "scan", str(session), "--out", str(folder / "fleet.json"), "--workers", "1",
                      "--no-cache"]))  # fmt: skip
    summaries = sum(1 for line in session.open("rb") if b'"isCompactSummary":true' in line
                    or b'"isCompactSummary": true' in line)  # fmt: skip
    result = {"label": label, "mb": session.stat().st_size / 1e6, "summaries": summaries, "floor": floor,
              "check": check, "report": report, "scan": scan, **guard_times(session, folder),
              **viewer_times(session, folder)}  # fmt: skip
    print(f"  {label}: floor {floor:.2f} s, check {check:.2f} s ({check / floor:.1f}×), report {report:.2f} s, "
          f"guard {result['guard']:.2f} s (busy worst {result['guard_busy_worst']:.2f} s)", flush=True)  # fmt: skip
    return result


def rows(shapes: list[tuple[float, int]], folder: Path) -> list[dict[str, Any]]:
    found = []
    for path in REAL:
        if path.is_file():
            found.append(row(path, f"real {path.stem.rsplit('_', 2)[-2]}", folder))
    for megabytes, summaries in shapes:
        session = folder / f"claude-code-{megabytes:g}mb-{summaries}s.jsonl"
        claude_code(session, megabytes, summaries + 1)
        found.append(row(session, f"{megabytes:g} MB × {summaries} summaries", folder))
        session.unlink()
    return found


def markdown(found: list[dict[str, Any]]) -> str:
    def seconds(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    lines = ["## every command as a whole process, on real shapes (`bench/shapes.py`)", "",
             "Best of three fresh processes; the guard also worst of three, and worst of three beside a CPU-bound "
             "process (both cores busy). Ratios are to the parse floor as a process.", "",
             "| session | MB | summaries | floor s | check s | check / floor | report s | scan s | guard s | "
             "guard worst s | guard worst, busy s | claude-code-log s | claude-code-transcripts s |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for r in found:
        busy = f"{r['guard_busy_worst']:.2f}" + (" (cut short)" if r["cut_short"] else "")
        lines.append(f"| {r['label']} | {r['mb']:.1f} | {r['summaries']} | {r['floor']:.3f} | {r['check']:.2f} | "
                     f"{r['check'] / r['floor']:.1f}× | {r['report']:.2f} | {r['scan']:.2f} | {r['guard']:.2f} | "
                     f"{r['guard_worst']:.2f} | {busy} | {seconds(r['claude_code_log'])} | "
                     f"{seconds(r['claude_code_transcripts'])} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="4x3,30x110,100x364,105x4", help="MBxSUMMARIES, comma-separated")
    parser.add_argument("--write", type=Path, default=None, help="also write the table (Markdown) to this file")
    args = parser.parse_args()
    shapes = [(float(mb), int(n)) for mb, n in (shape.split("x") for shape in args.shapes.split(","))]
    folder = Path(tempfile.mkdtemp(prefix="inspector-shapes-"))
    try:
        text = markdown(rows(shapes, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(text)
    if args.write:
        args.write.write_text(text)


if __name__ == "__main__":
    main()
