"""A summary spells a path another way than the log did, and it still resolves: from the home folder (`~/`), from the
working folder a command ran in, or glued to a word of a language written without spaces. Each came from a real
session outside ../shared: duet (`~/dev/cli/duet/.claude-plugin/plugin.json` of a `git diff .claude-plugin/plugin.json`
run in `/Users/…/dev/cli/duet`, and `/Users/…/dev/lore/lib/lore-client-base.sh` of a `git status` run after
`cd /Users/…/dev/lore`), wfc (`~/.claude/skills` of `/Users/…/.claude/skills/wfc-implement`), dotnix (a
Japanese user's "modules/nix-on-droid/default.nixにして"), teslamint (Korean text glued to `AGENTS.md`), cipherbox
(`@.planning/ROADMAP.md`, Claude Code's reference to a file) and medgemma (a URL closed by a markdown table's `|`).
Each was a false warning of an unresolved anchor in sessions labelled blind (extra9, extra22, extra24)."""

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


def test_a_full_path_resolves_to_what_a_command_printed_after_changing_into_its_folder(tmp_path: Path) -> None:
    status = _ran(1, "u1", "cd /Users/tslater/dev/lore && git status --short | head -30",
                  "?? LORE_CONTRACT.md\n?? lib/lore-client-base.sh\n?? lore.sh")
    trace = _session(tmp_path, "Rename lineage to lore in the new repo.", status,
                     "Summary: created /Users/tslater/dev/lore/lib/lore-client-base.sh and ~/dev/lore/lore.sh; "
                     "/Users/tslater/dev/lore/lib/lore-server.sh and /Users/tslater/dev/other/lib/lore-client-base.sh "
                     "do not exist yet.")
    # A file of the folder no command printed, and the same name under a folder no command entered, stay unresolved.
    assert _unresolved(trace) == ["/Users/tslater/dev/lore/lib/lore-server.sh",
                                  "/Users/tslater/dev/other/lib/lore-client-base.sh"]


def test_a_path_from_the_working_folder_resolves_to_what_a_command_printed_in_a_folder_under_it(tmp_path: Path) -> None:
    """raven_a4aae4ac (fresh73, read after its score): S2 names `.worktrees/pr209/.github/workflows/go.yml`, whose
    file a `sed -i … .github/workflows/go.yml` changed after `cd …/raven/.worktrees/pr209`. A path from the working
    folder is spelled in full from it, then from each folder a run changed into."""
    fix = _ran(1, "u1", f"cd {WORKING}/.worktrees/pr209 && sed -i '' 's/ bpftool//' .github/workflows/go.yml && "
                        "git add .github/workflows/go.yml", "")
    trace = _session(tmp_path, "Fix the CI of every PR.", fix,
                     "Summary: the bpftool fix is in `.worktrees/pr209/.github/workflows/go.yml`; "
                     "`.worktrees/pr209/.github/workflows/docker.yml` and `.worktrees/pr210/.github/workflows/go.yml` "
                     "were not touched.")
    # Another file of that folder, and the same file under a folder no run entered, stay unresolved.
    assert _unresolved(trace) == [".worktrees/pr209/.github/workflows/docker.yml",
                                  ".worktrees/pr210/.github/workflows/go.yml"]


def test_a_file_reference_resolves_without_its_at_sign_and_an_import_alias_keeps_it() -> None:
    assert [a.key for a in extract_anchors("**Load roadmap:**\n@.planning/ROADMAP.md\nand @src/app.ts, @README.md")] \
        == [".planning/ROADMAP.md", "src/app.ts", "README.md"]
    assert [a.key for a in extract_anchors("import { t } from '@/lib/i18n/en.ts'; node_modules/@types/node/fs.d.ts")] \
        == ["@/lib/i18n/en.ts", "node_modules/@types/node/fs.d.ts"]
    assert [a.key for a in extract_anchors("mail a@b.io about a@b/c/d.py")] == ["a@b/c/d.py"]  # no `@` opens them


