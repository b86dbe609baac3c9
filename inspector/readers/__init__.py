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

__all__ = ["Reader", "detect_format", "format_names", "load_trace", "native", "readers", "register_reader"]
