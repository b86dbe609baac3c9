"""What happened after each loss the gold labels name: every item a blind reader marked lost or weakened in a summary
is checked for a consequence, whether or not `check` reported the loss.

`check` looks for consequences only behind the losses it finds itself, so its count says nothing of the losses it
missed. This reads the gold instead: for each (item, summary) the gold calls lost or weakened, the session item whose
words are the gold's quote (or, where the session holds none, the gold's own item at the record it names), then
`consequences.consequence_of` on it at that summary. It prints one line per gold loss and a total, for the reader to
check each consequence against the log. Usage: `python bench/consequence_gold.py FOLDER…` (the labelled folders by
default); the session logs stay where they are.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rapidfuzz import fuzz

from inspector.analysis import analyze
from inspector.consequences import consequence_of
from inspector.facts import InvariantTrack, TraceFacts
from inspector.model import TRANSCRIPT, Invariant, InvariantKind
from inspector.readers import load_trace

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT.parent / "shared" / "real_traces" / "labelled", ROOT.parent / "shared" / "real_traces" / "wider")
BAD = ("lost", "weakened")
QUOTE_SIMILARITY = 90
"""How close (rapidfuzz partial ratio, 0-100) a session item's words must be to the gold's quote to be its item: the
gold quotes the log, so the item and the quote share the sentence, give or take the clipping of either."""


def item_for(gold_item: dict, tracks: list[InvariantTrack]) -> InvariantTrack | None:
    """The session item whose words are the gold's quote, or None. Not by the gold's keywords: they are made to
    match findings about the item, and a keyword such as the repository's name is in many items."""
    quote = gold_item.get("quote", "").lower()
    scored = [(fuzz.partial_ratio(quote, " ".join(filter(None, (t.invariant.text, t.invariant.quote))).lower()), t)
              for t in tracks] if quote else []  # fmt: skip
    score, track = max(scored, key=lambda pair: pair[0], default=(0, None))
    return track if score >= QUOTE_SIMILARITY else None


_RUN_KINDS = (InvariantKind.FAILURE, InvariantKind.FAILED_APPROACH)
GOLD_KINDS = {"artifact": InvariantKind.COMPLETED_ACTION, "unresolved-failure": InvariantKind.FAILURE}
"""The gold's kinds that are not the inspector's, by what they are checked as; the rest share their names."""


def as_stated(gold_item: dict, facts: TraceFacts, session: Path) -> InvariantTrack | None:
    """The gold's item as it states it (its quote, at the record it names) when the session has no item for it, so
    that every gold loss is checked, not only those the inspector mines. The record is named by its id or by its line
    in the log; None when neither is in the session."""
    line_of = _lines_of(session)
    where = str(gold_item.get("where", "")).removeprefix("L")
    at = int(where) if where.isdigit() else line_of.get(where)
    if at is None:
        return None
    kind = GOLD_KINDS.get(gold_item["kind"]) or InvariantKind(gold_item["kind"])
    results = ("tool_result", "tool_error") if kind in _RUN_KINDS else None  # a failure is its run's result
    key = next((r.key for r in facts.trace.sources if r.namespace == TRANSCRIPT
                and (results is None or r.kind in results)
                and line_of.get(r.key.split("#", 1)[0], 0) >= at), None)  # fmt: skip
    if key is None:
        return None
    invariant = Invariant(f"gold:{gold_item['id']}", kind, gold_item.get("quote", ""), key)
    return InvariantTrack(invariant, (), ())


def _lines_of(session: Path) -> dict[str, int]:
    """Each record id of a Claude Code log (its uuid, and the ids of the tool calls it holds) by its line number:
    the gold names records by either, the reader keys a tool call by its call's id."""
    found: dict[str, int] = {}
    for number, line in enumerate(session.read_bytes().splitlines(), start=1):
        record = json.loads(line)
        found.setdefault(str(record.get("uuid")), number)
        content = (record.get("message") or {}).get("content") if isinstance(record.get("message"), dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "tool_use":
                found.setdefault(str(part.get("id")), number)
    return found


def measure(session: Path, gold: dict) -> tuple[list[str], int, int, int]:
    """(lines, gold losses, losses matched to an item, consequences found) for one session."""
    facts = analyze(load_trace(session)).facts
    tracks = list(facts.invariants)
    lines, losses, matched, found = [], 0, 0, 0
    for gold_item in gold.get("items", []):
        for k, status in sorted(gold_item.get("status", {}).items()):
            if status not in BAD or int(k) >= len(facts.generations):
                continue
            losses += 1
            track = item_for(gold_item, tracks)
            where = f"{session.stem[-22:]} S{k} {gold_item['id']} ({status}, {gold_item.get('severity')})"
            if track is None:
                track = as_stated(gold_item, facts, session)
                if track is None:
                    lines.append(f"{where}: no record at {gold_item.get('where')!r}")
                    continue
                where += " [no session item: checked as the gold states it]"
            else:
                matched += 1
            consequence = consequence_of(facts, track, int(k))
            if consequence is None:
                lines.append(f"{where}: item {track.invariant.kind.value}, no consequence in the log")
                continue
            found += 1
            lines.append(f"{where}: {consequence.kind.value} at record {consequence.key}: {consequence.why}: "
                         f"“{consequence.quote[:160]}”")  # fmt: skip
    return lines, losses, matched, found


def main(argv: list[str] | None = None) -> int:
    folders = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or list(FOLDERS)
    totals = [0, 0, 0]
    for folder in folders:
        for gold_path in sorted(folder.glob("*.gold.json")):
            session = gold_path.with_name(gold_path.name.removesuffix(".gold.json") + ".jsonl")
            if not session.exists():
                continue
            lines, *counts = measure(session, json.loads(gold_path.read_text()))
            print("\n".join(lines))
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
    losses, matched, found = totals
    print(f"TOTAL: {losses} gold losses, {matched} matched to a session item (the rest checked as the gold states "
          f"them), {found} with a consequence in the log")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
