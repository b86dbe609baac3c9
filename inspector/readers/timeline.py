"""What a reader puts on a transcript's timeline, in log order: turns, compactions, mentions, events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Turn:
    """One raw transcript record on the surviving chain; mutable until `build` freezes it."""

    key: str
    kind: str
    """user, assistant, tool_call, tool_result or tool_error."""
    authority: str
    text: str
    timestamp: str | None = None
    tool: str | None = None
    tool_input: Any = None
    call_id: str | None = None
    ok: bool | None = None
    """For a tool call: did it succeed (None while no result says)."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Compaction:
    """A compaction point: the summary that became the next generation, or why it is missing."""

    text: str | None
    line: int | None = None
    trigger: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    timestamp: str | None = None
    unavailable: str | None = None
    """Why `text` is None, shown in the summary-unavailable notice."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Mention:
    """A file or other key the log names outside any turn (an attachment, a patch event)."""

    namespace: str
    key: str
    action: str
    timestamp: str | None


@dataclass(slots=True)
class Event:
    """A chain event the log records between turns (a microcompaction, a rewind)."""

    kind: str
    description: str
    timestamp: str | None



@dataclass(slots=True)
class TokenWatch:
    """The prompt size before each compaction and the first one after it, from the usage a log records turn by
    turn (Codex, Gemini CLI, opencode, LangChain): one bookkeeping for every reader that has it."""

    last: int | None = None
    """The latest prompt size: a compaction made now shrank it from this."""
    awaiting: Compaction | None = None
    """The latest compaction, until a usage record says what its context measured after."""

    def usage(self, prompt_tokens: int | None) -> None:
        """A prompt size seen in the log (0 or None is no measurement: skipped)."""
        if not prompt_tokens:
            return
        self.last = prompt_tokens
        if self.awaiting is not None:
            self.awaiting.tokens_after = prompt_tokens
            self.awaiting = None

    def compacted(self, compaction: Compaction) -> None:
        """A compaction was made (its `tokens_before` taken from `last` already): wait for its size after."""
        self.awaiting = compaction
        self.last = None

__all__ = ["Compaction", "Event", "Mention", "TokenWatch", "Turn"]
