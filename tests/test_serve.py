"""How the app is exposed: loopback only unless told otherwise."""

from __future__ import annotations

import os
import socket
import sys
import tomllib
from pathlib import Path

import pytest

from tests.browser import free_port, running_server
from tests.helpers import REPO

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
