"""The `compaction-inspector` command as installed (and `python -m inspector`).

The guard's hook line, `compaction-inspector guard` as `guard install` writes it, goes straight to the hook: an agent
waits on it at every compaction, and the rest of the command line (its parser, the readers, the analysis, the review
store) cost 0.27 s to import before the hook could start. Any other command line is the CLI's (`inspector.cli`)."""

from __future__ import annotations

import gc
import sys


def main() -> int:
    if sys.argv[1:] == ["guard"]:
        from inspector.guard import main as hook

        return hook()
    from inspector.bulk import paused_gc
    from inspector.cli import main as cli

    if sys.argv[1:2] == ["scan"]:  # a fleet of sessions, one after another: each one's garbage goes as it is done
        return cli()
    with paused_gc():  # one session's command: what it builds lives until it exits (`bulk.paused_gc` says why)
        status = cli()
        # Frozen before the collector is back: all it built is still its youngest generation, so the first
        # allocation after would walk all of it (0.4 s at 100 MB), as would shutting the interpreter down.
        gc.freeze()
    return status


__all__ = ["main"]
