"""The guard within each agent's limit on hook context, as the agent measures it, and what it left out said.

Claude Code shows a hook's `additionalContext` whole up to 10,000 characters as JavaScript counts them (UTF-16
code units); Codex up to 2,500 tokens as it estimates them (UTF-8 bytes / 4, and in later versions at least a
token per word and per punctuation mark). Past either, the model reads a preview and a file path, so the items
past the preview are lost again. Each session here loses far more than fits, and the guard is run with a cap
far above both limits, so only the agent's limit holds it.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest

import inspector.guard as guard
import inspector.guard_check as guard_check
from inspector.model import SourceRecord
from tests.helpers import session_log

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
         "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango")  # fmt: skip
UNCAPPED = 1_000_000
"""A `--max-tokens` past every agent's limit: what holds the output is the agent's limit alone."""


def rules(count: int, decoration: str = "") -> list[str]:
    """`count` distinct constraints, none of whose topic terms a short summary keeps."""
    return [f"Never modify the {WORDS[i % 20]}{WORDS[i // 20 % 20]} service configuration{decoration}; the "
            f"{WORDS[i // 20 % 20]}{WORDS[i % 20]} team owns module{i} and reviews every change to it."
            for i in range(count)]  # fmt: skip


def claude_code_transcript(path: Path, prompts: list[str]) -> Path:
    """A Claude Code session log: the prompts, each answered, then a compaction whose summary keeps none of them."""
    records, parent = [], None
    for i, prompt in enumerate(prompts):
        stamp = f"2025-01-01T0{i // 3600}:{i // 60 % 60:02d}:{i % 60:02d}Z"
        for kind, uuid, message in (("user", f"u{i}", {"role": "user", "content": prompt}),
                                    ("assistant", f"a{i}", {"role": "assistant", "type": "message",
                                                            "content": [{"type": "text", "text": "Understood."}]})):
            records.append({"parentUuid": parent, "isSidechain": False, "type": kind, "sessionId": "s", "uuid": uuid,
                            "cwd": "/x", "timestamp": stamp, "version": "2.0.1", "message": message})
            parent = uuid  # fmt: skip
    records += [{"parentUuid": parent, "isSidechain": False, "type": "system", "subtype": "compact_boundary",
                 "sessionId": "s", "uuid": "b1", "timestamp": "2025-01-02T00:00:00Z", "version": "2.0.1",
                 "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 1000}},
                {"parentUuid": "b1", "isSidechain": False, "type": "user", "isCompactSummary": True, "sessionId": "s",
                 "uuid": "s1", "timestamp": "2025-01-02T00:00:01Z", "version": "2.0.1",
                 "message": {"role": "user", "content": "Summary: worked on the checkout page."}}]  # fmt: skip
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def codex_rollout(path: Path, prompts: list[str]) -> Path:
    """A Codex rollout: the prompts, each answered, then a local compaction whose summary keeps none of them."""
    lines = [{"timestamp": "2025-11-04T09:00:00.000Z", "type": "session_meta",
              "payload": {"id": "0199c4e2-51aa-7d30-8f0e-5c3b9a7d2e41", "timestamp": "2025-11-04T09:00:00.000Z",
                          "cwd": "/work/shop", "originator": "codex_cli_rs", "cli_version": "0.46.0"}},
             {"timestamp": "2025-11-04T09:00:01.000Z", "type": "turn_context",
              "payload": {"cwd": "/work/shop", "approval_policy": "on-request", "model": "gpt-5-codex"}}]  # fmt: skip
    for i, prompt in enumerate(prompts):
        stamp = f"2025-11-04T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        lines += [{"timestamp": stamp, "type": "response_item", "payload": {"type": "message", "role": "user",
                                                                            "content": [{"type": "input_text",
                                                                                         "text": prompt}]}},
                  {"timestamp": stamp, "type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
                  {"timestamp": stamp, "type": "response_item",
                   "payload": {"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": "Understood."}]}}]  # fmt: skip
    lines.append({"timestamp": "2025-11-04T12:00:00.000Z", "type": "compacted",
                  "payload": {"message": "Worked on the checkout page.", "replacement_history": []}})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def context(transcript: Path, tmp_path: Path, max_tokens: int = UNCAPPED) -> str:
    """What the agent reads: the hook's stdout parsed as the harness parses it."""
    request = json.dumps({"session_id": "s", "transcript_path": str(transcript), "cwd": str(tmp_path),
                          "hook_event_name": "SessionStart", "source": "compact"})  # fmt: skip
    out = io.StringIO()
    assert guard.run_hook(io.StringIO(request), out, max_tokens=max_tokens, log=tmp_path / "guard.log") == 0
    assert not (tmp_path / "guard.log").exists(), (tmp_path / "guard.log").read_text()
    return json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]


def javascript_length(text: str) -> int:
    """String.prototype.length: UTF-16 code units, two for a character past U+FFFF."""
    return len(text.encode("utf-16-le")) // 2


