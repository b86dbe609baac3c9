"""How the app is exposed: loopback only unless told otherwise, and security headers on every response."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import socket
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest

from tests.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    require_chromium,
    running_server,
    streamlit_server,
    wait_until_settled,
)
from tests.helpers import REPO, SAMPLES

LISTEN = "0A"  # TCP state in /proc/net/tcp*


def listening_addresses(port: int) -> set[str]:
    """Every address a TCP socket listens on at `port`, as the kernel reports it (IPv4 and IPv6 tables)."""
    found = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.split(":")
            if state != LISTEN or int(port_hex, 16) != port:
                continue
            raw = bytes.fromhex(address)
            if sys.byteorder == "little":  # the kernel prints each 32-bit word in host byte order
                raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(socket.inet_ntop(family, raw))
    return found


def clean_env(data_dir: Path) -> dict[str, str]:
    """This environment minus what would choose the address for the server under test, or leak an outer make."""
    ignored = {"ADDRESS", "STREAMLIT_SERVER_ADDRESS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    return {**{k: v for k, v in os.environ.items() if k not in ignored}, "INSPECTOR_DATA_DIR": str(data_dir)}


linux = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp (Linux)")


@linux
@pytest.mark.parametrize(("variables", "expected"), [([], "127.0.0.1"), (["ADDRESS=127.0.0.2"], "127.0.0.2")])
def test_make_serve_listens_on_loopback_unless_told_otherwise(tmp_path, variables, expected):
    """`make serve` itself, on a free port; 127.0.0.2 is loopback too, so ADDRESS is shown to work unexposed."""
    port = free_port()
    make = ["make", "-o", f"{sys.prefix}/.installed-app", "serve", f"VENV={sys.prefix}", f"PORT={port}", *variables]
    with running_server(make, f"http://{expected}:{port}", tmp_path / "serve.log", clean_env(tmp_path)):
        assert listening_addresses(port) == {expected}  # never 0.0.0.0 or ::


@linux
def test_a_plain_streamlit_run_is_loopback_only_too(tmp_path):
    """.streamlit/config.toml sets the address, so running app.py without make or flags does not expose it."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    with running_server(command, f"http://127.0.0.1:{port}", tmp_path / "serve.log", clean_env(tmp_path)):
        assert listening_addresses(port) == {"127.0.0.1"}


def test_the_readme_states_the_upload_limit_the_config_sets():
    limit = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert 0 < limit <= 1024
    assert f"{limit} MB" in (REPO / "README.md").read_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with streamlit_server(tmp_path_factory.mktemp("data")) as url:
        yield url


def get(url: str) -> tuple[dict[str, str], str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return {k.lower(): v for k, v in response.headers.items()}, response.read().decode("utf-8", "replace")


def policy_of(headers: dict[str, str]) -> dict[str, list[str]]:
    """The Content-Security-Policy header as directive -> sources."""
    return {d.split()[0]: d.split()[1:] for d in headers["content-security-policy"].split("; ")}


def test_every_response_carries_the_security_headers(server):
    headers, page = get(f"{server}/")
    script = re.search(r'src="\./(static/js/index\.[^"]+\.js)"', page)
    assert script, page[:500]
    others = [get(f"{server}/{path}")[0] for path in (script[1], "chain", "_stcore/health")]
    for response in [headers, *others]:
        policy = policy_of(response)
        assert policy["frame-ancestors"] == ["'none'"]
        assert response["x-frame-options"] == "DENY"
        assert response["x-content-type-options"] == "nosniff"
        assert policy["default-src"] == ["'self'"] and policy["object-src"] == ["'none'"]
        assert not {"'unsafe-inline'", "'unsafe-eval'", "*"} & set(policy["script-src"])
    # Streamlit's page has an inline script: the policy allows exactly that script, by its hash.
    for body in re.findall(r"<script>(.*?)</script>", page, re.DOTALL):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy_of(headers)["script-src"]


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


VIOLATIONS = """window.violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.violations.push(`${e.violatedDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`));"""

PAGES = [
    "chain?trace=sample:anchor_decay.json", "generation?trace=sample:hostile_text.json&gen=2",
    "generation?trace=sample:five_item_synthetic.json&gen=5&refresh=5",
    "manifest?trace=sample:five_item_synthetic.json", "findings?trace=sample:five_item_synthetic.json", "sessions",
    "review?trace=sample:staging_db_constraint.json",
    "policies?trace=sample:five_item_synthetic.json", "ledger", "story",
]  # fmt: skip


def test_no_page_breaks_the_content_security_policy(browser, server):
    """Every page, an upload and a download run under the policy without one violation (charts, graphviz, fonts)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    seen: list[str] = []
    graph_nodes = 0
    try:
        page.goto(server)
        page.get_by_role("tab", name="Upload").click()
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(SAMPLES / "anchor_decay.json"))
        page.get_by_role("button", name="Open upload").click()
        page.get_by_text("Top findings").wait_for()
        with page.expect_download():
            page.get_by_role("button", name="Report (HTML)").click()
        seen += page.evaluate("window.violations")
        for path in PAGES:
            page.goto(f"{server}/{path}")
            wait_until_settled(page)  # charts and graphviz draw after the script run ends: wait until they have
            seen += [f"{path}: {v}" for v in page.evaluate("window.violations")]
            if path.startswith("chain"):
                graph_nodes = page.locator('[data-testid="stGraphVizChart"] svg g.node').count()
    finally:
        context.close()
    assert seen == []
    assert graph_nodes == 4  # the WebAssembly layout ran


def test_another_page_cannot_frame_the_app(browser, server):
    """Clickjacking: the browser refuses to draw the app inside another page's frame."""
    page = browser.new_page()
    try:
        page.set_content(f'<iframe src="{server}/" width="800" height="600"></iframe>', wait_until="load")
        frame = page.frames[1]
        assert frame.url.startswith("chrome-error://"), frame.url
        assert frame.locator('[data-testid="stApp"]').count() == 0
    finally:
        page.close()
