"""Large synthetic sessions for the benchmarks: Claude Code 2.x or Codex JSONL, or native compaction traces.

    python bench/generate.py OUT --format claude-code|codex|native --mb 100 --generations 4 [--seed 7]

Sizes from about 1 MB to 500 MB and 1 to 200 generations. Claude Code sessions look like real ones
where it matters for speed: streamed assistant pieces with thinking blocks, tool calls with sizeable
results, rewinds, sub-agent sidechains, and compaction summaries that print file paths, commits and
tickets (some of which the transcript never mentioned) with a few "as noted earlier". Codex rollouts carry
what makes real ones large: a turn context per turn, encrypted reasoning, each command's output written
again in its `exec_command_end` event, token counts, and compactions that put the history back. Files go where
you say, which should be a temporary folder: never the repository.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import orjson

SESSION = "b3a9d7e0-4c21-4f5e-9a8b-0d6e2f1c7a55"
_ASKS = ("Refactor the job runner.", "Never push to main without review; only merge via PRs.",
         "Fix the failing API test.", "Don't touch the billing tables until the audit ends.")  # fmt: skip
_VOCABULARY = (
    "ledger migration schema staging database release lock deploy rollback service worker queue retry cache "
    "token config report nightly batch invoice payment audit export index column table snapshot outbox"
).split()
_FILLER = "the a of to and in for with on was is as by from that this it".split()


class ClaudeSession:
    """Writes plausible 2.x records: streamed assistant pieces, tool calls and sizeable results."""

    def __init__(self, rng: random.Random, summary_kb: tuple[float, float] = (6, 24)) -> None:
        self.rng = rng
        self.summary_kb = summary_kb
        """The range each summary's size is drawn from: real Claude Code summaries are 6 to 24 KB."""
        self.n = 0
        self.parent: str | None = None
        self.files = [f"/srv/app/{d}/{m}_{i}.py" for d in ("core", "api", "jobs", "db") for m in ("models", "views",
                      "tasks", "utils") for i in range(60)]  # fmt: skip
        self.commits: list[str] = []

    def _base(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        uuid = f"{self.n:08x}-0000-4000-8000-{self.n:012x}"
        record = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": "/srv/app",
                  "sessionId": SESSION, "version": "2.0.31", "gitBranch": "main", "type": kind, **fields,
                  "uuid": uuid, "timestamp": f"2025-11-04T{self.n // 3600 % 24:02d}:{self.n // 60 % 60:02d}:"
                  f"{self.n % 60:02d}.000Z"}  # fmt: skip
        self.parent = uuid
        return record

    def _code(self, lines: int) -> str:
        rng = self.rng
        out = []
        for i in range(lines):
            pick = rng.random()
            if pick < 0.08:
                out.append(f"{i:5d}\tfrom {rng.choice(self.files)[9:-3].replace('/', '.')} import handler")
            elif pick < 0.1:
                commit = f"{rng.getrandbits(40):010x}"
                self.commits.append(commit)
                out.append(f"{i:5d}\t# see {rng.choice(self.files)} and commit {commit} (OPS-{rng.randint(1, 999)})")
            else:
                out.append(f"{i:5d}\t    value_{rng.randint(0, 999)} = compute(item, limit={rng.randint(1, 500)})")
        return "\n".join(out)

    def turn(self) -> list[dict[str, Any]]:
        rng = self.rng
        records = []
        ask = rng.choice(_ASKS) + f" Look at {rng.choice(self.files)}."
        records.append(self._base("user", message={"role": "user", "content": ask}))
        if rng.random() < 0.05:  # a rewind: this request and its answer end up on an abandoned branch
            fork = self.parent
            answer = {"id": f"msg_{self.n:010d}", "role": "assistant", "content": [{"type": "text", "text": "On it."}]}
            records.append(self._base("assistant", message=answer))
            self.parent = fork
            records.append(self._base("user", message={"role": "user", "content": "No, wait. " + ask}))
        if rng.random() < 0.1:  # a sub-agent's records, interleaved on their own sidechain
            main = self.parent
            self.parent = None
            for _ in range(3):
                records.append(
                    self._base("user", isSidechain=True, message={"role": "user", "content": "Search for callers."})
                )
            self.parent = main
        for step in range(rng.randint(4, 25)):
            message_id = f"msg_{self.n:010d}"
            tool_id = f"toolu_{self.n:012d}"
            path = rng.choice(self.files)
            tool = rng.choice(["Read", "Read", "Bash", "Edit"])
            inputs = {"Read": {"file_path": path},
                      "Bash": {"command": rng.choice([f"pytest {path} -q", "git status", "git commit -am 'wip'"])},
                      "Edit": {"file_path": path, "old_string": "a = 1", "new_string": "a = 2"}}[tool]  # fmt: skip
            thinking = {"type": "thinking", "thinking": "Considering the next step. " * 20, "signature": "sig"}
            pieces = [[thinking], [{"type": "text", "text": f"Step {step}: checking {path}."}],
                      [{"type": "tool_use", "id": tool_id, "name": tool, "input": inputs}]]  # fmt: skip
            for blocks in pieces:
                records.append(self._base("assistant", requestId=f"req_{message_id}", message={
                    "id": message_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": blocks, "usage": {"input_tokens": 4, "output_tokens": 60}}))  # fmt: skip
            error = rng.random() < 0.05
            body = self._code(rng.randint(20, 400)) if tool == "Read" else "ok\n" + self._code(rng.randint(2, 30))
            if error and tool == "Bash":  # a failure of the work, each in its own words, as a debugging session has
                body = (f"Exit code 1\nFAILED {path}::test_{rng.choice(_VOCABULARY)} - AssertionError: expected "
                        f"{rng.randint(0, 999)}, got {rng.randint(0, 999)}")  # fmt: skip
            block = {"type": "tool_result", "tool_use_id": tool_id, "content": body, "is_error": error}
            records.append(self._base("user", message={"role": "user", "content": [block]},
                                      toolUseResult={"stdout": body, "stderr": "", "interrupted": False}))  # fmt: skip
        return records

    def summary_text(self, index: int, total: int) -> str:
        """A summary shaped and sized like Claude Code's (its nine numbered sections, `summary_kb` KB: real ones are
        6 to 24 KB): the user's messages quoted, files with code, commits and tickets, errors and fixes, claims of
        passing tests and speed-ups, a few keys the transcript never showed and a few "as noted earlier"; keys
        decay along the chain."""
        rng = self.rng
        low, high = self.summary_kb
        target = int(rng.uniform(low, high) * 1024)
        keep = max(4, int(40 * (1 - index / (total + 1))))  # anchors decay along the chain
        head = [f"This session is being continued from a previous conversation that ran out of context ({index}).",
                "Analysis:", "Let me go through the conversation chronologically.", "", "Summary:",
                "1. Primary Request and Intent:", "   - Never push to main without review; only merge via PRs.",
                f"   - {rng.choice(_ASKS)} Focus on {rng.choice(self.files)}.", "", "2. Key Technical Concepts:"]
        head += [f"   - {rng.choice(_VOCABULARY)} {rng.choice(_VOCABULARY)} handling" for _ in range(6)]
        head += ["", "3. Files and Code Sections:"]
        sections = {
            "files": lambda: [f"   - {rng.choice(self.files)}", "     - Why important: it holds the "
                              f"{rng.choice(_VOCABULARY)} path the tests exercise.", "     ```python",
                              *(f"     def {rng.choice(_VOCABULARY)}_{rng.randint(0, 99)}(item, "
                                f"limit={rng.randint(1, 500)}):" for _ in range(rng.randint(2, 6))), "     ```"],
            "errors": lambda: [f"   - `pytest {rng.choice(self.files)}` failed with AssertionError: "
                               f"{rng.randint(1, 9)} != {rng.randint(1, 9)}.", "     - Fixed by resetting the "
                               f"{rng.choice(_VOCABULARY)} before each case; all {rng.randint(10, 300)} tests "
                               "pass now."],
            "work": lambda: [f"   - Edited {rng.choice(self.files).rsplit('/', 1)[-1]} as noted earlier.",
                             f"   - Committed {rng.choice(self.commits) if self.commits else 'abc1234'} for "
                             f"OPS-{rng.randint(1, 999)}; the build is green and it is {rng.randint(2, 9)}x faster.",
                             f"   - Moved settings to /srv/app/conf/extra_{rng.randint(0, 99)}.yaml and related "
                             "items."],
        }  # fmt: skip
        body: list[str] = []
        size = sum(len(line) + 1 for line in head)
        kinds = list(sections)
        while size < target - 1200:
            kind = kinds[len(body) % 3] if len(body) < 3 * keep else rng.choice(kinds)
            lines = sections[kind]()
            body += lines
            size += sum(len(line) + 1 for line in lines)
        tail = ["", "6. All user messages:", *(f'   - "{rng.choice(_ASKS)}"' for _ in range(4)), "",
                "7. Pending Tasks:", f"   - Finish {rng.choice(self.files)}.", "", "8. Current Work:",
                f"   Working on {rng.choice(self.files)}; tests in /srv/app/tests/test_api.py pass.", "",
                "9. Optional Next Step:", f"   Run the {rng.choice(_VOCABULARY)} suite again."]  # fmt: skip
        return "\n".join([*head, *body, *tail])

    def compaction(self, index: int, total: int) -> list[dict[str, Any]]:
        logical = self.parent
        self.parent = None
        metadata = {"trigger": "auto", "preTokens": 160_000, "postTokens": 9_000}
        boundary = self._base("system", subtype="compact_boundary", content="Conversation compacted",
                              logicalParentUuid=logical, compactMetadata=metadata)  # fmt: skip
        text = self.summary_text(index, total)
        return [boundary, self._base("user", isCompactSummary=True, message={"role": "user", "content": text})]


class CodexSession:
    """Writes plausible Codex rollout lines (`{timestamp, type, payload}`), reusing the Claude session's text."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.code = ClaudeSession(rng)
        self.n = 0
        self.history: list[dict[str, Any]] = []

    def _line(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        clock = f"{self.n // 3600 % 24:02d}:{self.n // 60 % 60:02d}:{self.n % 60:02d}"
        return {"timestamp": f"2025-11-04T{clock}.000Z", "type": kind, "payload": payload}

    def meta(self) -> list[dict[str, Any]]:
        return [self._line("session_meta", {"id": SESSION, "cwd": "/srv/app", "cli_version": "0.46.0",
                                            "base_instructions": {"text": "You are Codex. " * 800}})]  # fmt: skip

    def turn(self) -> list[dict[str, Any]]:
        rng, files = self.rng, self.code.files
        ask = rng.choice(_ASKS) + f" Look at {rng.choice(files)}."
        user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ask}]}
        self.history.append(user)
        context = {"cwd": "/srv/app", "approval_policy": "never", "user_instructions": "Follow AGENTS.md. " * 100}
        lines = [self._line("turn_context", context), self._line("response_item", user),
                 self._line("event_msg", {"type": "user_message", "message": ask})]  # fmt: skip
        for _ in range(rng.randint(4, 25)):
            call = f"call_{self.n:010d}"
            path = rng.choice(files)
            command = rng.choice([f"sed -n '1,400p' {path}", f"pytest {path} -q", "git commit -am 'wip'"])
            body = self.code._code(rng.randint(20, 400) if command.startswith("sed") else rng.randint(2, 30))
            code = 1 if rng.random() < 0.05 else 0
            output = {"output": body, "metadata": {"exit_code": code, "duration_seconds": 0.2}}
            arguments = orjson.dumps({"command": ["bash", "-lc", command]}).decode()
            lines += [
                self._line("response_item", {"type": "reasoning", "summary": [], "content": None,
                                             "encrypted_content": "gAAAAB" + "x" * rng.randint(1000, 6000)}),
                self._line("response_item", {"type": "function_call", "name": "shell", "call_id": call,
                                             "arguments": arguments}),
                self._line("event_msg", {"type": "exec_command_end", "call_id": call, "stdout": body, "stderr": "",
                                         "aggregated_output": body, "formatted_output": body, "exit_code": code,
                                         "parsed_cmd": [{"type": "read", "cmd": command, "path": path}]}),
                self._line("response_item", {"type": "function_call_output", "call_id": call,
                                             "output": orjson.dumps(output).decode()}),
                self._line("event_msg", {"type": "token_count", "info": {"last_token_usage": {
                    "input_tokens": 90_000, "output_tokens": 300, "total_tokens": 90_300}},
                    "rate_limits": {"primary": {"used_percent": 1.0, "window_minutes": 300}}}),
            ]  # fmt: skip
        reply = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}
        self.history.append(reply)
        return [*lines, self._line("response_item", reply)]

    def compaction(self, index: int, total: int) -> list[dict[str, Any]]:
        text = self.code.summary_text(index, total)
        self.history = self.history[-20:]
        kept = [*self.history, {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]
        return [self._line("compacted", {"message": text, "replacement_history": kept})]


def claude_code(path: Path, megabytes: float, generations: int, seed: int = 7) -> int:
    """A Claude Code session of at least `megabytes` MB with `generations` - 1 compactions; returns bytes."""
    return _session(ClaudeSession(random.Random(seed)), path, megabytes, generations)


def codex(path: Path, megabytes: float, generations: int, seed: int = 7) -> int:
    """A Codex rollout of at least `megabytes` MB with `generations` - 1 compactions; returns bytes."""
    session = CodexSession(random.Random(seed))
    return _session(session, path, megabytes, generations, tuple(session.meta()))


def _session(session: ClaudeSession | CodexSession, path: Path, megabytes: float, generations: int,
             head: tuple[dict[str, Any], ...] = ()) -> int:  # fmt: skip
    """Turns until the file holds `megabytes` MB, with the compactions spread evenly between them."""
    target = int(megabytes * 1024 * 1024)
    compactions = max(0, generations - 1)
    marks = [target * (k + 1) // (compactions + 1) for k in range(compactions)]
    written = 0
    with path.open("wb") as out:
        records = list(head)
        while written < target:
            records += session.turn()
            while marks and written >= marks[0]:
                marks.pop(0)
                records += session.compaction(compactions - len(marks), compactions)
            chunk = b"".join(orjson.dumps(r) + b"\n" for r in records)
            out.write(chunk)
            written += len(chunk)
            records = []
    return written


def native_trace(generations: int, words: int, seed: int = 7) -> Any:
    """A native trace: 200 ledger records, then S0…S(n-1) of about `words` words each."""
    from inspector.model import Generation, SourceRecord, Trace

    constraints = [
        "Never run migrations against the staging database until the release job releases the lock.",
        "Always run the schema check before each deploy.",
        "The March backfill was already completed; do not rerun it.",
        "Do not delete rows from the audit_log table.",
    ]
    rng = random.Random(seed)
    sources = [SourceRecord(f"ledger:{i}", f"note {i}") for i in range(200)]
    sources[:4] = [SourceRecord(f"ledger:{i}", text, authority="user") for i, text in enumerate(constraints)]
    keys = tuple(s.key for s in sources)
    chain = []
    for index in range(generations):
        kept = constraints[: max(1, 4 - index * 4 // max(generations, 1))]
        body: list[str] = []
        while len(body) < words:
            roll = rng.random()
            if roll < 0.02:
                body.append(f"[[ledger:{rng.randrange(220)}]]")
            elif roll < 0.03:
                body.append(rng.choice(["etc.", "as noted earlier", "the above"]))
            elif roll < 0.10:
                body.append(rng.choice(_VOCABULARY) + ".")
            else:
                body.append(rng.choice(_VOCABULARY if rng.random() < 0.5 else _FILLER))
        text = " ".join(kept) + "\n" + " ".join(body)
        chain.append(
            Generation(index, "raw" if index == 0 else "summary", text, index - 1 if index else None, covers=keys)
        )
    return Trace("bench", "native", tuple(sources), tuple(chain))


def native(path: Path, megabytes: float, generations: int, seed: int = 7) -> int:
    """A native JSONL trace of about `megabytes` MB spread over `generations` generations."""
    from inspector.readers import native as native_format

    words = max(50, int(megabytes * 1024 * 1024 / 6.5 / max(generations, 1)))  # ~6.5 bytes a word
    native_format.write(native_trace(generations, words, seed), path, jsonl=True)
    return path.stat().st_size


def long_lines(path: Path, megabytes: float = 50, lines: int = 2, seed: int = 7) -> int:
    """A Claude Code session of `lines` records of `megabytes` MB each: a pasted prompt, then a reply.

    What a hostile or careless log looks like: one record holding a whole dump. Prose, not one
    repeated byte, so every sentence and word costs what it would in a real paste.
    """
    rng = random.Random(seed)
    session = ClaudeSession(rng)
    target = int(megabytes * 1024 * 1024)
    with path.open("wb") as out:
        for number in range(lines):
            pieces, size = [], 0
            while size < target:
                sentence = " ".join(rng.choice(_VOCABULARY + _FILLER) for _ in range(12)) + ". "
                pieces.append(sentence)
                size += len(sentence)
            text = "".join(pieces)
            if number % 2 == 0:
                record = session._base("user", message={"role": "user", "content": text})
            else:
                record = session._base("assistant", message={"id": f"msg_{number}", "role": "assistant",
                                                              "content": [{"type": "text", "text": text}]})  # fmt: skip
            out.write(orjson.dumps(record) + b"\n")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--format", choices=["claude-code", "codex", "native"], default="claude-code")
    parser.add_argument("--mb", type=float, default=100)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    writer = {"claude-code": claude_code, "codex": codex, "native": native}[args.format]
    size = writer(args.out, args.mb, args.generations, args.seed)
    print(f"{args.out}: {size / 1e6:.1f} MB, {args.format}, {args.generations} generations")


if __name__ == "__main__":
    main()