def test_a_file_referenced_with_an_at_sign_is_known_to_a_summary_that_names_it_plainly(tmp_path: Path) -> None:
    trace = _session(tmp_path, "Discuss phase 4.\n**Load roadmap:**\n@.planning/ROADMAP.md", [],
                     "Summary: the phase boundary comes from .planning/ROADMAP.md.")
    assert _unresolved(trace) == []


def test_a_url_ends_where_a_markdown_table_cell_does() -> None:
    cell = "| age | `http://terminology.hl7.org/CodeSystem/usage-context-type|age` |"
    assert [a.key for a in extract_anchors(cell)] == ["http://terminology.hl7.org/CodeSystem/usage-context-type"]


def test_a_git_range_and_file_names_joined_by_slashes_are_no_paths() -> None:
    assert extract_anchors("compare origin/main...branch, then v1.2..release/2.0") == []
    assert extract_anchors("update sitemap/llms.txt/feed.xml and docs/README.md/CHANGELOG.md") == []
    # A folder named like a module with a version, or a file under folders, is still a path.
    assert [a.key for a in extract_anchors("gopkg.in/yaml.v3/decode.go and src/a.b/c.py")] == [
        "gopkg.in/yaml.v3/decode.go", "src/a.b/c.py"]


def test_a_file_name_capitalised_to_open_a_list_item_resolves_as_the_log_writes_it(tmp_path: Path) -> None:
    """wfc (unlabelled, three logs of one session): S1's "- Keep-list.json in `.development/housekeeping/keep-list.json`
    persists branches …" opens a list item with the file's name; the log writes it `keep-list.json`. A name written
    in capitals (`README.md`) and a path under a folder are taken as written."""
    trace = _session(tmp_path, "Read .development/housekeeping/keep-list.json before scanning. See readme.md too.", [],
                     "Summary:\n- Keep-list.json persists branches to keep.\n- README.md and Docs/keep-list.json.")
    assert _unresolved(trace) == ["README.md", "Docs/keep-list.json"]


def test_a_script_file_resolves_as_its_imports_name_it(tmp_path: Path) -> None:
    """fasola_34b1f0fdd2 (unlabelled): S2 cites "useRecipeForm.ts line 170"; the log knows the module only as its
    imports name it, `from '../hooks/useRecipeForm'`, with no extension, and S2 was warned of a dead pointer. A
    script's name without its extension is its import's; another kind of file, or another module, is not."""
    grep = _ran(1, "u1", "grep -rn useRecipeForm src/components",
                "src/components/RecipeEditor.tsx:4:import { useRecipeForm } from '../hooks/useRecipeForm'")
    trace = _session(tmp_path, "Fix the tag types.", grep,
                     "Summary: tags are typed in useRecipeForm.ts line 170; see also useRecipeForm.py and "
                     "useRecipeList.ts.")
    assert _unresolved(trace) == ["useRecipeForm.py", "useRecipeList.ts"]


def test_a_files_stem_the_log_names_is_a_note_when_it_resolves_to_nothing(tmp_path: Path) -> None:
    """meow_f29a7049 (fresh70, S1 faithful by its blind labels): "Article slugs: 7c5d99d5f45ed7, c10431f5afd26d", the
    names `npx zenn new:article` gave the files `articles/7c5d99d5f45ed7.md` … that every later command names. A hex
    string the log bears nowhere, not even as a file's name, is still a dead pointer."""
    lint = _ran(1, "u1", 'npx textlint "articles/7c5d99d5f45ed7.md" "articles/c10431f5afd26d.md"', "✖ 3 problems")
    trace = _session(tmp_path, "Write the five articles.", lint,
                     "Article slugs: 7c5d99d5f45ed7, c10431f5afd26d, 8471b2d4bdc9d3")
    assert _severities(trace) == {"7c5d99d5f45ed7": "info", "c10431f5afd26d": "info", "8471b2d4bdc9d3": "warning"}
