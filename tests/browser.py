"""A real `streamlit run` server and Debian's Chromium for browser tests (Datasette's pattern)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.helpers import REPO

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip


def require_chromium() -> None:
    """Browser tests must run in CI; on a developer machine without Chromium they are skipped."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
    pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(command: list[str], url: str, log: Path, env: dict[str, str] | None = None,
                   health: str = "/_stcore/health", within: float = 60,
                   ) -> Iterator[subprocess.Popen[bytes]]:  # fmt: skip
    """Run `command` until `url` + `health` answers 200 (within `within` seconds, or while the process lives); always
    stop it and its children (make's streamlit)."""
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + within
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command[:3]} exited with {process.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}{health}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not become healthy:\n{log.read_text()}")
            time.sleep(0.3)
        yield process
    finally:
        stop_group(process)


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process's group, give it 10 s, then SIGKILL whatever is left (make's streamlit, scan workers)."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        process.poll()  # reap the leader: a zombie still counts as a member of its group
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@contextmanager
def streamlit_server(data_dir: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """Start the app as `make serve` does (serve.py) on a free loopback port; yield its base URL; always stop it."""
    with streamlit_process(data_dir, extra_env) as (url, _):
        yield url


@contextmanager
def streamlit_process(data_dir: Path, extra_env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """`streamlit_server`, yielding the server process's id too: a test that measures the server's memory needs it
    (the command runs Streamlit itself, not a wrapper)."""
    port = free_port()
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(data_dir), **(extra_env or {})}
    command = [
        sys.executable, "-m", "streamlit", "run", str(REPO / "serve.py"), "--server.port", str(port),
        "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with running_server(command, url, data_dir / "streamlit.log", env) as process:
        yield url, process.pid


def peak_memory(pid: int) -> int:
    """The process's peak resident memory since it started (VmHWM, which the kernel keeps), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


class MemoryCeiling:
    """Kills a process group whose peak memory passes `ceiling` bytes, and keeps the peak it last read.

    A guard for a test about a memory bomb: without the fix under test the server would take gigabytes of a shared
    machine. The test's verdict is read from VmHWM after the fact; this only cuts a failing run short."""

    def __init__(self, pid: int, ceiling: int) -> None:
        self.pid, self.ceiling, self.peak, self.killed = pid, ceiling, peak_memory(pid), False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> MemoryCeiling:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(0.01):  # a watchdog's period, not a wait for the page: 100 reads a second
            try:
                self.peak = peak_memory(self.pid)
            except (OSError, RuntimeError):
                return  # the server is gone
            if self.peak > self.ceiling:
                self.killed = True
                with suppress(ProcessLookupError):
                    os.killpg(self.pid, signal.SIGKILL)
                return


SETTLED = """() => !!document.querySelector(
      '[data-testid="stApp"][data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]')
  && !!document.querySelector('[data-testid="stMain"] [data-testid="stElementContainer"]')
  && !document.querySelector('[data-testid="stSkeleton"], [data-stale="true"]')
  && [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].every(c => c.querySelector('svg.marks, canvas'))
  && [...document.querySelectorAll('[data-testid="stGraphVizChart"]')].every(c => c.querySelector('svg g.node'))
  && [...document.querySelectorAll('[data-testid="stDataFrame"]')].every(d => d.querySelector('table'))"""
"""True once a script run has ended (Streamlit's own state on stApp: "initial" before the first run, so a page
just opened is not taken for one done) and what it sent is drawn: something in the main area, nothing still
loading (a skeleton) or left from the last run (stale), every Vega chart and Graphviz graph drawn and every
table's cells in the DOM (the grid writes its accessible table after its first draw): all of them come after the
run ends."""

QUIET_MS = 300
"""How long the page must not change with `SETTLED` true. Streamlit flips the run's state to finished before it
has drawn the last elements the run sent (seen: 110 ms with nothing yet in the main area), so one true reading
is not enough; a page that has settled stays unchanged."""

SETTLE_MS = 60_000
"""Generous: on a loaded machine (two cores, another test suite beside) a chart took several seconds to draw."""

_QUIET = f"""() => {{
  const now = performance.now();
  if (!window.__ciChanged) {{
    window.__ciChanged = {{at: now}};
    new MutationObserver(() => {{ window.__ciChanged.at = performance.now(); }})
      .observe(document.body, {{subtree: true, childList: true, attributes: true, characterData: true}});
  }}
  if (!({SETTLED})()) {{ window.__ciChanged.at = now; return false; }}
  return now - window.__ciChanged.at >= {QUIET_MS};
}}"""


def wait_until_settled(page, timeout_ms: int = SETTLE_MS) -> None:  # type: ignore[no-untyped-def]
    """Wait until the page is drawn (`SETTLED`) and has stayed so for `QUIET_MS`: a condition on the page, checked
    every animation frame, never a fixed sleep, which is too short on a loaded machine."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    page.wait_for_function(_QUIET, timeout=timeout_ms)


DOC_PICTURES = frozenset({"chain", "generation", "manifest", "story", "phoenix"})
"""Screenshots the README shows (docs/screenshots/); `make screenshots` refreshes them, `make test` never does."""

BROWSER_TESTS = ("tests/test_browser.py", "tests/test_phoenix.py")
"""The tests that take them (`make screenshots` runs these)."""

SCREENSHOTS = ARTIFACTS / "screenshots"
"""Where every browser test's screenshot goes: git-ignored, so a test run leaves `git status` clean."""

DOC_SCREENSHOTS_ENV = "INSPECTOR_DOC_SCREENSHOTS"
"""Names a folder (`make screenshots`: docs/screenshots) the README's pictures are copied into as well."""


def save_screenshot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    """A screenshot is a test artifact; a README picture also goes where `INSPECTOR_DOC_SCREENSHOTS` says, if set."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    docs = os.environ.get(DOC_SCREENSHOTS_ENV)
    if docs and name in DOC_PICTURES:
        target = REPO / docs
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / f"{name}.png")
    return path
