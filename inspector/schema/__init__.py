"""The JSON Schema of compaction-trace/1, shipped as package data and read with importlib.resources."""

__all__: list[str] = []
