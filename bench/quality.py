"""The shared scorer's line on every labelled folder, and on each half of wider/: what `make quality` prints.

A rule tuned on the sessions it is scored on says nothing about sessions nobody has read, so wider/ is split
once, by a rule that needs no judgement: its sessions sorted by name, the 1st, 3rd, 5th … are half A (the
half a rule may be developed against, its logs and reports read), the 2nd, 4th … half B (held out: read
neither its logs nor the tool's reports on it until the rule is done, then report both halves). A session
added to wider/ falls into a half by the same rule. Half B was held out until stop 37 and read from stop 38 on
(its last unread line is in issue 29's notes); the halves are still printed, so a change that helps only the half
it was read on shows, and new sessions from outside `../shared` are the held-out measurement now.

usage: python bench/quality.py [--cli CMD]   (run from the repository; needs ../shared beside it)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SCORER = SHARED / "quality" / "score.py"
REAL = SHARED / "real_traces"


def halves(folder: Path) -> tuple[list[str], list[str]]:
    """Session names (gold files' stems) of half A and half B."""
    names = sorted(p.name.removesuffix(".gold.json") for p in folder.glob("*.gold.json"))
    return names[0::2], names[1::2]


def score_line(gold_dir: Path, cli: str) -> str:
    """The scorer's closing line (precision, recall, faithful errors) on one folder."""
    result = subprocess.run([sys.executable, str(SCORER), str(gold_dir), "--cli", cli],
                            capture_output=True, text=True, cwd=REPO)  # fmt: skip
    lines = result.stdout.strip().splitlines()
    return lines[-1] if lines else f"no score (exit {result.returncode}): {result.stderr.strip()[:200]}"


def score_half(folder: Path, names: list[str], cli: str) -> str:
    """Score some of a folder's sessions, linked into a temporary folder (the logs are never copied)."""
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            for path in folder.glob(f"{name}.*"):
                (Path(scratch) / path.name).symlink_to(path.resolve())
        return score_line(Path(scratch), cli)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(REPO / ".venv" / "bin" / "compaction-inspector"))
    args = parser.parse_args()
    if not SCORER.is_file():
        print(f"{SCORER}: not found (../shared is not beside the repository)", file=sys.stderr)
        return 2
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir() and any(p.glob("*.gold.json"))):
        print(f"{folder.name}: {score_line(folder, args.cli)}")
        if folder.name == "wider":
            half_a, half_b = halves(folder)
            print(f"wider A ({len(half_a)}): {score_half(folder, half_a, args.cli)}")
            print(f"wider B ({len(half_b)}, read since stop 38): {score_half(folder, half_b, args.cli)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
