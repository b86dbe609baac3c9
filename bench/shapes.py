"""Every command a user waits for, as a whole process, on sessions shaped like real ones, beside the parse floor.

    python bench/shapes.py [--shapes 4x3,30x110,100x364,105x4] [--write FILE]   (part of make bench)

A shape is MB × summaries: Claude Code sessions from `bench/generate.py`, whose summaries are of real size (6 to 24
KB, Claude Code's nine sections), so a session of many compactions carries megabytes of summary text, which is what
the analysis weighs. Beside them, the real sessions of ../shared of about 4 MB when present. For each session, best
of three fresh processes (interpreter start and imports in):

* floor: start Python, `orjson.loads` every line, keep nothing;
* `check --json`, `report -o FILE.html --no-store`, `scan FILE --out FILE.json --workers 1 --no-cache`, each with
  an empty cache folder of its own: a first look at the session; and the peak resident memory of one more first look
  of `check` and of `report`;
* `guard` as Claude Code runs it after the last compaction (the session cut just after its last summary, the
  hook's JSON on stdin), first with a cache folder of its own each run, as at a session's first compaction: best
  and worst of three, then worst of three again beside a CPU-bound process, so that both cores are busy; then as at
  a later compaction, after the guard ran at the compaction before (for a large log, its reading kept), best and
  worst of three, and worst of three beside the CPU-bound process; each run's copy that keeps its reading of a
  large log is waited for before the next run starts;

The package is byte-compiled first, as installing it does: a clone's editable install writes its `.pyc` files on
first import, unless `PYTHONDONTWRITEBYTECODE` is set (it is on this project's machines), and then every process
compiles every module from source, about 70 ms of the guard's 0.4 s that no installed copy pays.
* the two transcript viewers people use, `claude-code-log FILE -o FILE.html` and `claude-code-transcripts json FILE
  -o DIR` (the `bench` extra installs both), on the same file.

Generated sessions go to a temporary folder, never the repository.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
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
_PEAK = """
import os, sys
pid = os.fork()
if pid == 0:
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.execv(sys.argv[1], sys.argv[1:])
print(os.wait4(pid, 0)[2].ru_maxrss)
"""
"""Start the command from a process of its own and print its peak resident memory (KB, Linux's unit): a child keeps
its parent's peak across exec, and this bench's own process holds the sessions it generates and cuts."""


def byte_compile() -> None:
    """Write the package's `.pyc` files, as `pip install` does (the module docstring says why)."""
    compileall.compile_dir(REPO / "inspector", quiet=1)


def fresh_cache(folder: Path, kept: Path | None = None) -> str:
    """A new cache folder holding a copy of what `kept` holds (where an earlier run's reading of a large log stopped:
    `kept_readings`), else nothing."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=folder))
    if kept is not None and (kept / "readings").is_dir():
        shutil.copytree(kept / "readings", cache / "readings")
    return str(cache)


def timed(command: list[str], stdin: str | None = None, env: dict[str, str] | None = None, runs: int = 3,
          fresh: tuple[Path, Path | None] | None = None, log: Path | None = None
          ) -> list[float]:  # fmt: skip
    """Wall-clock seconds of `runs` fresh processes of `command`; with `fresh` (a folder and a cache folder to copy,
    or None), each in a cache folder of its own (`fresh_cache`). With the guard's `log`,
    each run's copy that keeps its reading of a large log is waited for, untimed, before the next run starts: it
    runs after the hook's process ends, and would otherwise share the machine with the next run."""
    times = []
    for _ in range(runs):
        run_env = dict(env or os.environ)
        if fresh is not None:
            run_env["INSPECTOR_CACHE_DIR"] = fresh_cache(*fresh)
        start = time.perf_counter()
        subprocess.run(command, input=stdin, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=run_env, check=False)  # fmt: skip
        times.append(time.perf_counter() - start)
        if log is not None and "INSPECTOR_CACHE_DIR" in run_env:
            _await_reading(Path(run_env["INSPECTOR_CACHE_DIR"]), log, fresh_state=True)
    return times


def peak_mb(command: list[str], folder: Path) -> float:
    """Peak resident memory of one fresh process of `command` as a first look (a cache folder of its own), in MB."""
    env = {**os.environ, "INSPECTOR_CACHE_DIR": fresh_cache(folder)}
    done = subprocess.run([sys.executable, "-c", _PEAK, *command], env=env, capture_output=True, text=True,
                          check=True)  # fmt: skip
    return int(done.stdout.split()[-1]) / 1024


def cuts(session: Path, folder: Path) -> tuple[Path, Path]:
    """The session as it stands when the PreCompact hook fires before its last compaction (cut before the
    compaction's boundary, or its summary where there is none), and when the SessionStart hook fires after it
    (cut just after its last summary)."""
    lines = session.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if b'"isCompactSummary":true' in line or
               b'"isCompactSummary": true' in line)  # fmt: skip
    before = max((i for i in range(last) if b'"compact_boundary"' in lines[i]), default=last)
    found = []
    for name, end in (("before-last-compaction", before), ("at-last-compaction", last + 1)):
        cut = folder / f"{session.stem}.{name}.jsonl"
        cut.write_bytes(b"".join(lines[:end]))
        found.append(cut)
    return found[0], found[1]


