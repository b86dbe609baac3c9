"""Benchmark: `check` on a native trace of 50 generations × 5,000 words (a script, never a test).

    python bench/bench_check.py [--generations 50] [--words 5000] [--repeat 3]

Prints load, analyse and end-to-end CLI times. Figures depend on the machine; quote them with it.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.generate import native_trace  # noqa: E402
from inspector import analyze, load_trace  # noqa: E402
from inspector.model import Trace  # noqa: E402
from inspector.readers import native  # noqa: E402


def build_trace(generations: int, words: int, seed: int = 7) -> Trace:
    return native_trace(generations, words, seed)


def timed(action, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generations", type=int, default=50)
    parser.add_argument("--words", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.json"
        native.write(build_trace(args.generations, args.words), path)
        size_mb = path.stat().st_size / 1e6
        load_s, trace = timed(lambda: load_trace(path), args.repeat)
        analyse_s, analysis = timed(lambda: analyze(trace), args.repeat)  # type: ignore[arg-type]
        cli_s, _ = timed(
            lambda: subprocess.run(
                [sys.executable, "-m", "inspector", "check", "--json", str(path)], capture_output=True, check=False
            ),
            args.repeat,
        )
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    print(f"trace: {args.generations} generations × {args.words} words ({size_mb:.1f} MB native JSON)")
    print(f"findings: {len(analysis.findings)}, verdict {analysis.verdict}")  # type: ignore[attr-defined]
    print(f"{'step':<28}{'best of ' + str(args.repeat):>12}")
    print(f"{'load (parse + validate)':<28}{load_s:>11.2f}s")
    print(f"{'analyse (all rules)':<28}{analyse_s:>11.2f}s")
    print(f"{'check --json (CLI, total)':<28}{cli_s:>11.2f}s")


if __name__ == "__main__":
    main()
