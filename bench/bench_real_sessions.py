"""How far the check on a real-sized Claude Code session is from merely parsing it.

Generates (in a temporary folder, never the repo) a synthetic Claude Code 2.x session of at least
`--mb` megabytes with a few compactions, then measures in one run:

* the floor: reading the file line by line and `orjson.loads` on each line, nothing kept;
* the check: `load_trace` + `analyze`, in a child process so its peak RSS is its own.

Usage: python bench/bench_real_sessions.py [--mb 100] [--compactions 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

SESSION = "b3a9d7e0-4c21-4f5e-9a8b-0d6e2f1c7a55"
_ASKS = ("Refactor the job runner.", "Never push to main without review; only merge via PRs.",
         "Fix the failing API test.", "Don't touch the billing tables until the audit ends.")  # fmt: skip
_CHILD = """
import json, sys, time
t0 = time.perf_counter()
from inspector.readers import load_trace
trace = load_trace(sys.argv[1])
t1 = time.perf_counter()
try:
    from inspector.analysis import analyze
except ImportError:
    analyze = None
findings = len(analyze(trace).findings) if analyze else None
t2 = time.perf_counter()
json.dump({"load": t1 - t0, "analyze": t2 - t1 if analyze else None, "sources": len(trace.sources),
           "generations": len(trace.generations), "findings": findings,
           "notices": len(trace.notices)}, open(sys.argv[2], "w"))
