"""A summary spells a path another way than the log did, and it still resolves: from the home folder (`~/`), from the
working folder a command ran in, or glued to a word of a language written without spaces. Each came from a real
session outside ../shared: duet (`~/dev/cli/duet/.claude-plugin/plugin.json` of a `git diff .claude-plugin/plugin.json`
run in `/Users/…/dev/cli/duet`), wfc (`~/.claude/skills` of `/Users/…/.claude/skills/wfc-implement`), dotnix (a
Japanese user's "modules/nix-on-droid/default.nixにして") and teslamint (Korean text glued to `AGENTS.md`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.analysis import analyze
from inspector.anchors import extract_anchors
from inspector.readers import load_trace
from tests.test_reader_claude_code import assistant, record, user, write

WORKING = "/Users/tslater/dev/cli/duet"


def _ran(n: int, parent: str, command: str, output: str) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output}
    return [assistant(f"c{n}", parent, [call], cwd=WORKING), user(f"r{n}", f"c{n}", [result], cwd=WORKING)]


def _session(tmp_path: Path, first: str, before: list[dict[str, Any]], summary: str,
             after: list[dict[str, Any]] = ()) -> Any:  # fmt: skip
    last = before[-1]["uuid"] if before else "u1"
    return load_trace(write(tmp_path / "spelled.jsonl", [
        user("u1", None, first, cwd=WORKING), *before,
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid=last, cwd=WORKING,
               compactMetadata={"trigger": "auto", "preTokens": 5000}),
        user("s1", "b1", summary, isCompactSummary=True, cwd=WORKING), *after,
    ]))  # fmt: skip


def _unresolved(trace: Any) -> list[str]:
    return [f.message.split("'")[1] for f in analyze(trace).findings if f.rule == "unresolved-anchor"]


def _severities(trace: Any) -> dict[str, str]:
    return {f.message.split("'")[1]: f.severity.value for f in analyze(trace).findings if f.rule == "unresolved-anchor"}


def test_a_home_or_full_path_resolves_to_what_a_command_in_the_working_folder_printed_bare(tmp_path: Path) -> None:
    diff = _ran(1, "u1", "git diff .claude-plugin/plugin.json",
                "diff --git a/.claude-plugin/plugin.json b/.claude-plugin/plugin.json\n-  \"version\": \"1.2.0\"")
    trace = _session(tmp_path, "Bump the plugin version.", diff,
                     "Summary: bumped the version in ~/dev/cli/duet/.claude-plugin/plugin.json (also "
                     f"{WORKING}/.claude-plugin/plugin.json); ~/dev/cli/other/.claude-plugin/plugin.json was not "
                     "touched, nor ~/dev/cli/duet/.claude-plugin/marketplace.json, nor "
                     "~/duet/.claude-plugin/plugin.json.")
    assert trace.working_folder == WORKING
    # Another project's copy, a file of the working folder no command printed, and a folder in the home folder that
    # only shares the working folder's name (~/duet is /Users/tslater/duet) stay unresolved.
    assert _unresolved(trace) == ["~/dev/cli/other/.claude-plugin/plugin.json",
                                  "~/dev/cli/duet/.claude-plugin/marketplace.json", "~/duet/.claude-plugin/plugin.json"]


def test_a_folder_in_the_home_folder_is_known_by_a_file_under_its_full_spelling(tmp_path: Path) -> None:
    listing = _ran(1, "u1", "ls /Users/tslater/.claude/skills/wfc-implement",
                   "/Users/tslater/.claude/skills/wfc-implement/SKILL.md")
    trace = _session(tmp_path, "Which skills are installed?", listing,
                     "Summary: the skills live in ~/.claude/skills; nothing is in ~/.claude/agents yet.")
    assert _unresolved(trace) == ["~/.claude/agents"]


def test_a_path_glued_to_a_word_of_a_language_without_spaces_ends_where_the_script_changes() -> None:
    assert [a.key for a in extract_anchors('"modules/nix-on-droid/default.nixにして" (the user)')] == [
        "modules/nix-on-droid/default.nix"]
    assert [a.key for a in extract_anchors("flake.lockは更新されない, 設定はmodules/user.nixです")] == [
        "flake.lock", "modules/user.nix"]
    assert [a.key for a in extract_anchors("AGENTS.md를 읽고 https://github.com/misumisumi/flakesはどうしてる")] == [
        "AGENTS.md", "https://github.com/misumisumi/flakes"]
    # A name written in the script between a path's separators is part of it; offsets stay those of the text.
    [named] = extract_anchors("見て docs/仕様書.md を")
    assert (named.key, named.start, named.end) == ("docs/仕様書.md", 3, 14)


def test_a_glued_path_resolves_against_the_same_path_glued_in_the_log(tmp_path: Path) -> None:
    asked = "https://github.com/misumisumi/flakesはどうしてる？ modules/nix-on-droid/default.nixにして"
    trace = _session(tmp_path, asked, [], "Summary: the user asked how https://github.com/misumisumi/flakes pins "
                                          "inputs, and to use modules/nix-on-droid/default.nix.")  # fmt: skip
    assert _unresolved(trace) == []


def test_a_path_the_log_shows_only_after_the_compaction_is_unresolved_as_info(tmp_path: Path) -> None:
    """teslamint (wider): S1 says decisions are "stored in `.entirecontext/db/local.db`", a path no record before it
    bears (the project's instruction file, which the log does not hold, says so); after S1 the agent opened it with
    `sqlite3 .entirecontext/db/local.db`. The path is real: info, not a dead pointer. A path no record ever bears is
    still a warning."""
    later = _ran(2, "s1", "sqlite3 .entirecontext/db/local.db 'SELECT id FROM decisions'", "0aaa4fa6")
    trace = _session(tmp_path, "Release the decision store.", [],
                     "Summary: decisions are stored in `.entirecontext/db/local.db`; the schema is in "
                     "`src/entirecontext/db/schema.sql`.", later)
    assert _severities(trace) == {".entirecontext/db/local.db": "info", "src/entirecontext/db/schema.sql": "warning"}
