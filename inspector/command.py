"""The `compaction-inspector` command as installed (and `python -m inspector`).

The guard's hook line, `compaction-inspector guard` as `guard install` writes it, goes straight to the hook: an agent
waits on it at every compaction, and the rest of the command line (its parser, the readers, the analysis, the review
store) cost 0.27 s to import before the hook could start. Any other command line is the CLI's (`inspector.cli`)."""

from __future__ import annotations

import sys


def main() -> int:
    if sys.argv[1:] == ["guard"]:
        from inspector.guard import main as hook

        return hook()
    from inspector.cli import main as cli

    return cli()


__all__ = ["main"]
