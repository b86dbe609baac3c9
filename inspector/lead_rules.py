"""The rules an agent team's lead set a teammate: in the teammate's own log, what its brief forbids.

A teammate works from the lead's brief as a session works from the user's prompt: "RULES: … Do NOT downgrade any
package version.", "DO NOT modify .golangci.yml". No person typed it (the lead is an agent, relaying what the user
asked of the team), so it is never the user's statement; but a teammate's summary that drops one of its rules lets
the next agent break it, as one that drops an issue's acceptance criterion lets it call the task done without it
(`task_spec`). The reader gives the lead's words (`extra["lead_said"]`); each line of them that forbids is a rule.

Only prohibitions: a brief is mostly its task's steps ("Run `pkg_add -v <packages>` on the remote host", "Add the
keys …"), which the work carries out and a summary tells as done, not as asked; what it forbids stands for the whole
session. A line that is a quoted string (an i18n key and its text: "Cannot delete the last profile.") is the brief's
content, not its rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.presence import topic_terms
from inspector.statements import statement_kind

LEAD_PREFIX = "lead-rule:"
"""How the id of a rule the team lead set begins."""
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_QUOTED = re.compile(r"""^["'`]""")
"""A line of the brief that opens as a quoted string: content it hands over (a key and its text), not a rule."""


def lead_rule_items(records: Sequence[SourceRecord], config: Config = DEFAULT_CONFIG) -> Iterator[Invariant]:
    """Each line of the lead's words that forbids, once per wording, as an item of the task the teammate was set."""
    seen: set[str] = set()
    for record in records:
        said = record.extra.get("lead_said") if record.namespace == TRANSCRIPT else None
        if not isinstance(said, list):
            continue
        lines = (_BULLET.sub("", line).strip() for body in said if isinstance(body, str) for line in body.splitlines())
        for number, line in enumerate(lines):
            if not line or _QUOTED.match(line) or len(line) > config.statement_chars or line.lower() in seen:
                continue
            if statement_kind(line) is InvariantKind.USER_CONSTRAINT and len(topic_terms(line)) >= config.min_terms:
                seen.add(line.lower())
                yield Invariant(f"{LEAD_PREFIX}{record.key}#{number}", InvariantKind.TASK_CRITERION, line, record.key)


__all__ = ["LEAD_PREFIX", "lead_rule_items"]
