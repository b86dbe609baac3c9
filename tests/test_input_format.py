"""`check --input-format X` on a file of another format Y is refused in one line naming Y (issue 26).

A reader handed another format's file often reads nothing from it and reports a clean chain ("1 generation …
verdict: PASS"), so the refusal cannot be left to each reader: the registry asks the named reader's own
recogniser first, for every reader alike. The table runs `check` as typed (`main` in process: 300 cases);
the real process runs in tests/test_cli_newcomer.py and below for a reader registered from outside.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from inspector.cli import main
from inspector.readers import readers
from tests.helpers import FIXTURES, ONE_OF_EACH, REPO, SAMPLES

DESCRIPTION = {reader.name: reader.description for reader in readers()}

# (id, format, path) of every shape a format comes in besides ONE_OF_EACH's: a second document kind, a folder
# inside the folder, a compressed copy (".zst", made in the test's folder) and one session of a container.
SHAPES = [
    *[(name, name, str(path)) for name, path in ONE_OF_EACH.items()],
    ("native-small", "native", str(FIXTURES / "native" / "two_generations_nothing_to_chart.json")),
    ("native-zst", "native", f"{SAMPLES / 'staging_db_constraint.json'}.zst"),
    ("claude-code-zst", "claude-code", f"{ONE_OF_EACH['claude-code']}.zst"),
    ("openhands-events", "openhands", str(ONE_OF_EACH["openhands"] / "events")),
    ("inspect-ai-json", "inspect-ai", str(FIXTURES / "inspect_ai" / "two-samples.json")),
    ("inspect-ai-session", "inspect-ai", f"{ONE_OF_EACH['inspect-ai']}#trim_epoch_1"),
    ("langchain-updates", "langchain", str(FIXTURES / "langchain" / "stream-updates.jsonl")),
    ("langchain-message-list", "langchain", str(FIXTURES / "langchain" / "messages-final.json")),
    ("langchain-message-list-zst", "langchain", f"{FIXTURES / 'langchain' / 'messages-final.json'}.zst"),
    ("gemini-cli-legacy", "gemini-cli", str(FIXTURES / "gemini_cli" / "session-legacy-0.20.2.json")),
    ("gemini-cli-legacy-zst", "gemini-cli", f"{FIXTURES / 'gemini_cli' / 'session-legacy-0.20.2.json'}.zst"),
    ("opencode-export", "opencode", str(FIXTURES / "opencode" / "opencode-export.json")),
    ("opencode-session", "opencode", f"{ONE_OF_EACH['opencode']}#ses_dd0b07380ffeu9V8GWKaonsNse"),
    ("otel-genai-session", "otel-genai", f"{ONE_OF_EACH['otel-genai']}#conv_1a9e05b3c8d24f71"),
]  # fmt: skip
PAIRS = [(given, shape) for shape in SHAPES for given in DESCRIPTION if given != shape[1]]


def placed(path: str, folder: Path) -> tuple[str, str]:
    """(what to pass on the command line, the file the error must name): a `.zst` shape is compressed into
    `folder` from the file it names; `FILE#ID` names FILE."""
    if path.endswith(".zst"):
        source = Path(path.removesuffix(".zst"))
        path = str(folder / f"{source.name}.zst")
        Path(path).write_bytes(zstandard.ZstdCompressor().compress(source.read_bytes()))
    return path, path.partition("#")[0]


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    """`compaction-inspector check …` as typed: (exit status, stdout, stderr lines)."""
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def test_every_registered_format_has_a_session_in_the_table() -> None:
    assert sorted(ONE_OF_EACH) == sorted(DESCRIPTION)


@pytest.mark.parametrize(("given", "shape"), PAIRS, ids=[f"{given}-on-{shape[0]}" for given, shape in PAIRS])
def test_a_format_given_by_hand_that_the_file_is_not_is_refused_naming_the_one_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, shape: tuple[str, str, str]
) -> None:
    _, actual, path = shape
    argument, file = placed(path, tmp_path)
    code, out, err = check(capsys, "--input-format", given, argument)
    assert (code, out) == (2, ""), err
    [line] = err
    assert re.fullmatch(
        rf"{re.escape(file)}: not an? {re.escape(DESCRIPTION[given])}; it looks like an? {re.escape(actual)} "
        rf"trace, {re.escape(DESCRIPTION[actual])}, which auto-detection reads", line), line  # fmt: skip


@pytest.mark.parametrize("shape", SHAPES, ids=[shape[0] for shape in SHAPES])
def test_the_format_the_file_is_still_loads_when_given_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: tuple[str, str, str]
) -> None:
    _, actual, path = shape
    argument, _ = placed(path, tmp_path)
    code, out, err = check(capsys, "--input-format", actual, argument)
    assert code in (0, 1) and not err, err
    assert f"[{actual}]" in out.splitlines()[0]


def test_a_file_no_reader_recognises_is_read_by_the_format_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Claude Code log behind a line some wrapper wrote: no sniffer knows its head, so detection refuses it,
    but a user who names the format gets it read."""
    wrapped = tmp_path / "wrapped.jsonl"
    wrapped.write_bytes(b'{"note": "exported by a wrapper"}\n' + ONE_OF_EACH["claude-code"].read_bytes())
    code, out, err = check(capsys, str(wrapped))
    assert code == 2 and err == [f"{wrapped}:1: not a recognised trace format (known: {', '.join(DESCRIPTION)})"]
    code, out, err = check(capsys, "--input-format", "claude-code", str(wrapped))
    assert code == 1 and not err and "4 generations" in out.splitlines()[0]


_OUTSIDE_READER = """
import sys
from inspector.cli import main
from inspector.model import Generation, Trace
from inspector.readers import Reader, register_reader

def read(path):  # lax, as readers are: it reads anything as one raw generation
    return Trace(id=path.name, format="toy", sources=(), generations=(Generation(0, "raw", "", covers=()),))

register_reader(Reader("toy", "toy log (TOY header)", sniff=lambda head: head.startswith(b"TOY"), read=read))
sys.exit(main(sys.argv[1:]))
"""


TOY = "toy log (TOY header)"


@pytest.mark.parametrize(
    ("given", "file", "expected"),
    [("toy", "claude", f"not a {TOY}; it looks like a claude-code trace, {DESCRIPTION['claude-code']}, "
                       "which auto-detection reads"),
     ("codex", "toy", f"not a {DESCRIPTION['codex']}; it looks like a toy trace, {TOY}, which auto-detection reads"),
     ("toy", "toy", None)],
    ids=["toy-on-claude-code", "codex-on-toy", "toy-on-toy"],
)  # fmt: skip
def test_a_reader_registered_from_outside_refuses_and_is_refused_the_same_way(
    tmp_path: Path, given: str, file: str, expected: str | None
) -> None:
    toy = tmp_path / "session.toy"
    toy.write_bytes(b"TOY 1\n")
    path = {"toy": str(toy), "claude": str(ONE_OF_EACH["claude-code"])}[file]
    result = subprocess.run([sys.executable, "-c", _OUTSIDE_READER, "check", "--input-format", given, path],
                            capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    if expected is None:
        assert result.returncode == 0 and result.stderr == "" and "[toy]" in result.stdout
    else:
        assert (result.returncode, result.stdout, result.stderr.splitlines()) == (2, "", [f"{path}: {expected}"])
