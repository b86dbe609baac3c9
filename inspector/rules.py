"""The rule registry: every detector is an entry (id, severity, explanation, check function).

The CLI's `rules` command and the app list rules from here. Built-in detectors register through `@rule`
(`inspector.rule_registry`) exactly as an outside plug-in would; listing the rules loads them first.
"""

from __future__ import annotations

from inspector.rule_registry import Check, Hit, Rule, register_rule, registered_rules, rule, unregister_rule


def all_rules() -> list[Rule]:
    import inspector.detectors  # noqa: F401  (registers the built-in rules on first use)

    return registered_rules()


def get_rule(rule_id: str) -> Rule | None:
    return next((r for r in all_rules() if r.id == rule_id), None)


__all__ = ["Check", "Hit", "Rule", "all_rules", "get_rule", "register_rule", "rule", "unregister_rule"]
