"""The log's figures, indexed once (`PrintedFigures`), answer exactly what scanning every earlier record for a figure's
digits answered: the scan is kept here as the reference, and both are asked about figures near and far from what
thousands of generated records print."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from inspector.model import TRANSCRIPT, SourceRecord
from inspector.printed_figures import PrintedFigures

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_RANGE_TAIL = re.compile(r"\s*(?:[-–]|to)\s*\d+(?:\.\d+)?")


def scanned(number: str, unit: str, texts: Sequence[str]) -> bool:
    """The scan `claim_evidence._printed` was before the index: every occurrence of each integer part, in every text."""
    value = float(number)
    decimals = len(number.split(".")[1]) if "." in number else 0
    tolerance = 0.5 * 10**-decimals
    units = ("x", "×", " times") if unit in "x×" else ("%", " percent")
    step = 10**-decimals
    heads = {str(int(value - tolerance)), str(int(value + tolerance)), str(int(value + step - 1e-9))}
    for text in texts:
        for head in heads:
            at = text.find(head)
            while at >= 0:
                token = _NUMBER.match(text, at)
                whole = token is not None and (at == 0 or not (text[at - 1].isdigit() or text[at - 1] == "."))
                printed = float(token.group()) if whole and token is not None else None
                if printed is not None and token is not None and (
                        abs(printed - value) <= tolerance + 1e-9 or value <= printed < value + step):  # fmt: skip
                    rest = token.end()
                    if (tail := _RANGE_TAIL.match(text, rest)) is not None:
                        rest = tail.end()
                    if text[rest : rest + 8].lstrip().startswith(units):
                        return True
                at = text.find(head, at + 1)
    return False


PIECES = ["3", "3.2", "2.96", "26.52", "0.5", "05", "1.2.3", "172.9", "50", "80", "-", "–", " to ", "x", "×", "%",
          " percent", " times", "  ", "faster", "a", ".", "v", "\n", "x3", "21.3x", "3-5×", "50-80%", "\u00a0",
          "\u2009", "\x1c", "٣", "\ud800", "é"]  # fmt: skip
FIGURES = ["3", "3.0", "2.5", "26", "26.5", "0.5", "5", "173", "21", "50", "80", "1.35", "2"]


def test_the_index_answers_as_the_scan_did_on_every_figure_and_cut():
    rng = random.Random(11)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    records = [SourceRecord(f"r{i}", text, TRANSCRIPT, "tool_result") for i, text in enumerate(texts)]
    figures = PrintedFigures(records)
    checked = found = 0
    for cut in (-1, 0, 7, 60, 400, 2999):
        for number in FIGURES:
            for unit in ("x", "×", "%"):
                expected = scanned(number, unit, texts[: cut + 1])
                assert figures.printed(number, unit, cut) is expected, (number, unit, cut)
                checked, found = checked + 1, found + expected
    assert 0 < found < checked  # both answers were asked for
