"""The guard on the labelled real sessions, at every compaction, as Claude Code runs it: `make guard-quality`.

Each session of ../shared/real_traces/labelled and wider is cut twice at each compaction, into a temporary folder
(the logs are never copied into the repository):

- just BEFORE it (without its boundary and summary records), and fed the `PreCompact` input: how many of the gold
  error items that compaction lost or weakened the list named, and how many lines the list held;
- just AFTER its summary, and fed the `SessionStart` input with source "compact": how many of those items were
  given back, whether anything was printed at a faithful compaction (one the labeller called faithful, or with no
  error-severity loss: the scorer's rule) and how many of its lines there were about an item the gold calls lost or
  weakened at warning severity (a loss, if not one the scorer counts), how many lines were about an item the gold
  calls kept or retired there, and how many decision lines carry what they answered.

An item is named by a line holding one of its gold keywords (the scorer's match, `score.py`, whose gold reading
this reuses; the format is GOLD-FORMAT.md). One line per compaction, then a TOTAL line.

usage: python bench/guard_quality.py   (run from the repository; needs ../shared beside it)
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SCORER = SHARED / "quality" / "score.py"
FOLDERS = (SHARED / "real_traces" / "labelled", SHARED / "real_traces" / "wider")


def scorer() -> ModuleType:
    """The shared scorer's module: its gold reading (`gold_entries`, `clean_generations`) is the one definition."""
    spec = importlib.util.spec_from_file_location("score", SCORER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compactions(lines: list[bytes]) -> list[tuple[int, int]]:
    """(where the log is cut before the compaction, where after it) for each compaction summary, in order: before
    is the first of its records (a 2.x log's compact_boundary, else the summary itself), after is past the summary."""
    found = []
    for index, raw in enumerate(lines):
        if json.loads(raw).get("isCompactSummary") is True:
            start = index
            while start > 0 and json.loads(lines[start - 1]).get("subtype") == "compact_boundary":
                start -= 1
            found.append((start, index + 1))
    return found


def hook(transcript: Path, event: str) -> str:
    """What the guard prints for one hook input, run as the hook runs (its check in a child under the limits)."""
    from inspector import guard

    fields = {"trigger": "auto", "custom_instructions": ""} if event == guard.BEFORE else {"source": "compact"}
    request = {"session_id": transcript.stem, "transcript_path": str(transcript), "cwd": str(transcript.parent),
               "hook_event_name": event, **fields}  # fmt: skip
    out = io.StringIO()
    guard.run_hook(io.StringIO(json.dumps(request)), out, log=transcript.with_suffix(".log"))
    printed = out.getvalue()
    if event == guard.BEFORE or not printed:
        return printed
    return json.loads(printed)["hookSpecificOutput"]["additionalContext"]


def entries(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def named(entry: str, keywords: list[str]) -> bool:
    return any(word and word in entry.lower() for word in keywords)


@dataclass
class Tally:
    owed: int = 0
    named_before: int = 0
    lines_before: int = 0
    given_after: int = 0
    faithful: int = 0
    printed_at_faithful: int = 0
    warned_at_faithful: int = 0
    settled_given: int = 0
    decisions: int = 0
    decisions_answered: int = 0
    rows: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("owed", "named_before", "lines_before", "given_after", "faithful", "printed_at_faithful",
                     "warned_at_faithful", "settled_given", "decisions", "decisions_answered"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))


def measure(session: Path, gold: dict, score: ModuleType, scratch: Path) -> Tally:
    """One session: a row per compaction."""
    lines = session.read_bytes().splitlines(keepends=True)
    entries_gold = score.gold_entries(gold)
    faithful = set(gold.get("faithful_generations", [])) | score.clean_generations(gold, entries_gold)
    tally = Tally()
    from inspector.guard import AFTER, BEFORE

    for k, (before, after) in enumerate(compactions(lines), start=1):
        row = Tally()
        lost = [e for e in entries_gold if e["gen"] == k and e["severity"] == "error" and e["id"][:6] != "claim-"]
        settled = [item for item in gold["items"] if item.get("status", {}).get(str(k)) in ("kept", "retired")]
        cut = scratch / f"{session.stem}.before-S{k}.jsonl"
        cut.write_bytes(b"".join(lines[:before]))
        listed = entries(hook(cut, BEFORE))
        cut = scratch / f"{session.stem}.after-S{k}.jsonl"
        cut.write_bytes(b"".join(lines[:after]))
        printed = hook(cut, AFTER)
        given = entries(printed)  # a line of its own per item; the head alone can say something (a corrupted summary)
        row.owed = len(lost)
        row.named_before = sum(any(named(line, e["keywords"]) for line in listed) for e in lost)
        row.lines_before = len(listed)
        row.given_after = sum(any(named(line, e["keywords"]) for line in given) for e in lost)
        row.faithful = int(k in faithful)
        row.printed_at_faithful = int(k in faithful and bool(printed))
        warned = [e for e in entries_gold if e["gen"] == k and e["severity"] == "warning" and e["id"][:6] != "claim-"]
        row.warned_at_faithful = sum(1 for line in given if any(named(line, e["keywords"]) for e in warned)) if (
            k in faithful) else 0  # fmt: skip
        row.settled_given = sum(1 for line in given if (about := [i for i in gold["items"] if named(line, [
            w.lower() for w in i.get("keywords", [])])]) and all(i in settled for i in about))  # fmt: skip
        decisions = [line for line in given if "(decision, " in line]
        row.decisions, row.decisions_answered = len(decisions), sum("(in reply to “" in line for line in decisions)
        quiet = "printed" if printed else "quiet"
        tally.rows.append(
            f"{session.stem} S{k}: PreCompact named {row.named_before}/{row.owed} lost error items "
            f"({row.lines_before} lines); SessionStart gave back {row.given_after}/{row.owed}, {quiet}"
            f"{f' at a faithful compaction ({row.warned_at_faithful} on warning losses)' if row.faithful else ''}, "
            f"{row.settled_given} lines about kept/retired "
            f"items, decisions with what they answered {row.decisions_answered}/{row.decisions}")
        tally.add(row)
    return tally


def own_tree() -> None:
    """Measure this repository's code, not the installed copy: from a second checkout (a worktree) `import inspector`
    and the guard's child (`python -P -c …`, which reads `PYTHONPATH`) would both find the package installed from
    another tree, and the bench would report that tree's guard under this one's name."""
    sys.path.insert(0, str(REPO))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    for name in [m for m in sys.modules if m == "inspector" or m.startswith("inspector.")]:
        del sys.modules[name]


def main(argv: list[str] | None = None) -> int:
    """`bench/guard_quality.py [GOLD_DIR …]`: the folders to measure (default: labelled/ and wider/), so the same
    measurement is taken on sessions outside ../shared that were labelled blind."""
    args = sys.argv[1:] if argv is None else argv
    folders = tuple(Path(a) for a in args) or FOLDERS
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"{missing[0]}: not a folder", file=sys.stderr)
        return 2
    if not SCORER.is_file():
        print(f"{SCORER}: not found (../shared is not beside the repository)", file=sys.stderr)
        return 2
    score = scorer()
    total = Tally()
    own_tree()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        os.environ["INSPECTOR_DATA_DIR"] = str(scratch / "data")  # the guard's store and log stay in the scratch
        os.environ.pop("INSPECTOR_DB_URL", None)
        for gold_path in sorted(p for folder in folders for p in folder.glob("*.gold.json")):
            session = gold_path.with_name(gold_path.name.removesuffix(".gold.json") + ".jsonl")
            if not session.is_file():
                print(f"{session.name}: session file not found")
                continue
            tally = measure(session, json.loads(gold_path.read_text()), score, scratch)
            for row in tally.rows:
                print(row)
            total.add(tally)
    print(f"TOTAL: PreCompact named {total.named_before}/{total.owed} lost error items ({total.lines_before} lines); "
          f"SessionStart gave back {total.given_after}/{total.owed}, printed at {total.printed_at_faithful} of "
          f"{total.faithful} faithful compactions ({total.warned_at_faithful} lines there about items the labels call "
          f"lost or weakened at warning severity), {total.settled_given} lines about kept/retired items, decisions "
          f"with what they answered {total.decisions_answered}/{total.decisions}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