def _hook(cut: Path, event: str) -> str:
    extra = {"source": "compact"} if event == "SessionStart" else {"trigger": "auto"}
    return json.dumps({"session_id": "bench", "transcript_path": str(cut), "hook_event_name": event, **extra})


def guard_times(session: Path, folder: Path) -> dict[str, float]:
    before, after = cuts(session, folder)
    stdin = _hook(after, "SessionStart")
    data = folder / f"guard-data-{session.stem}"  # its own log: whether this session's check was cut short
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(data)}
    command = [str(INSPECTOR), "guard"]
    quiet = timed(command, stdin, env, fresh=(folder, None), log=after)
    with _busy():
        loaded = timed(command, stdin, env, fresh=(folder, None), log=after)
    # As the guard runs once installed: its PreCompact hook read the log just before the summary was written, and
    # for a large log, kept where its reading stopped; each timed run starts from a copy of what that run kept.
    # One file that grows, as the session's log does: what a reading kept holds for that file alone.
    warmed, growing = Path(fresh_cache(folder)), folder / f"{session.stem}.growing.jsonl"
    growing.write_bytes(before.read_bytes())
    subprocess.run(command, input=_hook(growing, "PreCompact"), text=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env={**env, "INSPECTOR_CACHE_DIR": str(warmed)}, check=False)  # fmt: skip
    _await_reading(warmed, growing)
    with growing.open("ab") as out:
        out.write(after.read_bytes()[growing.stat().st_size :])
    warm = timed(command, _hook(growing, "SessionStart"), env, fresh=(folder, warmed), log=growing)
    with _busy():
        warm_loaded = timed(command, _hook(growing, "SessionStart"), env, fresh=(folder, warmed), log=growing)
    log = data / "guard.log"
    cut_short = log.is_file() and "cut short" in log.read_text()
    return {"guard": min(quiet), "guard_worst": max(quiet), "guard_busy_worst": max(loaded), "guard_warm": min(warm),
            "guard_warm_worst": max(warm), "guard_warm_busy_worst": max(warm_loaded),
            "cut_short": cut_short}  # fmt: skip


@contextlib.contextmanager
def _busy() -> Iterator[None]:
    """A CPU-bound process beside what is timed: both cores busy, as on a machine building while the agent works."""
    busy = subprocess.Popen([sys.executable, "-c", _BUSY])
    try:
        yield
    finally:
        busy.kill()
        busy.wait()


