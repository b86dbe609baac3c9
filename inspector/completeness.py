"""Completeness claims: what a summary says about its own fidelity (first note: confidence inflation)."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.guarded_regex import guarded
from inspector.text import caseless_spans

CLAIM = guarded(
    r"\b(?:fully (?:preserved|captured|retained|intact|complete)|"
    r"(?:all|every) (?:\w+ ){0,3}(?:is|are|was|were|has been|have been) (?:preserved|complete|completed|"
    r"captured|retained|intact|kept|covered|accounted for|included)|"
    r"100\s?%|nothing (?:\w+ ){0,2}(?:was|is|has been) (?:lost|omitted|dropped)|no (?:information|details?|"
    r"context) (?:was |is |has been )?(?:lost|omitted|dropped)|complete (?:record|summary|context|history)|"
    r"comprehensive(?:ly)?|(?:everything|all context) (?:is |was |has been )?(?:preserved|retained|captured|"
    r"intact)|fully up to date|with full fidelity|lossless(?:ly)?)"
)
"""Written for lower-cased text: `caseless_spans` matches it regardless of case."""


@dataclass(frozen=True, slots=True)
class CompletenessClaim:
    text: str
    start: int
    end: int


def find_claims(text: str) -> list[CompletenessClaim]:
    return [CompletenessClaim(text[start:end], start, end) for start, end in caseless_spans(CLAIM, text)]


__all__ = ["CLAIM", "CompletenessClaim", "find_claims"]
