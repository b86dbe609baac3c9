"""Compaction Inspector: load an agent's compaction chain and find where its memory broke.

The public surface is this list; everything else is an implementation module. Names load on first use
(PEP 562), so a command that needs one part (`compaction-inspector rules`) does not import every reader
and analysis at start-up; `from inspector import analyze` works as before.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_WHERE = {
    "inspector.analysis": ("Analysis", "analyze"),
    "inspector.anchors": ("Anchor", "AnchorIndex", "AnchorStatus", "extract_anchors", "resolve_in_isolation"),
    "inspector.elision": ("anchor_density", "find_elisions"),
    "inspector.errors": ("TraceReadError",),
    "inspector.config": ("Config",),
    "inspector.facts": ("TraceFacts", "compute_facts"),
    "inspector.invariants": ("InvariantStatus", "match_invariant"),
    "inspector.items": ("trace_items",),
    "inspector.model": ("ChainEvent", "Finding", "Generation", "Invariant", "InvariantKind", "Severity",
                        "SourceQuote", "SourceRecord", "Trace"),
    "inspector.readers": ("Reader", "detect_format", "load_trace", "register_reader"),
    "inspector.rules": ("Rule", "all_rules", "register_rule", "rule"),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = ["Analysis", "Anchor", "AnchorIndex", "AnchorStatus", "ChainEvent", "Config", "Finding", "Generation",
    "Invariant", "InvariantKind", "InvariantStatus", "Reader", "Rule", "Severity", "SourceQuote", "SourceRecord",
    "Trace", "TraceFacts", "TraceReadError", "all_rules", "analyze", "anchor_density", "compute_facts",
    "detect_format", "extract_anchors", "find_elisions", "load_trace", "match_invariant",
    "register_reader", "register_rule", "resolve_in_isolation", "rule", "trace_items"]  # fmt: skip


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'inspector' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # what a type checker and an IDE see: the same names, imported eagerly
    from inspector.analysis import Analysis, analyze
    from inspector.anchors import Anchor, AnchorIndex, AnchorStatus, extract_anchors, resolve_in_isolation
    from inspector.config import Config
    from inspector.elision import anchor_density, find_elisions
    from inspector.errors import TraceReadError
    from inspector.facts import TraceFacts, compute_facts
    from inspector.invariants import InvariantStatus, match_invariant
    from inspector.items import trace_items
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