def _await_reading(cache: Path, log: Path, seconds: float = 60.0, *, fresh_state: bool = False) -> None:
    """Wait until the guard's copy that keeps its reading of a large log has written it (`kept_readings`): it runs
    after the hook's process has ended. `fresh_state`: a state newer than the run that just ended, where the cache
    may hold one from before it (a copy of an earlier run's)."""
    from inspector.kept_readings import KEPT_FROM_BYTES

    if log.stat().st_size < KEPT_FROM_BYTES:
        return
    since = time.time() - 0.5 if fresh_state else 0.0
    deadline = time.monotonic() + seconds
    while not any(state.stat().st_mtime >= since for state in (cache / "readings").glob("*.msgpack")):
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)


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
    first = (folder, None)  # a first look at the session: nothing of it kept
    floor = min(timed([sys.executable, "-c", _FLOOR, str(session)]))
    checking = [str(INSPECTOR), "check", "--json", str(session)]
    reporting = [str(INSPECTOR), "report", str(session), "-o", str(folder / "report.html"), "--no-store"]
    check = min(timed(checking, fresh=first))
    report = min(timed(reporting, fresh=first))
    scan = min(timed([str(INSPECTOR), "scan", str(session), "--out", str(folder / "fleet.json"), "--workers", "1",
                      "--no-cache"], fresh=first))  # fmt: skip
    summaries = sum(1 for line in session.open("rb") if b'"isCompactSummary":true' in line
                    or b'"isCompactSummary": true' in line)  # fmt: skip
    result = {"label": label, "mb": session.stat().st_size / 1e6, "summaries": summaries, "floor": floor,
              "check": check, "report": report, "scan": scan, "check_peak": peak_mb(checking, folder),
              "report_peak": peak_mb(reporting, folder), **guard_times(session, folder),
              **viewer_times(session, folder)}  # fmt: skip
    print(f"  {label}: floor {floor:.2f} s, check {check:.2f} s ({check / floor:.1f}×, peak "
          f"{result['check_peak']:.0f} MB), report {report:.2f} s (peak {result['report_peak']:.0f} MB), "
          f"guard {result['guard']:.2f} s (busy worst {result['guard_busy_worst']:.2f} s, after PreCompact "
          f"{result['guard_warm']:.2f} s, busy worst {result['guard_warm_busy_worst']:.2f} s)", flush=True)  # fmt: skip
    return result


def rows(shapes: list[tuple[float, int]], folder: Path) -> list[dict[str, Any]]:
    byte_compile()
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
             "Best of three fresh processes, the package byte-compiled as an install leaves it; `check`, `report`, "
             "`scan` and the first guard columns each with an empty cache folder of its own (a first look). The "
             "guard also worst of three, and worst of three beside a CPU-bound process (both cores busy); then, as "
             "it runs once installed, after its PreCompact hook read the log just before the summary was written "
             "(for a log of 16 MB or more, where its reading stopped is kept), best, worst, and worst beside the "
             "CPU-bound process. Ratios are to the parse floor as a process. Peaks are resident memory of one more "
             "first look each, started from a small process of its own (a child keeps its parent's peak).", "",
             "| session | MB | summaries | floor s | check s | check / floor | check peak MB | report s | report peak "
             "MB | scan s | guard s | guard worst s | guard worst, busy s | guard after PreCompact s (worst) | guard "
             "after PreCompact, worst busy s | claude-code-log s | claude-code-transcripts s |",
             "| --- |" + " ---: |" * 16]  # fmt: skip
    for r in found:
        busy = f"{r['guard_busy_worst']:.2f}" + (" (cut short)" if r["cut_short"] else "")
        lines.append(f"| {r['label']} | {r['mb']:.1f} | {r['summaries']} | {r['floor']:.3f} | {r['check']:.2f} | "
                     f"{r['check'] / r['floor']:.1f}× | {r['check_peak']:.0f} | {r['report']:.2f} | "
                     f"{r['report_peak']:.0f} | {r['scan']:.2f} | {r['guard']:.2f} | "
                     f"{r['guard_worst']:.2f} | {busy} | {r['guard_warm']:.2f} ({r['guard_warm_worst']:.2f}) | "
                     f"{r['guard_warm_busy_worst']:.2f} | {seconds(r['claude_code_log'])} | "
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
