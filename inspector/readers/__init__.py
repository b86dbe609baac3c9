"""Trace readers: one registry, auto-detection by sniffing, and the built-in formats.

The built-in readers are registered here, in sniffing order, with what the registry says about each (the
README's table is checked against it). Their code is loaded on first use (`Deferred`): detection asks the
readers in order, so a Claude Code log loads the native and Claude Code readers and none of the other
nine, and every command starts that much sooner. A reader that recognises a folder or a container
(`claims`) is asked only when the path could be one: a folder, or a file with the container's magic bytes.
"""

from collections.abc import Callable
from pathlib import Path

from inspector.bounded_io import is_sqlite, is_zip
from inspector.readers.registry import (
    Deferred,
    Reader,
    detect_format,
    format_names,
    load_resuming,
    load_trace,
    readers,
    register_reader,
)


def _folder(path: Path) -> bool:
    """What an OpenHands conversation is (its `claims` also wants the event files inside)."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _never(head: bytes) -> bool:
    """A format that is a folder: no single file's head is one (`claims` recognises the folder)."""
    return False


def _builtin(name: str, module: str, description: str, tested_on: str, *, sniff: bool = True,
             claims: Callable[[Path], bool] | None = None, sessions: bool = False, suffixes: tuple[str, ...] = (),
             default_locations: tuple[str, ...] = (), resumes: bool = False) -> None:  # fmt: skip
    """Register a built-in reader whose functions live in `inspector.readers.<module>`."""
    path = f"inspector.readers.{module}"
    register_reader(
        Reader(
            name=name,
            description=description,
            sniff=Deferred(path, "sniff") if sniff else _never,
            read=Deferred(path, "read"),
            claims=Deferred(path, "claims", claims) if claims is not None else None,
            sessions=Deferred(path, "sessions") if sessions else None,
            read_session=Deferred(path, "read_session") if sessions else None,
            suffixes=suffixes,
            default_locations=default_locations,
            tested_on=tested_on,
            read_resuming=Deferred(path, "read_resuming") if resumes else None,
        )
    )


_builtin(
    "native", "native", "compaction-trace/1 (JSON or JSONL)",
    "this project's own format (schema shipped in the package): everything is as the file states it",
)  # fmt: skip
_builtin(
    "claude-code", "claude_code", "Claude Code session log (JSONL, 1.0.x and 2.x)",
    "real sessions of Claude Code 1.0.53, 2.0.76 and 2.1.5 to 2.1.49: the surviving branch (each parallel "
    "call's result with it), compaction boundaries, summaries and token counts exact; messages queued while "
    "the agent worked read from the queue records; sub-agent sidechains, left branches and records written "
    "twice set aside, every line counted by what became of it",
    default_locations=("$CLAUDE_CONFIG_DIR/projects", "~/.claude/projects"), resumes=True,
)  # fmt: skip
_builtin(
    "codex", "codex", "Codex CLI rollout (JSONL)",
    "Codex CLI 0.146 rollouts (a public fixture of real record shapes): turns and compactions exact; "
    "a server-side summary is encrypted in the log (summary-unavailable)",
    default_locations=("$CODEX_HOME/sessions", "~/.codex/sessions"),
)  # fmt: skip
_builtin(
    "openhands", "openhands", "OpenHands V1 SDK conversation folder (events/event-NNNNN-<id>.json)",
    "openhands-sdk 1.58.2 (LLMSummarizingCondenser): forgotten events, summary and summary offset "
    "exact from Condensation events; no token counts in the log",
    sniff=False, claims=_folder,
)  # fmt: skip
_builtin(
    "inspect-ai", "inspect_ai", "Inspect AI eval log (.eval zip or .json)",
    "inspect_ai 0.3.285 (react agent, CompactionSummary and CompactionTrim): compaction type, tokens "
    "before/after and trigger exact from compaction events; summary text exact from the summary message; "
    "a compaction's place among the messages inferred from the message ids earlier events name",
    claims=is_zip, sessions=True, suffixes=(".eval",), default_locations=("$INSPECT_LOG_DIR", "./logs"),
)  # fmt: skip
_builtin(
    "langchain", "langchain", "LangChain / LangGraph messages (stream JSONL or message-list JSON)",
    "langchain 1.5.2, langchain-core 1.8.3, langgraph 1.2.24 (SummarizationMiddleware): "
    "stream values JSONL exact (whole state each step); stream updates JSONL exact for what nodes wrote, "
    "user input only where re-listed; a message-list dump holds only the last summary",
)  # fmt: skip
_builtin(
    "anthropic-api", "anthropic_api", "Anthropic Messages API call log (request/response JSONL)",
    "anthropic SDK 2.14.0 types (BetaMessage, BetaCompactionBlock; compact_20260112), log written by "
    "the SDK against a scripted fake API: summaries and turns exact; the context before a compaction is "
    "inferred from the re-sent history; tokens after from usage.iterations",
)  # fmt: skip
_builtin(
    "openai-responses", "openai_responses", "OpenAI Responses API call log (request/response JSONL)",
    "openai SDK 3.57.0 types (Response, ResponseCompactionItem, CompactedResponse), log written by "
    "the SDK against a scripted fake API: turns exact; every summary is encrypted (summary-unavailable); "
    "the context before a compaction is inferred from the re-sent history",
)  # fmt: skip
_builtin(
    "gemini-cli", "gemini_cli", "Gemini CLI session (JSONL with $set/$rewindTo; legacy .json)",
    "Gemini CLI 0.61.0 (JSONL) and 0.20.2 (legacy .json). JSONL: before and after each compression are "
    "exact, from the file's own history rewrite; the trigger (auto, or manual after /compress) is inferred. "
    "Legacy .json: compressions are not recorded, so only the raw turns load.",
    default_locations=("$GEMINI_CLI_HOME/.gemini/tmp", "~/.gemini/tmp"),
)  # fmt: skip
_builtin(
    "opencode", "opencode", "opencode session (opencode.db SQLite store, or `opencode export` JSON)",
    "opencode 1.18.33 (SQLite store and export). Before and after each compaction are exact: the "
    "summary is its own message and the model continues from it; pruned tool outputs are marked by the log.",
    claims=is_sqlite, sessions=True, suffixes=(".db",),
    default_locations=("$XDG_DATA_HOME/opencode/opencode.db", "~/.local/share/opencode/opencode.db"),
)  # fmt: skip
_builtin(
    "otel-genai", "otel_genai", "OpenTelemetry GenAI trace export (OTLP JSON)",
    "opentelemetry-sdk 1.45.2 + OTLP encoder (exporter-otlp-proto-common 1.45.2), GenAI semantic "
    "conventions' message schema (semantic-conventions-genai 7568a24): turns and summaries exact from "
    "gen_ai.input/output.messages; a compaction's place inferred from the re-sent history; tokens after from "
    "the compacted span's usage, tokens before from the previous span's",
    sessions=True,
)  # fmt: skip

__all__ = ["Deferred", "Reader", "detect_format", "format_names", "load_resuming", "load_trace", "readers",
           "register_reader"]
