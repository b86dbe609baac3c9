"""What a tool call's name and input say it does: one definition for the readers and the analyses.

A reader derives edited files and run commands from tool calls; the analyses ask whether a call was
an edit or which command it ran. Both read the same names here, so an `apply_patch` is an edit to
each of them alike.
"""

from __future__ import annotations

import shlex
from typing import Any

_EDIT_TOOLS = {"write", "edit", "multiedit", "notebookedit", "apply_patch", "str_replace_based_edit_tool",
               "str_replace_editor", "create_file", "edit_file", "write_file"}  # fmt: skip
PATH_FIELDS = ("file_path", "notebook_path", "path", "filename")
"""Tool input fields that name the file a call reads or writes."""
INSTRUCTION_FILES = frozenset(("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", ".cursorrules",
                               "copilot-instructions.md", ".windsurfrules"))  # fmt: skip
"""The instruction files agents load into a session's context themselves (Claude Code, Codex and opencode, Gemini CLI,
Cursor, Copilot, Windsurf): a summary knows them with no tool call having read them, so no record need bear them."""
_PLAN_TOOLS = {"exitplanmode"}
_SUBAGENT_TOOLS = {"task", "agent"}
_READ_ONLY_AGENTS = {"explore", "plan"}
"""Claude Code's built-in sub-agents with no tool that writes a file (code.claude.com/docs/en/sub-agents: Explore and
Plan are read-only); a custom agent, or general-purpose, may write anything."""
_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "powershell", "pwsh"}


def is_edit_tool(name: str | None) -> bool:
    """Does a tool of this name write files? One test for the readers (its paths are edited files) and the
    analyses (its calls are edits): Edit, Write, MultiEdit, apply_patch, an MCP `edit_file`, not TodoWrite."""
    lowered = (name or "").lower()
    return lowered in _EDIT_TOOLS or "edit" in lowered or ("write" in lowered and "todo" not in lowered)


def is_plan_tool(name: str | None) -> bool:
    """Does a call put a plan to the user for approval? Claude Code's ExitPlanMode: a result that is no error is
    the user's approval, a rejection comes back as the call's error."""
    return (name or "").lower() in _PLAN_TOOLS


_QUESTION_TOOL = "AskUserQuestion"


def is_question_tool(name: str | None) -> bool:
    """Does a call put questions to the user, whose answers come back as its result? Claude Code's AskUserQuestion, or
    the same tool a wrapper gives the agent through its own MCP server under the same name
    (`mcp__conductor__AskUserQuestion`: Conductor runs Claude Code in its workspaces and asks the user itself)."""
    return name == _QUESTION_TOOL or (name or "").startswith("mcp__") and name.rsplit("__", 1)[-1] == _QUESTION_TOOL


def is_subagent_tool(name: str | None) -> bool:
    """Does a call start a sub-agent, whose result is its report? Claude Code's Task (Agent since 2.1)."""
    return (name or "").lower() in _SUBAGENT_TOOLS


def may_write_through_agent(name: str | None, agent_type: str | None) -> bool:
    """Does a call start a sub-agent that may write files? Its edits are in a log of its own, which the main log may
    not hold, so what it wrote cannot be known from the main log."""
    return is_subagent_tool(name) and (agent_type or "").lower() not in _READ_ONLY_AGENTS


def command_text(value: Any) -> tuple[str | None, str | None]:
    """(command line, patch text) from a `command` field: a string, or an argv list (`bash -lc …`)."""
    if isinstance(value, str):
        return (value.strip() or None), None
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        if value[0] == "apply_patch" and len(value) > 1:
            return None, value[1]
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc", "-Command", "-l"):
            return value[2].strip() or None, None
        return shlex.join(value), None
    return None, None


__all__ = ["INSTRUCTION_FILES", "PATH_FIELDS", "command_text", "is_edit_tool", "is_plan_tool", "is_question_tool",
           "is_subagent_tool", "may_write_through_agent"]
