"""Compaction Inspector: load an agent's compaction chain and find where its memory broke.

The public surface is this list; everything else is an implementation module.
"""

from inspector.analysis import Analysis, analyze
from inspector.anchors import Anchor, AnchorIndex, AnchorStatus, extract_anchors, resolve_in_isolation
from inspector.elision import anchor_density, find_elisions
from inspector.errors import TraceReadError
from inspector.facts import Config, TraceFacts, compute_facts
from inspector.invariants import InvariantStatus, extract_invariants, match_invariant
from inspector.model import (
    ChainEvent,
    Finding,
    Generation,
    Invariant,
    InvariantKind,
    Severity,
    SourceQuote,
    SourceRecord,
    Trace,
)
from inspector.readers import Reader, detect_format, load_trace, register_reader
from inspector.rules import Rule, all_rules, register_rule, rule

__all__ = [
    "Analysis", "Anchor", "AnchorIndex", "AnchorStatus", "ChainEvent", "Config", "Finding", "Generation",
    "Invariant", "InvariantKind", "InvariantStatus", "Reader", "Rule", "Severity", "SourceQuote", "SourceRecord",
    "Trace", "TraceFacts", "TraceReadError", "all_rules", "analyze", "anchor_density", "compute_facts", "detect_format",
    "extract_anchors", "extract_invariants", "find_elisions", "load_trace", "match_invariant", "register_reader",
    "register_rule", "resolve_in_isolation", "rule",
]  # fmt: skip
