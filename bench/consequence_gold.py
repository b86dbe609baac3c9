"""What happened after each loss the gold labels name: every item a blind reader marked lost or weakened in a summary
is looked up among the session's items and checked for a consequence, whether or not `check` reported the loss.

`check` looks for consequences only behind the losses it finds itself, so its count says nothing of the losses it
missed. This reads the gold instead: for each (item, summary) the gold calls lost or weakened, the session item whose
words the gold's quote or keywords name, then `consequences.consequence_of` on it at that summary. It prints one line
per gold loss (its item, or why none was found, and the consequence, if any) and a total, for the reader to check
each consequence against the log. Usage: `python bench/consequence_gold.py FOLDER…` (the labelled folders by
default); the session logs stay where they are.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rapidfuzz import fuzz

from inspector.analysis import analyze
from inspector.consequences import consequence_of
from inspector.facts import InvariantTrack
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
                lines.append(f"{where}: no session item holds it")
                continue
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
    print(f"TOTAL: {losses} gold losses, {matched} matched to a session item, {found} with a consequence in the log")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
