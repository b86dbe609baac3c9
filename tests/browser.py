"""A real `streamlit run` server and Debian's Chromium for browser tests (Datasette's pattern)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def streamlit_server(data_dir: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """Start the app on a free loopback port; yield its base URL; always stop it."""
    port = _free_port()
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(data_dir), **(extra_env or {})}
    command = [
        sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"), "--server.port", str(port),
        "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    log = data_dir / "streamlit.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"streamlit exited with {process.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not become healthy:\n{log.read_text()}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


DOC_PICTURES = frozenset({"chain", "generation", "manifest", "story"})
"""Screenshots the README shows; every browser-test run refreshes them in docs/screenshots/."""


def save_screenshot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    """Screenshots are test artifacts; the README's are refreshed from the same run."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if name in DOC_PICTURES:
        target = REPO / "docs" / "screenshots"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / f"{name}.png")
    return path
