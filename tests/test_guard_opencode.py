"""The guard before an opencode compaction, run by the real opencode: `opencode-ai@1.18.33` from npm, driven offline
against the scripted OpenAI-compatible server of the fixtures (tests/fixtures/opencode/SOURCES.md, turn.sh), with
the plugin `guard install --agent opencode --project` wrote.

The server reports a prompt of 19,500 tokens on the second turn of a model with a 20,000-token context, so opencode's
own overflow check compacts the session; what opencode sent the model for that summary is read back from the
server's request log. opencode is installed once into test-artifacts/ (git-ignored) and reused; without npm or the
registry the tests skip, and in CI (`CI` set; .ci/run installs npm) they fail instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.guard_install import plugin_text
from tests.browser import free_port, running_server
from tests.helpers import FIXTURES, REPO

VERSION = "1.18.33"
TOOL = REPO / "test-artifacts" / f"opencode-{VERSION}"
SERVER = FIXTURES / "opencode" / "fake_openai.py"
HEAD = "Compaction Inspector read this session's log: what follows still stands"
CONSTRAINT = "Remember my constraint: never delete files."
OVERFLOW, QUIET = "19500", "1000"
"""Prompt tokens the server reports: past the context opencode compacts at, and well within it."""


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"opencode-ai@{VERSION} is needed in CI (.ci/run installs npm): {why}")
    pytest.skip(f"needs opencode-ai@{VERSION} from npm: {why}")


@pytest.fixture(scope="module")
def opencode() -> Path:
    """The opencode binary, installed from npm into test-artifacts/ on first use (into a folder of its own, then
    renamed, so an install cut short is never taken for one)."""
    binary = TOOL / "node_modules" / ".bin" / "opencode"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            _unavailable("npm is not on PATH")
        staging = TOOL.with_name(f"{TOOL.name}.partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        done = subprocess.run([npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund",
                               f"opencode-ai@{VERSION}"], capture_output=True, text=True, timeout=600)  # fmt: skip
        if done.returncode != 0 or not (staging / "node_modules" / ".bin" / "opencode").exists():
            _unavailable(f"npm install failed: {(done.stderr.strip().splitlines() or ['no message'])[-1]}")
        shutil.rmtree(TOOL, ignore_errors=True)
        staging.rename(TOOL)
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    assert version == VERSION, version
    return binary


def compaction_prompt(opencode: Path, tmp_path: Path, first_turn: str) -> tuple[str, list[dict[str, Any]]]:
    """Two `opencode run` turns in a project with the guard's plugin installed, the second overflowing the context:
    (the text opencode sent the model to write the summary, every request the server logged)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    port = free_port()
    config = json.loads((FIXTURES / "opencode" / "opencode.json").read_text())
    config["provider"]["fake"]["options"]["baseURL"] = f"http://127.0.0.1:{port}/v1"
    (project / "opencode.json").write_text(json.dumps(config))
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_STATE_HOME": str(home / ".local" / "state"), "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_AUTOUPDATE": "1", "INSPECTOR_DATA_DIR": str(tmp_path / "data"),
           # the project's plugin runs the compaction-inspector on PATH, as on a teammate's machine
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # fmt: skip
    installed = subprocess.run([str(Path(sys.executable).parent / "compaction-inspector"), "guard", "install",
                                "--agent", "opencode", "--project", str(project), "--yes"], env=env,
                               capture_output=True, text=True, timeout=60)  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    requests, tokens = tmp_path / "requests.jsonl", tmp_path / "tokens"
    server = {**env, "FAKE_LOG": str(requests), "TOKENS_FILE": str(tokens), "RESET_TOKENS": QUIET}
    with running_server([sys.executable, str(SERVER), str(port)], f"http://127.0.0.1:{port}", tmp_path / "server.log",
                        server, health="/v1/models"):  # fmt: skip
        for budget, words, more in ((QUIET, first_turn, []), (OVERFLOW, "Now print the next step.", ["--continue"])):
            tokens.write_text(budget)
            # opencode takes its project from $PWD, not from the folder it runs in
            turn = subprocess.run([str(opencode), "run", *more, words], cwd=project, env={**env, "PWD": str(project)},
                                  capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
            assert turn.returncode == 0, turn.stdout + turn.stderr
    logged = [json.loads(line) for line in requests.read_text().splitlines()]
    summaries = [r for r in logged if r["decision"].get("text", "").startswith("SUMMARY #")]
    assert len(summaries) == 1, [r["decision"] for r in logged]  # opencode compacted once, on the second turn
    content = summaries[0]["last"]["content"]
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content), logged


def test_the_compaction_request_carries_the_users_standing_words_verbatim(opencode, tmp_path):
    prompt, _ = compaction_prompt(opencode, tmp_path, f"First: list the build steps. {CONSTRAINT}")
    assert HEAD in prompt, prompt[-2000:]
    listed = prompt[prompt.index(HEAD):].splitlines()[1:]
    assert any(line.startswith("- The user said, ") and "(constraint, record prt_" in line and CONSTRAINT in line
               for line in listed), listed  # fmt: skip
    assert not (tmp_path / "data" / "guard.log").exists()


def test_nothing_is_added_when_nothing_stands(opencode, tmp_path):
    prompt, _ = compaction_prompt(opencode, tmp_path, "What does the parser module do?")
    assert "Compaction Inspector" not in prompt and "never delete" not in prompt
    assert not (tmp_path / "data" / "guard.log").exists()  # the guard ran and found nothing: no error logged


HOOK = """import * as plugin from "./plugin.mjs"
const hooks = await Object.values(plugin)[0]({})
const output = { context: [] }
await hooks["experimental.session.compacting"]({ sessionID: "ses_x" }, output)
console.log(JSON.stringify(output.context))
"""


@pytest.mark.parametrize("command, why", [(["sh", "-c", "sleep 60"], "a guard that hangs"),
                                         (["sh", "-c", "echo half a list; exit 3"], "a guard that fails"),
                                         (["/nonexistent/compaction-inspector", "guard"], "no guard at all")])
def test_the_plugin_adds_nothing_when_the_guard_fails_or_hangs(command, why, tmp_path):
    """Run by node as opencode runs it, with its clock cut to one second: the compaction goes on with nothing added."""
    node = shutil.which("node")
    if node is None:
        _unavailable("node is not on PATH")
    (tmp_path / "plugin.mjs").write_bytes(plugin_text(command).replace(b"const SECONDS = 10", b"const SECONDS = 1"))
    (tmp_path / "hook.mjs").write_text(HOOK)
    done = subprocess.run([node, str(tmp_path / "hook.mjs")], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", ""), why
