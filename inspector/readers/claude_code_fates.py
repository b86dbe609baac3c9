"""What became of each record of a Claude Code log: one name per fate.

A reader that drops records silently hides what compaction lost behind what the reader lost, so the
Claude Code reader names what it sets aside, and counts it.
"""

from __future__ import annotations

PROGRESS = "progress"
"""A running tool's or hook's progress: bookkeeping, on the chain or off it."""

# Set aside.
SIDECHAIN = "sidechain"
"""A sub-agent's records in the main log (its own log reads on its own)."""
SUPERSEDED = "superseded_branch"
"""On a branch the session left: a prompt edited or rewound to, a session resumed from an earlier point."""
UNREACHED = "unreached"
"""Off the chain, and no record of the surviving conversation leads to it (its parent is not in the log)."""
DUPLICATE = "duplicate_uuid"
"""Written again under a uuid the log already holds (anthropics/claude-code#92089, resumes): read once."""


__all__ = ["DUPLICATE", "PROGRESS", "SIDECHAIN", "SUPERSEDED", "UNREACHED"]