"""


class _Session:
    """Writes plausible 2.x records: streamed assistant pieces, tool calls and sizeable results."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0
        self.parent: str | None = None
        self.files = [f"/srv/app/{d}/{m}_{i}.py" for d in ("core", "api", "jobs", "db") for m in ("models", "views",
                      "tasks", "utils") for i in range(60)]  # fmt: skip

    def _base(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        uuid = f"{self.n:08x}-0000-4000-8000-{self.n:012x}"
        record = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": "/srv/app",
                  "sessionId": SESSION, "version": "2.0.31", "gitBranch": "main", "type": kind, **fields,
                  "uuid": uuid, "timestamp": f"2025-11-04T{self.n // 3600 % 24:02d}:{self.n // 60 % 60:02d}:"
                  f"{self.n % 60:02d}.000Z"}  # fmt: skip
        self.parent = uuid
        return record

    def _code(self, lines: int) -> str:
        rng = self.rng
        out = []
        for i in range(lines):
            pick = rng.random()
            if pick < 0.08:
                out.append(f"{i:5d}\tfrom {rng.choice(self.files)[9:-3].replace('/', '.')} import handler")
            elif pick < 0.1:
                out.append(f"{i:5d}\t# see {rng.choice(self.files)} and commit {rng.getrandbits(40):010x}")
            else:
                out.append(f"{i:5d}\t    value_{rng.randint(0, 999)} = compute(item, limit={rng.randint(1, 500)})")
        return "\n".join(out)

    def turn(self) -> list[dict[str, Any]]:
        rng = self.rng
        records = []
        ask = rng.choice(_ASKS) + f" Look at {rng.choice(self.files)}."
        records.append(self._base("user", message={"role": "user", "content": ask}))
        if rng.random() < 0.05:  # a rewind: this request and its answer end up on an abandoned branch
            fork = self.parent
            records.append(
                self._base(
                    "assistant",
                    message={
                        "id": f"msg_{self.n:010d}",
                        "role": "assistant",
                        "content": [{"type": "text", "text": "On it."}],
                    },
                )
            )
            self.parent = fork
            records.append(self._base("user", message={"role": "user", "content": "No, wait. " + ask}))
        if rng.random() < 0.1:  # a sub-agent's records, interleaved on their own sidechain
            main = self.parent
            self.parent = None
            for _ in range(3):
                records.append(
                    self._base("user", isSidechain=True, message={"role": "user", "content": "Search for callers."})
                )
            self.parent = main
        for step in range(rng.randint(4, 25)):
            message_id = f"msg_{self.n:010d}"
            tool_id = f"toolu_{self.n:012d}"
            path = rng.choice(self.files)
            tool = rng.choice(["Read", "Read", "Bash", "Edit"])
            inputs = {"Read": {"file_path": path},
                      "Bash": {"command": rng.choice([f"pytest {path} -q", "git status", "git commit -am 'wip'"])},
                      "Edit": {"file_path": path, "old_string": "a = 1", "new_string": "a = 2"}}[tool]  # fmt: skip
            thinking = {"type": "thinking", "thinking": "Considering the next step. " * 20, "signature": "sig"}
            pieces = [[thinking], [{"type": "text", "text": f"Step {step}: checking {path}."}],
                      [{"type": "tool_use", "id": tool_id, "name": tool, "input": inputs}]]  # fmt: skip
            for blocks in pieces:
                records.append(self._base("assistant", requestId=f"req_{message_id}", message={
                    "id": message_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": blocks, "usage": {"input_tokens": 4, "output_tokens": 60}}))  # fmt: skip
            error = rng.random() < 0.05
            body = self._code(rng.randint(20, 400)) if tool == "Read" else "ok\n" + self._code(rng.randint(2, 30))
            block = {"type": "tool_result", "tool_use_id": tool_id, "content": body, "is_error": error}
            records.append(self._base("user", message={"role": "user", "content": [block]},
                                      toolUseResult={"stdout": body, "stderr": "", "interrupted": False}))  # fmt: skip
        return records

    def compaction(self, index: int) -> list[dict[str, Any]]:
        logical = self.parent
        self.parent = None
        metadata = {"trigger": "auto", "preTokens": 160_000, "postTokens": 9_000}
        boundary = self._base("system", subtype="compact_boundary", content="Conversation compacted",
                              logicalParentUuid=logical, compactMetadata=metadata)  # fmt: skip
        summary = (f"Summary {index}: Never push to main without review. Worked on {self.rng.choice(self.files)} "
                   f"and {self.rng.choice(self.files)}; tests in /srv/app/tests/test_api.py pass.")  # fmt: skip
        return [boundary, self._base("user", isCompactSummary=True, message={"role": "user", "content": summary})]


def generate(path: Path, megabytes: int, compactions: int, seed: int) -> int:
    session = _Session(random.Random(seed))
    target = megabytes * 1024 * 1024
    marks = [target * (k + 1) // (compactions + 1) for k in range(compactions)]
    written = 0
    with path.open("wb") as out:
        while written < target:
            records = session.turn()
            if marks and written >= marks[0]:
                marks.pop(0)
                records += session.compaction(compactions - len(marks))
            chunk = b"".join(orjson.dumps(r) + b"\n" for r in records)
            out.write(chunk)
            written += len(chunk)
    return written


def floor(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as stream:
        for line in stream:
            orjson.loads(line)
    return time.perf_counter() - start


def check(path: Path) -> tuple[dict[str, Any], float, float]:
    """Run load_trace + analyze in a child; return its timings, wall time and peak RSS (MB)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as result:
        result_path = Path(result.name)
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{repo}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), str(result_path)], env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"the check failed in the child process (exit {child.returncode})")
    timings = json.loads(result_path.read_text())
    result_path.unlink()
    return timings, wall, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="size of the generated session (default 100)")
    parser.add_argument("--compactions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="write the session into this folder and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{SESSION}.jsonl"
        started = time.perf_counter()
        size = generate(path, args.mb, args.compactions, args.seed)
        print(f"generated {size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s: {path}")
        floor_s = floor(path)
        timings, wall, peak = check(path)
    mb = size / 1e6
    rows = [("floor: orjson per line", floor_s, "-"), ("load_trace", timings["load"], "-")]
    if timings["analyze"] is not None:
        rows.append(("analyze", timings["analyze"], "-"))
    checked = timings["load"] + (timings["analyze"] or 0.0)
    rows.append(("check: load + analyze", checked, f"{peak:.0f}"))
    print(f"\n{'stage':<26}{'seconds':>9}{'MB/s':>9}{'peak RSS MB':>13}")
    for name, seconds, rss in rows:
        print(f"{name:<26}{seconds:>9.2f}{mb / seconds:>9.1f}{rss:>13}")
    print(f"\ncheck / floor = {checked / floor_s:.1f}x   (child wall time {wall:.2f} s incl. imports)")
    print(f"sources {timings['sources']}, generations {timings['generations']}, findings {timings['findings']}, "
          f"reader notices {timings['notices']}")  # fmt: skip
    if timings["analyze"] is None:
        print("inspector.analysis is not importable: the check row is load_trace alone")


if __name__ == "__main__":
    main()
