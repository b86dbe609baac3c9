"""Logs of a stateless API: every call re-sends the conversation so far, and each message must be read once.

A client keeps its history and sends all of it with each request (Anthropic Messages, OpenAI Responses with
`store=False`); after a compaction it may send only what follows. Messages carry no stable id across calls
(the SDK leaves unset fields out of a request, while a logged response writes them as null), so they are
compared by content with the fields that differ between the two spellings left out.
"""

from __future__ import annotations

from typing import Any

import orjson


class ResentHistory:
    """What has been read of a conversation, to tell a request's new messages from the ones sent before."""

    def __init__(self, uncompared: frozenset[str]) -> None:
        self.uncompared = uncompared
        """Fields one spelling of a message has and the other not (response-only metadata, ids)."""
        self.read: list[bytes] = []
        self.rewrites = 0
        """Requests whose messages continue neither the whole history nor its tail: the client edited it."""

    def add(self, message: Any) -> None:
        self.read.append(self.fingerprint(message))

    def fresh(self, messages: list[Any]) -> list[int]:
        """Indexes of a request's messages not read before, in order.

        The request holds the history read so far and then new messages; or, after a compaction, only the
        history from some message on. Anything else is an edited history: its never-seen messages are new.
        """
        prints = [self.fingerprint(m) for m in messages]
        if not prints:
            return []
        count = len(self.read)
        if prints[:count] == self.read:
            return list(range(count, len(prints)))
        for start in range(count - 1, -1, -1):
            if self.read[start] == prints[0] and prints[: count - start] == self.read[start:]:
                return list(range(count - start, len(prints)))
        self.rewrites += 1
        return self.unseen(messages)

    def unseen(self, messages: list[Any]) -> list[int]:
        """Indexes of the messages never read, whatever their order (a compaction listing some again)."""
        known = set(self.read)
        return [i for i, m in enumerate(messages) if self.fingerprint(m) not in known]

    def replace(self, messages: list[Any]) -> None:
        """The client's history is now these messages (a compaction's output it sends from now on)."""
        self.read = [self.fingerprint(m) for m in messages]

    def fingerprint(self, message: Any) -> bytes:
        cleaned = self._clean(message)
        try:
            return orjson.dumps(cleaned, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # an integer past 64 bits: still a value, compared as text
            return repr(cleaned).encode()

    def _clean(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self._clean(v) for k, v in value.items() if v is not None and k not in self.uncompared}
        if isinstance(value, list):
            return [self._clean(v) for v in value]
        return value


__all__ = ["ResentHistory"]
