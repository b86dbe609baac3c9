"""What the guard's command line offers: the agents it installs into, and the default cap of what it gives back.

A module of its own so that the command line can offer them to every command without loading the hook's process
(`guard`: subprocess, signal) or the installer (`guard_install`: difflib, tomllib, the settings editors), about 10 ms
of every `check`."""

from __future__ import annotations

AGENTS = ("claude-code", "codex", "opencode")
"""The agents `guard install` writes the hook into."""
MAX_TOKENS = 1250
"""Default length cap of what is given back (about four characters a token): half of what either agent shows its
model whole (Codex about 2,500 tokens a handler, Claude Code 10,000 characters), which leaves the other hooks a
session runs the rest, and holds what a summary of a long session drops (a dozen lines of about 300 characters:
entirecli_1e0816ef's S2 dropped eleven of the user's statements and seven commits)."""


__all__ = ["AGENTS", "MAX_TOKENS"]