def codex_tokens(text: str) -> int:
    """Codex's `approx_token_count`, ported line by line from codex-rs (the larger of bytes / 4 rounded up and
    its lexical count: a word's bytes / 4 rounded up, one for each character that is neither word nor space)."""
    lexical, word = 0, 0
    for char in text:
        width = len(char.encode("utf-8"))
        if char.isascii():
            is_word, is_space = char.isalnum() or char == "_", char in " \t\n\v\f\r"
        else:
            is_word, is_space = char.isalnum(), char.isspace()
        if is_word:
            word += width
            continue
        lexical += -(-word // 4) + (0 if is_space else 1)
        word = 0
    lexical += -(-word // 4)
    return max(-(-len(text.encode("utf-8")) // 4), lexical)


def entries(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


LEFT_OUT = re.compile(r"^\((\d+) more not shown(?::|, all) (.+); `compaction-inspector check (.+)` lists them\.\)$")


def test_in_claude_code_the_context_stays_under_10000_characters_as_javascript_counts_them(tmp_path, monkeypatch):
    """Each constraint carries characters past U+FFFF, two UTF-16 units each: counting code points instead would
    let the context run past Claude Code's limit, and the model would read only its first 2 KB."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    prompts = rules(200, " " + "🔒" * 40)
    transcript = claude_code_transcript(tmp_path / "session.jsonl", prompts)
    text = context(transcript, tmp_path)
    shown = entries(text)
    assert 9_000 < javascript_length(text) <= 10_000, javascript_length(text)
    assert javascript_length(text) - len(text) > 1_000  # the measure matters: code points undercount it
    *_, last = text.splitlines()
    count, kinds, path = LEFT_OUT.match(last).groups()
    assert (int(count), kinds, path) == (200 - len(shown), "constraints", str(transcript))
    assert shown[0].endswith(f"“{prompts[-1]}”") and shown[-1].endswith(f"“{prompts[200 - len(shown)]}”")


def test_in_codex_the_context_stays_under_2500_tokens_as_codex_counts_them(tmp_path, monkeypatch):
    """A Codex rollout is read in Codex's hook: its limit, 2,500 estimated tokens, holds, and the punctuation of
    each line ('2025-11-04 10:01 UTC (…, record line:354): “…”') counts, as in Codex's lexical estimate."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    prompts = rules(200)
    text = context(codex_rollout(tmp_path / "rollout.jsonl", prompts), tmp_path)
    shown = entries(text)
    assert 2_300 < codex_tokens(text) <= 2_500, codex_tokens(text)
    assert -(-len(text.encode("utf-8")) // 4) < 2_300  # bytes alone would have let far more in
    count, kinds, _ = LEFT_OUT.match(text.splitlines()[-1]).groups()
    assert (int(count), kinds) == (200 - len(shown), "constraints")


def test_within_the_limit_nothing_is_left_out_and_no_count_line_is_printed(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    prompts = rules(5)
    text = context(claude_code_transcript(tmp_path / "session.jsonl", prompts), tmp_path)
    assert len(entries(text)) == 5 and "more not shown" not in text


def _said(key: str, text: str, kind: str = "user") -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind=kind, authority="assistant" if kind == "assistant"
                        else "user", timestamp="2025-01-01T00:00:00Z")  # fmt: skip


def test_the_count_line_names_each_kind_left_out_most_first() -> None:
    """A log read in neither agent is held to both limits, and what is left out is counted by kind."""
    records = [_said("a1", "Which database should the export job use: A. Postgres or B. SQLite?", "assistant"),
               _said("u30", "Let's go with Postgres for the export job, and keep SQLite for the tests."),
               _said("u31", "I prefer British spelling in every user-facing message.")]  # fmt: skip
    records += [_said(f"u{i}", rule) for i, rule in enumerate(rules(30))]  # newer: shown first, so these two are cut
    trace = session_log(records, (len(records), "Worked on the checkout page."))
    trace = type(trace)("fixture", "native", trace.sources, trace.generations, extra=trace.extra)
    newest, restored = guard_check.restored_items(trace)
    kinds = Counter(item.kind.removeprefix("user-") for item in restored)
    assert kinds == Counter(constraint=30, decision=1, preference=1), kinds
    text, shown = guard_check.manifest(trace, newest, restored, max_tokens=150)
    left = Counter(item.kind.removeprefix("user-") for item in restored if item not in shown)
    named = ", ".join(f"{n} {k}{'s' if n > 1 else ''}" for k, n in sorted(left.items(), key=lambda p: (-p[1], p[0])))
    *most, least = named.split(", ")
    expected = f"({left.total()} more not shown: {', '.join(most)} and {least}; `compaction-inspector check fixture`"
    assert text.splitlines()[-1] == f"{expected} lists them.)"
    assert len(left) == 3 and len(shown) + left.total() == len(restored)


@pytest.mark.parametrize("length", [400, 1_000])
def test_a_path_long_enough_to_crowd_out_items_is_not_printed(tmp_path, monkeypatch, length):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path
    while len(str(folder)) < length - len("/session.jsonl"):
        folder = folder / ("d" * min(200, length - len("/session.jsonl") - len(str(folder)) - 1 or 1))
    folder.mkdir(parents=True, exist_ok=True)
    transcript = claude_code_transcript(folder / "session.jsonl", rules(200))
    last = context(transcript, tmp_path).splitlines()[-1]
    assert last.endswith("; `compaction-inspector check` on this session's log lists them.)")
    assert str(folder) not in last
