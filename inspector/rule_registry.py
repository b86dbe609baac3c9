"""The rule registry's parts: a rule (id, severity, explanation, check function), the hit a check reports,
and `@rule`, through which built-in detectors register exactly as an outside plug-in would.

Detectors import this module and nothing above it; `inspector.rules` lists the registered rules and
loads the built-in detectors first, so the registry and its detectors never import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from inspector.facts import TraceFacts
from inspector.model import Finding, Severity, SourceQuote


@dataclass(frozen=True, slots=True)
class Hit:
    """What a check reports; the registry turns it into a `Finding` with the rule's id and severity."""

    generation: int | None
    message: str
    start: int | None = None
    end: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    source: SourceQuote | None = None
    """The log record the hit is about and the sentence there that states it."""
    severity: Severity | None = None
    """This hit's severity when it differs from the rule's: an unsupported claim the next summary carries on."""


Check = Callable[[TraceFacts], Iterable[Hit]]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    explanation: str
    """One line a reviewer reads to learn why this matters."""
    check: Check
    session_severity: Severity | None = None
    """Severity on an agent's session log, when confidence differs there: the log is the whole record of
    what was said and done, but not of the files, stores and pointers a summary may name (None: as above)."""

    def severity_for(self, facts: TraceFacts) -> Severity:
        return self.session_severity if facts.session_log and self.session_severity else self.severity

    def run(self, facts: TraceFacts) -> list[Finding]:
        severity = self.severity_for(facts)
        return [
            Finding(self.id, hit.severity or severity, hit.generation, hit.message, hit.start, hit.end, hit.evidence,
                    excerpt=facts.excerpt(hit.generation, hit.start), source=hit.source)
            for hit in self.check(facts)
        ]  # fmt: skip


_RULES: dict[str, Rule] = {}


def register_rule(entry: Rule) -> Rule:
    if entry.id in _RULES:
        raise ValueError(f"a rule with id {entry.id!r} is already registered")
    _RULES[entry.id] = entry
    return entry


def unregister_rule(rule_id: str) -> None:
    """Remove a registered rule (a plug-in unloaded, a test's own rule); unknown ids are ignored."""
    _RULES.pop(rule_id, None)


def rule(
    rule_id: str, severity: Severity, explanation: str, session_severity: Severity | None = None
) -> Callable[[Check], Check]:
    """Decorator form of `register_rule` for a check function."""

    def decorate(check: Check) -> Check:
        register_rule(Rule(rule_id, severity, explanation, check, session_severity))
        return check

    return decorate


def registered_rules() -> list[Rule]:
    """The rules registered so far, in registration order (built-ins only once `inspector.detectors` is loaded)."""
    return list(_RULES.values())


__all__ = ["Check", "Hit", "Rule", "register_rule", "registered_rules", "rule", "unregister_rule"]
