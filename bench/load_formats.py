"""Load time of the readers that are not line files, on their test fixtures scaled up (a script, never a test).

    python bench/load_formats.py --data /tmp/scaled [--repo .] [--copies 300] [--repeat 5]

The Inspect AI sample, the opencode session (database and export) and the OpenHands conversation of
`tests/fixtures` are each repeated `--copies` times, every id renamed per copy so no turn repeats, and
written once into `--data` (kept there, so two checkouts are timed on the same files). Then
`load_trace` is timed on each, best of `--repeat`, with the inspector of `--repo`: run it once per checkout to
compare them.
Figures depend on the machine; quote them with it.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import sqlite3
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
SAMPLE = "summary"


def renamer(ids: set[str], copy: int, prefixed: bool = False) -> Callable[[str], str]:
    """Every quoted occurrence of one of `ids` in a JSON text renamed for copy `copy` (`msg_x` → `msg_0007x`
    when `prefixed`, keeping opencode's time order of ids within a copy; `x` → `x-7` otherwise)."""
    if not ids:
        return lambda text: text
    pattern = re.compile('"(' + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True)) + ')"')

    def new(match: re.Match[str]) -> str:
        old = match[1]
        return f'"{old[:4]}{copy:04d}{old[4:]}"' if prefixed else f'"{old}-{copy}"'

    return lambda text: pattern.sub(new, text)


def inspect_logs(data: Path, copies: int) -> list[Path]:
    """One `.json` log and one `.eval` zip holding the summary sample, its messages and events repeated."""
    log = json.loads((FIXTURES / "inspect_ai" / "two-samples.json").read_text())
    sample = next(s for s in log["samples"] if s["id"] == SAMPLE)
    ids = {m["id"] for m in sample["messages"] if isinstance(m.get("id"), str)}
    ids |= {c["id"] for m in sample["messages"] for c in m.get("tool_calls") or () if isinstance(c.get("id"), str)}
    body = json.dumps({"messages": sample["messages"], "events": sample["events"]})
    messages, events = [], []
    for copy in range(copies):
        part = json.loads(renamer(ids, copy)(body))
        messages += part["messages"]
        events += part["events"]
    sample = {**sample, "messages": messages, "events": events}
    log["samples"] = [sample]
    written = data / "inspect.json"
    written.write_text(json.dumps(log))
    packed = data / "inspect.eval"
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        archive.writestr(f"samples/{SAMPLE}_epoch_1.json", json.dumps(sample))
    return [written, packed]


def opencode_files(data: Path, copies: int) -> list[Path]:
    """The database with every message and part row of its session repeated, and the export likewise."""
    db = data / "opencode.db"
    shutil.copy(FIXTURES / "opencode" / "opencode.db", db)
    with sqlite3.connect(db) as connection:
        columns = "session_id, time_created, time_updated, data"
        messages = connection.execute(f"SELECT id, {columns} FROM message").fetchall()
        parts = connection.execute(f"SELECT id, message_id, {columns} FROM part").fetchall()
        calls = {c for (*_, d) in parts for c in re.findall(r'"callID":"([^"]+)"', d)}
        ids = {m[0] for m in messages} | {p[0] for p in parts}
        for copy in range(1, copies):
            rename, call = renamer(ids, copy, prefixed=True), renamer(calls, copy)
            connection.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                                   [(rename(f'"{i}"')[1:-1], s, c, u, rename(d)) for i, s, c, u, d in messages])
            connection.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                                   [(rename(f'"{i}"')[1:-1], rename(f'"{m}"')[1:-1], s, c, u, call(rename(d)))
                                    for i, m, s, c, u, d in parts])  # fmt: skip
    connection.close()
    document = json.loads((FIXTURES / "opencode" / "opencode-export.json").read_text())
    body = json.dumps(document["messages"])
    ids = {m["info"]["id"] for m in document["messages"]} | {p["id"] for m in document["messages"] for p in m["parts"]}
    calls = {p["callID"] for m in document["messages"] for p in m["parts"] if "callID" in p}
    copied = (json.loads(renamer(calls, copy)(renamer(ids, copy, True)(body))) for copy in range(copies))
    document["messages"] = [message for messages in copied for message in messages]
    export = data / "opencode-export.json"
    export.write_text(json.dumps(document, indent=2))
    return [db, export]


def openhands_folder(data: Path, copies: int) -> list[Path]:
    """The conversation with its events repeated under new indices and ids."""
    source = FIXTURES / "openhands" / "conversation"
    target = data / "openhands"
    (target / "events").mkdir(parents=True)
    shutil.copy(source / "base_state.json", target / "base_state.json")
    files = sorted((source / "events").glob("event-*.json"))
    texts = [f.read_text() for f in files]
    ids = {f.name.split("-", 2)[2].removesuffix(".json") for f in files}
    ids |= {c for t in texts for c in re.findall(r'"tool_call_id":"([^"]+)"', t)}
    index = 0
    for copy in range(copies):
        rename = renamer(ids, copy)
        for file, text in zip(files, texts, strict=True):
            event_id = file.name.split("-", 2)[2].removesuffix(".json")
            (target / "events" / f"event-{index:05d}-{event_id}-{copy}.json").write_text(rename(text))
            index += 1
    return [target]


def timed(action: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="where the scaled fixtures are written and kept")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1], help="the checkout to time")
    parser.add_argument("--copies", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not args.data.exists():
        args.data.mkdir(parents=True)
        for make in (inspect_logs, opencode_files, openhands_folder):
            make(args.data, args.copies)
    sys.path.insert(0, str(args.repo.resolve()))
    from inspector.readers import load_trace

    print(f"{args.repo} on {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"best of {args.repeat}")  # fmt: skip
    for path in (args.data / name for name in ("inspect.json", "inspect.eval", "opencode.db", "opencode-export.json",
                                               "openhands")):  # fmt: skip
        trace = load_trace(path)  # and warm the file cache
        size = sum(f.stat().st_size for f in path.rglob("*")) if path.is_dir() else path.stat().st_size
        best = timed(lambda p=path: load_trace(p), args.repeat)
        print(f"{path.name:22} {size / 2**20:7.1f} MB {len(trace.sources):7,} records  load {best:.3f} s")


if __name__ == "__main__":
    main()
