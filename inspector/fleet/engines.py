"""Where the per-file work runs: this process, a local process pool, or a Dask cluster.

Every engine maps `scan_file` over paths and yields rows as they finish (so a progress bar moves
and an interrupted scan keeps what it has). A file is the unit of work: analyses are independent,
files vary from kilobytes to hundreds of megabytes, and handing out one at a time keeps a worker
that drew a huge session from holding up a queue of small ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from inspector.fleet.summary import scan_file

ENGINES = ("local", "dask")


def engine_names() -> tuple[str, ...]:
    """The engines, for the CLI's lazily listed `--engine` choices."""
    return ENGINES


def run_local(paths: Sequence[str], workers: int) -> Iterator[dict[str, Any]]:
    """A process per core (analysis is CPU-bound Python); inline when one worker is asked for."""
    if workers <= 1 or len(paths) <= 1:
        yield from map(scan_file, paths)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed  # only a parallel scan pays for these
    from multiprocessing import get_context

    # spawn, not fork: the app scans from a threaded server, and forking a process with threads can deadlock
    with ProcessPoolExecutor(max_workers=min(workers, len(paths)), mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(scan_file, path) for path in paths]
        for future in as_completed(futures):
            yield future.result()


def run_dask(paths: Sequence[str], scheduler: str | None, workers: int) -> Iterator[dict[str, Any]]:
    """Submit one task per file to a Dask scheduler (or a loopback-only local cluster without one).

    Workers open the files themselves: on a real cluster the paths must name the same files on every
    worker (a shared filesystem), which is how session folders are usually mounted on one.
    """
    from dask.distributed import Client, LocalCluster
    from dask.distributed import as_completed as completed

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, host="127.0.0.1",
                               dashboard_address=None, processes=True)  # fmt: skip
        scheduler = cluster.scheduler_address
    try:
        with Client(scheduler) as client:
            futures = client.map(scan_file, list(paths), pure=False)
            for future in completed(futures):
                yield future.result()
    finally:
        if cluster is not None:
            cluster.close()


__all__ = ["ENGINES", "engine_names", "run_dask", "run_local"]
