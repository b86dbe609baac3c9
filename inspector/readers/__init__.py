"""Trace readers: one registry, auto-detection by sniffing, and the built-in formats."""

from inspector.readers import native
from inspector.readers.registry import (
    Reader,
    detect_format,
    format_names,
    load_trace,
    readers,
    register_reader,
)

# isort: off
from inspector.readers import claude_code as claude_code  # after native: registry order is sniffing order
from inspector.readers import codex as codex
from inspector.readers import openhands as openhands
from inspector.readers import inspect_ai as inspect_ai
from inspector.readers import langchain as langchain
from inspector.readers import anthropic_api as anthropic_api
from inspector.readers import openai_responses as openai_responses
from inspector.readers import gemini_cli as gemini_cli
from inspector.readers import opencode as opencode
from inspector.readers import otel_genai as otel_genai
# isort: on

__all__ = ["Reader", "detect_format", "format_names", "load_trace", "native", "readers", "register_reader"]
