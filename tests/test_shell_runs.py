"""Shell runs and the life of a failure, one mechanism per test, each from a real session excerpt.

The commands and outputs are from ../shared/real_traces (labelled sessions and the readable half of wider/),
cut short; paths and names are changed.
"""

from __future__ import annotations

import json

import pytest

from inspector.model import SourceRecord
from inspector.readers.registry import load_trace
from inspector.shell_runs import command_signature, failure_line, failures, inline_code, parse_steps, shell_runs
from inspector.shell_runs import ran as what_ran
from inspector.shell_tree import tree_steps


def ran(key: str, command: str, output: str, failed: bool = False, **extra: object) -> SourceRecord:
    return SourceRecord(key=key, text=output, namespace="transcript", kind="tool_error" if failed else "tool_result",
                        authority="tool", extra={"command": command, **extra})  # fmt: skip


def open_failures(*records: SourceRecord) -> list[str]:
    return [f.text for f in failures(shell_runs(records)) if f.retired_by is None and f.superseded_by is None]


def fates(*records: SourceRecord) -> list[tuple[str, str | None, str | None]]:
    return [(f.run.key, f.retired_by, f.how) for f in failures(shell_runs(records))]


# --- what a line attempted ---------------------------------------------------------------------------


def test_a_pipeline_into_grep_that_matches_nothing_is_no_failure_of_pip() -> None:
    # grep's status 1 is "no match": the pipeline's status is the filter's, not pip's.
    [run] = shell_runs([ran("t1", "pip list | grep -i cupy", "Exit code 1", failed=True)])
    assert (run.signature, run.status_failed) == (("pip", "list"), False)


def test_the_harness_reading_a_status_as_an_answer_is_carried_from_the_log(tmp_path) -> None:
    call = {"type": "assistant", "uuid": "a1", "parentUuid": None, "message": {"role": "assistant", "id": "m1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                         "input": {"command": "pip list | grep -i cupy"}}]}}  # fmt: skip
    result = {"type": "user", "uuid": "u1", "parentUuid": "a1", "message": {"role": "user", "content": [
        {"tool_use_id": "toolu_1", "type": "tool_result", "content": "", "is_error": True}]},
        "toolUseResult": {"stdout": "", "stderr": "", "interrupted": False, "isImage": False,
                          "returnCodeInterpretation": "No matches found"}}  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (call, result)) + "\n")
    [run] = shell_runs(load_trace(path).sources)
    assert (run.failed, run.status_is_answer, run.clean) == (True, True, True)
    [answered] = shell_runs([ran("t1", "go vet ./...", "", failed=True, exit_meaning="No matches found")])
    assert not answered.status_failed


REJECTED_RUN = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
                "file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the "
                "user to tell you how to proceed.")  # fmt: skip


@pytest.mark.parametrize(
    ("body", "slip"),
    [
        (REJECTED_RUN, "rejected"),
        ("[Request interrupted by user for tool use]", "interrupted"),
        ("<tool_use_error>Sibling tool call errored</tool_use_error>", "refused by the harness"),
        ("Exit code 1\nerror: failed to push some refs to 'github.com:org/cli.git'", None),
    ],
)
def test_a_call_the_user_or_the_harness_stopped_is_a_slip_the_reader_flags(tmp_path, body: str, slip) -> None:
    call = {"type": "assistant", "uuid": "a1", "parentUuid": None, "message": {"role": "assistant", "id": "m1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                         "input": {"command": "git push origin feature/fix-import"}}]}}  # fmt: skip
    result = {"type": "user", "uuid": "u1", "parentUuid": "a1", "message": {"role": "user", "content": [
        {"tool_use_id": "toolu_1", "type": "tool_result", "content": body, "is_error": True}]}}  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (call, result)) + "\n")
    [record] = [r for r in load_trace(path).sources if r.kind == "tool_error"]
    assert record.extra.get("slip") == slip
    [run] = shell_runs([record])
    assert run.broke is (slip is None)
    # the analyses read the flag, not the words: the same words from another harness are a failure
    assert shell_runs([ran("t1", "git push origin feature/fix-import", body, failed=True)])[0].broke


def test_make_clean_then_make_is_an_attempt_of_make() -> None:
    assert command_signature("cd build && make clean && make") == ("make",)
    records = (ran("t1", "cd build && make", "src/vsla_core.c:12:5: error: unknown type name 'tensor_t'",
                   failed=True),
               ran("t2", "cd build && make clean && make", "[100%] Built target vsla"))  # fmt: skip
    assert fates(*records) == [("t1", "t2", "ran clean")]


def test_setup_steps_before_the_work_do_not_hide_its_failure() -> None:
    command = "cd /home/dev/vsla && rm -rf build && mkdir build && cd build && cmake .. -DVSLA_ENABLE_CUDA=ON"
    output = "CMake Error at /usr/share/cmake-3.28/Modules/CMakeDetermineCUDACompiler.cmake:28 (message):"
    assert open_failures(ran("t1", command, output, failed=True)) == [f"cmake: {output}"]


def test_a_failed_git_action_is_a_failure_and_a_look_is_not() -> None:
    rebase = ran("t1", "git rebase fork/feature/fix-import 2>&1",
                 "Exit code 1\nerror: cannot rebase: You have unstaged changes.", failed=True)  # fmt: skip
    status = ran("t2", "git -C /home/dev/repo status", "fatal: not a git repository", failed=True)
    assert open_failures(rebase, status) == ["git rebase: error: cannot rebase: You have unstaged changes."]


def test_wrappers_and_interpreter_names_are_one_program() -> None:
    assert command_signature("uv run python3 scripts/check.py") == command_signature("python scripts/check.py")
    assert command_signature("timeout 30 npx tsx bin/cli.ts merge 265") == ("tsx", "bin/cli.ts")


def test_a_runners_option_that_takes_a_value_is_not_the_program_it_runs() -> None:
    """dsa110flits_265e6f8b (fresh68, labelled blind, read after its score): `conda run -n flits python -m pytest …`
    failed with a NameError and was read as a program named flits; the clean re-run of the same tests after the fix,
    written the same way with a `python -c` line after it, was another program, so the failure stayed open and S1 was
    said to have lost it. monodreams' `uv run --with jsonschema python -` runs python, not jsonschema."""
    pytest = "python -m pytest scintillation/scint_analysis/tests/test_consistency_wiring.py -q"
    assert command_signature(f"conda run -n flits {pytest}") == command_signature(pytest)
    assert command_signature(f"conda run --prefix /opt/envs/flits {pytest}") == command_signature(pytest)
    assert command_signature(f"uv run --with jsonschema --python 3.12 {pytest}") == command_signature(pytest)
    assert command_signature("uv run --with jsonschema python -") == ("python", "-")
    assert command_signature(f"uv run --frozen {pytest}") == command_signature(pytest)  # a flag with no value
    failed = ran("r1", f"conda run -n flits {pytest} 2>&1 | tail -15",
                 "E       NameError: name 'scattering_scintillation_consistency' is not defined\n3 failed in 5.46s",
                 failed=True)  # fmt: skip
    assert fates(failed, ran("r2", f"conda run -n flits {pytest} 2>&1 | tail -15", "3 passed in 5.10s")) == [
        ("r1", "r2", "its tests passed, read through a filter")]


def test_an_installed_program_named_from_the_home_folder_is_the_program_itself() -> None:
    """safecast-map-MCP: `swag init` failed, then `go install …/swag@latest && ~/go/bin/swag init` ran it by
    its path in the home folder; a path inside the project (`bin/swag`) stays its own program."""
    assert command_signature("~/go/bin/swag init -g cmd/x.go") == command_signature("swag init -g cmd/x.go")
    assert command_signature("$HOME/.cargo/bin/tool build") == ("tool", "build")
    assert command_signature("bin/swag init") == ("bin/swag", "init")
    fixed = fates(ran("r1", "swag init -o docs", "docs/x.go:3: error: bad annotation", failed=True),
                  ran("r2", "~/go/bin/swag init -o docs", "Generate swagger docs....\ncreate docs.go"))  # fmt: skip
    assert fixed == [("r1", "r2", "ran clean")]


def test_a_heredoc_inside_a_substitution_and_a_continued_line_are_read() -> None:
    # bashlex did not take a heredoc inside $(…); tree-sitter's grammar does, and keeps the quoted body one word.
    command = "cd /w/313 && gh issue comment 313 --body \"$(cat <<'END'\n## QA\nready\nEND\n)\" 2>&1"
    assert [step.words[0] for step in parse_steps(command)] == ["cd", "gh"]
    assert command_signature(command) == ("gh", "issue")
    # A line continued with a backslash joins the next line to it, as the shell does (wfc_e2e7a891: the lexer had
    # made the program of `&& \⏎bash scripts/housekeeping-git.sh commit "$(cat <<'EOF' …` a "⏎bash"). The lexer
    # still reads a line the grammar does not read whole: here one that ends in an unclosed `$((`.
    continued = "bash scripts/h.sh add x && \\\nbash scripts/h.sh commit \"$(cat <<'EOF'\nmsg\nEOF\n)\""
    for line in (continued, continued + " $(( 1 +"):
        assert [step.words[:3] for step in parse_steps(line)] == [
            ("bash", "scripts/h.sh", "add"), ("bash", "scripts/h.sh", "commit")], line  # fmt: skip
    assert tree_steps(continued + " $(( 1 +") is None


# --- the life of a failure ---------------------------------------------------------------------------

CUPY = "python3 -c \"import cupy; print('CuPy version:', cupy.__version__)\""
NO_CUPY = "Traceback (most recent call last):\n  File \"<string>\", line 1\nModuleNotFoundError: No module named 'cupy'"


def test_a_script_given_up_for_a_sibling_that_ran_clean_is_retired() -> None:
    crashed = ran("t1", "cd bench && python run_full_benchmark.py --full",
                  "Traceback (most recent call last):\nAttributeError: 'list' object has no attribute 'get'",
                  failed=True)  # fmt: skip
    sibling = ran("t2", "cd bench && python3 run_benchmark.py --quick", "CPU convolution: 1.9 ms\nDone.")
    assert fates(crashed, sibling) == [("t1", "t2", "replaced by a sibling script")]
    for other in ("python3 run.py", "python3 run_tests.py", "node run_benchmark.js", "python3 full_run_benchmark.py"):
        assert fates(crashed, ran("t2", other, "ok")) == [("t1", None, None)], other


def test_a_script_whose_work_was_then_done_inline_is_retired() -> None:
    """paicujp_a431b407 (fresh41, labelled blind: S1 faithful, this failure a non-issue "already fixed"): the import
    script could not load `dotenv`, and the agent ran the same import as code on the line, which ran clean; S1's
    account of the fix was called a failure presented as fixed. Inline code of another interpreter, or one that does
    not name the script's words, retires nothing."""
    crashed = ran("t1", "node scripts/import-r2511.mjs --dry-run 2>&1",
                  "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'dotenv'", failed=True)  # fmt: skip
    inline = "node --input-type=module -e \"import { createClient } from '@supabase/supabase-js'; /* R2511 */\""
    assert fates(crashed, ran("t2", inline, "Imported 53 R2511 responses")) == [("t1", "t2", "done inline instead")]
    for other in ("node -e \"console.log(1)\"", "python3 -c \"import r2511\""):
        assert fates(crashed, ran("t2", other, "ok")) == [("t1", None, None)], other


def test_inline_code_retried_as_a_script_retires_the_failure() -> None:
    assert command_signature(CUPY) == ("python", "-")  # no file names inline code
    records = (ran("t1", CUPY, NO_CUPY, failed=True), ran("t2", "python3 bench/check_cupy.py", "CuPy 13.2.0"))
    assert fates(*records) == [("t1", "t2", "retried in another form")]


def test_code_the_same_line_writes_to_a_file_is_inline_however_the_redirection_is_spaced_or_quoted() -> None:
    """`echo '…' > t.c && gcc t.c`: no file of the project names what it builds, so its retries take other forms.
    The written name must be whole (`t.c`, not `t.cc`) and follow the `>` past blanks and one quote at most."""
    for line in ("echo 'int main(){}' > t.c && gcc t.c", "printf x >t.c; gcc t.c", "cat <<EOF >  't.c'\nx\nEOF\n"
                 "gcc t.c", 'echo x >"t.c" && gcc t.c'):  # fmt: skip
        steps = parse_steps(line)
        assert inline_code(steps[-1], line), line
    for line in ("gcc t.c > t.cc", "gcc t.c", "cp a.c t.c && gcc t.c", "echo > '' t.c; gcc t.c"):
        steps = parse_steps(line)
        assert not inline_code(steps[-1], line), line


def test_a_later_clean_build_of_the_same_program_retires_its_failed_build() -> None:
    build = ("export PATH=/usr/local/cuda-12.6/bin:$PATH && gcc -I include bench_gpu.c build/libvsla.a -lm "
             "-lcudart -o bench_gpu")  # fmt: skip
    link = ("bench_gpu.c:(.text+0x1f8): undefined reference to `vsla_set_f32'\n"
            "collect2: error: ld returned 1 exit status")  # fmt: skip
    # The build stopped the line: the failure is the build of bench_gpu, which a build alone then retires.
    records = (ran("t1", f"{build} && ./bench_gpu", link, failed=True), ran("t2", build, ""))
    [failure] = failures(shell_runs(records))
    assert failure.text == "cc bench_gpu: bench_gpu.c:(.text+0x1f8): undefined reference to `vsla_set_f32'"
    assert (failure.retired_by, failure.how) == ("t2", "ran clean")


def test_the_failing_file_deleted_retires_the_failure() -> None:
    records = (ran("t1", "gcc -I include test_gpu_minimal.c build/libvsla.a -o test_gpu_minimal",
                   "test_gpu_minimal.c:8:9: error: stray '\\' in program", failed=True),
               ran("t2", "rm test_gpu_minimal.c", ""))  # fmt: skip
    assert fates(*records) == [("t1", "t2", "its file was removed")]


def test_a_merge_stopped_on_conflicts_is_concluded_by_the_next_clean_commit() -> None:
    """wfc_e2e7a891 (outside ../shared, read after its first look): `git merge origin/main` stopped on conflicts, the
    agent resolved them and `git add … && git commit --no-edit` made the merge commit; the merge stayed an open
    failure, and S2 saying the merge was done was called contradicted, at error. A merge refused outright (unrelated
    histories) is not concluded by a commit."""
    merge = ran("t1", "git merge origin/main --no-edit 2>&1", "Auto-merging ci.yml\nCONFLICT (content): Merge "
                "conflict in ci.yml\nAutomatic merge failed; fix conflicts and then commit the result.", failed=True)
    commit = ran("t3", "git add ci.yml && git commit --no-edit 2>&1", "[develop 8c1728e] Merge remote-tracking branch")
    assert fates(merge, ran("t2", "git status --short", "UU ci.yml"), commit) == [
        ("t1", "t3", "concluded by a commit")]
    refused = ran("t1", "git merge origin/main", "fatal: refusing to merge unrelated histories", failed=True)
    assert fates(refused, commit) == [("t1", None, None)]


def test_a_pull_refused_for_diverged_branches_is_reconciled_by_a_later_clean_merge() -> None:
    """joyusai_b62c46a7 (fresh74, labelled blind: S1 faithful, read after its score): `git checkout main && git pull
    --ff-only` failed ("fatal: Not possible to fast-forward, aborting."), and the next line, `git merge origin/main
    --no-ff … && git push origin main`, reconciled the branches; the pull stayed open and S1 was said to have lost it.
    A pull that failed for another reason is not concluded so."""
    pull = ran("t1", "git checkout main && git pull --ff-only", "Switched to branch 'main'\nYour branch is ahead of "
               "'origin/main' by 2 commits.\nhint: Diverging branches can't be fast-forwarded\nfatal: Not possible to "
               "fast-forward, aborting.", failed=True)  # fmt: skip
    merge = ran("t2", 'git merge origin/main --no-ff -m "chore: sync local main with origin/main" && git push origin '
                "main", "Merge made by the 'ort' strategy.\n 3 files changed\nTo github.com:x/y.git\n"
                "   9a1..b2c  main -> main")  # fmt: skip
    assert fates(pull, merge) == [("t1", "t2", "reconciled by a merge or rebase")]
    offline = ran("t1", "git pull --ff-only", "fatal: unable to access 'https://github.com/x/y/': Could not resolve "
                  "host: github.com", failed=True)  # fmt: skip
    assert fates(offline, merge) == [("t1", None, None)]


def test_a_package_script_is_retired_by_another_script_that_runs_its_tool_clean() -> None:
    """ovid_ec84c889 (fresh75, labelled blind: S1 faithful, scored before reading): `bun run lint:fix` ("$ biome check
    --write src") failed on a11y rules; after the fixes `bun run validate` ("$ tsc --noEmit && … && biome check src &&
    bun test") ran clean, and S1 saying the lint errors were fixed was an error in a faithful summary. The same in
    ctxeval_ee7e610f (wider/), retired by `bun run lint` ("$ biome check --error-on-warnings"). A script that runs
    another tool, or a run that echoes no script, retires nothing."""
    fix = ran("t1", "bun run lint:fix 2>&1", "$ biome check --write src\nsrc/components/InputModal.tsx:37:5 "
              "lint/a11y/noStaticElementInteractions\nerror: script \"lint:fix\" exited with code 1", failed=True)
    validate = ran("t2", "bun run validate 2>&1", "$ tsc --noEmit && tsc -p tsconfig.test.json --noEmit && biome "
                   "check src && bun test\nChecked 17 files in 35ms. No fixes applied.\n 17 pass\n 0 fail")
    assert fates(fix, validate) == [("t1", "t2", "its tool ran clean in another script")]
    npm = ran("t1", "npm run lint:fix", "\n> app@1.0.0 lint:fix\n> biome check --write src\n\nFound 2 errors.\n"
              "npm error Lifecycle script `lint:fix` failed with error:\nnpm error code 1", failed=True)  # fmt: skip
    npm_validate = ran("t2", "npm run validate", "\n> app@1.0.0 validate\n> tsc --noEmit && biome check src\n\n"
                       "Checked 17 files in 35ms. No fixes applied.")  # fmt: skip
    assert fates(npm, npm_validate)[0][1] == "t2"
    tests = ran("t2", "bun run test 2>&1", "$ bun test\n 17 pass\n 0 fail")
    assert fates(fix, tests) == [("t1", None, None)]
    assert fates(fix, ran("t2", "bun run validate 2>&1", "Checked 17 files. No fixes applied.")) == [("t1", None, None)]


def test_a_package_script_is_retired_by_its_tool_run_clean_on_the_file_that_failed() -> None:
    """meow_f29a7049 (fresh70, labelled blind: S1 faithful, "textlint down from 63 → 13 → 3 → 0" a non-issue):
    `npm run lint:text` ("> textlint "**/*.md"") failed on an article; after the fixes `npx textlint
    "articles/c10431f5afd26d.md" …` ran clean, and S1 was said to lose the open failure. The tool run on another file,
    or another tool, retires nothing; a script's subcommand must be the same."""
    lint = ran("t1", "cd /Users/me/documents && npm run lint:text 2>&1",
               "\n> documents@1.0.0 lint:text\n> textlint \"**/*.md\"\n\n"
               "/Users/me/documents/articles/c10431f5afd26d.md\n"
               "  60:26  error  一文に二回以上利用されている助詞 \"が\" がみつかりました。\n"
               "\n✖ 1 problem (1 error, 0 warnings)", failed=True)  # fmt: skip
    direct = ran("t2", 'cd /Users/me/documents && npx textlint "articles/7c5d99d5f45ed7.md" '
                 '"articles/c10431f5afd26d.md"', "")  # fmt: skip
    assert fates(lint, direct) == [("t1", "t2", "its tool ran clean on its own")]
    assert fates(lint, ran("t2", "npx textlint", "")) == [("t1", "t2", "its tool ran clean on its own")]
    assert fates(lint, ran("t2", 'npx textlint "articles/7c5d99d5f45ed7.md"', "")) == [("t1", None, None)]
    assert fates(lint, ran("t2", 'npx markdownlint-cli2 "articles/c10431f5afd26d.md"', "")) == [("t1", None, None)]
    biome = ran("t1", "npm run lint", "\n> app@1.0.0 lint\n> biome check src\n\nFound 2 errors.\nnpm error Lifecycle "
                "script `lint` failed with error:\nnpm error code 1", failed=True)  # fmt: skip
    assert fates(biome, ran("t2", "npx biome check src", "Checked 17 files."))[0][1] == "t2"
    assert fates(biome, ran("t2", "npx biome format src", "Formatted 17 files.")) == [("t1", None, None)]


def test_a_command_called_by_a_wrong_name_is_retired_when_reached_by_its_path() -> None:
    """joyusai_b62c46a7 (fresh74, labelled blind: S1 faithful): `spec-kitty move-task WP01 …` had no such command,
    `spec-kitty agent tasks move-task WP01 --to done …` then ran clean, and S1, telling the right command, was said to
    present an open failure as fixed. Another failure of the program, or another command, is not retired so."""
    wrong = ran("t1", "spec-kitty move-task WP01 --lane done --feature 009 2>&1", TYPER_USAGE, failed=True)
    right = ran("t2", 'spec-kitty agent tasks move-task WP01 --to done --feature 009 --note "done"', "Moved WP01")
    assert fates(wrong, right) == [("t1", "t2", "reached by its path")]
    other = ran("t2", "spec-kitty agent tasks list", "WP01 doing")
    assert fates(wrong, other) == [("t1", None, None)]
    broken = ran("t1", "spec-kitty move-task WP01 2>&1", "Exit code 1\nError: Cannot move WP01 to done", failed=True)
    assert fates(broken, right) == [("t1", None, None)]


def test_inline_code_failing_to_decode_what_was_piped_into_it_is_no_failure_of_the_work() -> None:
    """raven_a4aae4ac (fresh73, S1 faithful) and ovid_ec84c889 (fresh75, S2; both labelled blind, read after their
    scores): `gh pr checks 207 --json … | python3 -c "…json.load(sys.stdin)…"` and `gh api …/replies --method POST …
    | python3 -c "…"` failed on a JSONDecodeError of gh's output (the reply was posted); each was an open failure a
    summary was said to lose. Inline code that fails otherwise, or a project's script that fails to decode, still is."""
    checks = ran("t1", "gh pr checks 207 --json name,state 2>&1 | python3 -c \"import json,sys; checks=json.load("
                 "sys.stdin)\"", "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                 "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)", failed=True)  # fmt: skip
    assert fates(checks) == []
    imported = ran("t1", "gh api repos/x/y/pulls/1 | python3 -c \"import mypkg; mypkg.load()\"",
                   "Traceback (most recent call last):\nModuleNotFoundError: No module named 'mypkg'", failed=True)
    assert [fate[0] for fate in fates(imported)] == ["t1"]
    project = ran("t1", "python3 scripts/sync.py < data/export.json", "Traceback (most recent call last):\n"
                  "json.decoder.JSONDecodeError: Extra data: line 5 column 2 (char 106)", failed=True)  # fmt: skip
    assert [fate[0] for fate in fates(project)] == ["t1"]


def test_a_script_run_by_its_full_path_is_retired_by_a_clean_run_from_its_folder() -> None:
    """wfc_e2e7a891 (extra19, labelled blind): `bash /Users/…/wfc/scripts/wfc-tools.sh find-empty . py` failed (an
    `eval` syntax error); reworked, `bash scripts/wfc-tools.sh find-empty . py` ran clean from the repository. The
    failure was reported open at S1 and S2. Another folder's script of the same name is not the same attempt."""
    failed = ran("t1", "bash /Users/sam/repos/wfc/scripts/wfc-tools.sh find-empty . py",
                 "/Users/sam/repos/wfc/scripts/wfc-tools.sh: eval: line 92: syntax error near unexpected token `('",
                 failed=True)  # fmt: skip
    assert fates(failed, ran("t2", "bash scripts/wfc-tools.sh find-empty . py", "./a.py")) == [
        ("t1", "t2", "ran clean")]  # fmt: skip
    assert fates(failed, ran("t2", "bash ./scripts/wfc-tools.sh count", "3")) == [("t1", "t2", "ran clean")]
    assert fates(failed, ran("t2", "bash tools/wfc-tools.sh find-empty . py", "./a.py")) == [("t1", None, None)]


SCHEMA = "https://docs.renovatebot.com/renovate-schema.json"
RAW_SCHEMA = "https://raw.githubusercontent.com/renovatebot/renovate/main/renovate-schema.json"
READ_MODE = "python3 -c \"import json; d=json.load(open('s.json')); print(d['properties']['mode'])\""
RAISED = "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nKeyError: 'mode'"


def test_a_fetch_that_failed_is_retired_by_the_same_file_fetched_from_another_address() -> None:
    """flutterdocker_aba9151e (outside ../shared, labelled blind): `curl` of the schema from the docs site failed; the
    agent fetched the same file from the repository's raw copy, then read it with Python, which raised. The curl had
    to succeed for the Python after `&&` to run, so the schema was fetched: the failure was reported open at S1 and
    S2, a false alarm by the labels."""
    failed = ran("t1", f"curl -s --max-time 40 {SCHEMA} | python3 -c 'import json,sys; json.load(sys.stdin)'",
                 "FAILED: curl", failed=True)  # fmt: skip
    fetched = ran("t2", f"curl -sL {RAW_SCHEMA} -o s.json && {READ_MODE}", RAISED, failed=True)
    assert fates(failed, fetched)[0] == ("t1", "t2", "fetched from another address")
    # What the Python raised says nothing of a step before it joined by `;`, nor when two Python steps could have.
    assert fates(failed, ran("t2", f"curl -sL {RAW_SCHEMA} -o s.json; {READ_MODE}", RAISED, failed=True))[0] == (
        "t1", None, None)  # fmt: skip
    two = f"python3 -c 'print(1)' && curl -sL {RAW_SCHEMA} -o s.json && {READ_MODE}"
    assert fates(failed, ran("t2", two, RAISED, failed=True))[0] == ("t1", None, None)
    # Another file from another address is no copy of it; the same address that failed again is no retry elsewhere.
    assert fates(failed, ran("t2", "curl -sL https://example.com/other-schema.json -o o.json", "")) == [
        ("t1", None, None)]  # fmt: skip


UNSTAGED = "error: cannot pull with rebase: You have unstaged changes.\nerror: please commit or stash them."
POPPED_INTO_CONFLICT = (
    "Exit code 1\nSaved working directory and index state WIP on main: 1a2b3c4 Add notes\nUpdating 1a2b3c4..5d6e7f8\n"
    "Fast-forward\n notes.md | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\nAuto-merging notes.md\n"
    "CONFLICT (content): Merge conflict in notes.md\nThe stash entry is kept in case you need it again.")


def test_a_pull_is_retired_by_a_stash_chain_whose_pop_met_a_conflict() -> None:
    """vault_433a2bb4 (outside ../shared, labelled blind): `git pull --rebase` refused unstaged changes; the agent ran
    `git stash && git pull --rebase && git stash pop`, which failed at the pop's conflict. Git's 'The stash entry is
    kept' is the pop's own line, so the pop ran and the pull chained before it by `&&` succeeded: the refused pull was
    reported open at S1, a false alarm by the labels. The output here is git's own wording of each step."""
    refused = ran("t1", "git pull --rebase", UNSTAGED, failed=True)
    chain = ran("t2", "git stash && git pull --rebase && git stash pop", POPPED_INTO_CONFLICT, failed=True)
    assert fates(refused, chain)[0][:2] == ("t1", "t2")
    # Joined by `;`, the pull could have failed and the pop run anyway; with no pop line, any step could have failed.
    assert fates(refused, ran("t2", "git stash; git pull --rebase; git stash pop", POPPED_INTO_CONFLICT,
                              failed=True))[0] == ("t1", None, None)  # fmt: skip
    assert fates(refused, ran("t2", "git stash && git pull --rebase && git stash pop", UNSTAGED, failed=True))[0] == (
        "t1", None, None)  # fmt: skip


def test_a_later_failure_of_the_same_attempt_supersedes_the_first() -> None:
    command = "python3 run_full_benchmark.py --enable-gpu --sizes 64,128,256 --competitors cublas"
    records = (ran("t1", command, "Command timed out after 2m 0.0s", failed=True),
               ran("t2", command, "Traceback (most recent call last):\n  File \"run_full_benchmark.py\", line 533\n"
                   "AttributeError: 'list' object has no attribute 'get'", failed=True))  # fmt: skip
    [first, second] = failures(shell_runs(records))
    assert (first.superseded_by, second.superseded_by) == ("t2", None)


def test_a_missing_make_target_is_a_slip_and_a_missing_dependency_is_not() -> None:
    slip = ran("t1", "make tests", "make: *** No rule to make target 'tests'.  Stop.", failed=True)
    broken = ran("t2", "make", "make: *** No rule to make target 'vsla.h', needed by 'core.o'.  Stop.", True)
    missing = "make: *** No rule to make target 'vsla.h', needed by 'core.o'.  Stop."
    assert open_failures(slip, broken) == [f"make: {missing}"]


def test_failure_rows_in_a_run_whose_status_a_filter_hid_are_mined() -> None:
    output = ("--- FAIL: TestMultiCheckpoint_UserEditsBetweenCheckpoints (0.05s)\n"
              "    manual_commit_test.go:1972: checkpoint 1: expected 0 user lines added, got 4\n"
              "FAIL\tentire.io/cli/cmd/entire/cli/strategy\t2.880s\n[test] ERROR task failed")  # fmt: skip
    assert open_failures(ran("t1", "mise run test 2>&1 | tail -40", output)) == [
        "mise run test: --- FAIL: TestMultiCheckpoint_UserEditsBetweenCheckpoints (0.05s)"]


@pytest.mark.parametrize(("command", "output", "row"), [
    ("mise test:live 2>&1 | tail -20",
     "[test:live] $ bun test ./src/test/live.ts\nbun test v1.3.9 (cf6cdbbb)\n\nsrc/test/live.ts:\n(fail) two-client "
     "chat > whisper to nonexistent player triggers not-found [30000.72ms]\n  ^ this test timed out after 30000ms.\n\n"
     " 8 pass\n 1 fail\nRan 9 tests across 1 file. [51.15s]\n[test:live] ERROR task failed",
     "(fail) two-client chat > whisper to nonexistent player triggers not-found [30000.72ms]"),
    ("cargo test 2>&1 | tail -8",
     "failures:\n    shell::tests::generate_rc_extra_commands_no_duplicates\n\ntest result: FAILED. 89 passed; 1 "
     "failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s",
     "test result: FAILED. 89 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s"),
])  # fmt: skip
def test_bun_and_cargo_failure_rows_under_a_filter_are_mined(command: str, output: str, row: str) -> None:
    """tuicraft_04fd0b5b (outside ../shared, its labels call the failed live test lost from S1): `mise test:live 2>&1
    | tail -20` exits 0 with bun's `(fail)` row; cargo's summary row, piped, is the same case."""
    assert open_failures(ran("t1", command, output)) == [f"{command.split(' 2>&1')[0]}: {row}"]


@pytest.mark.parametrize(("output", "row"), [
    ("ERROR tests/integration/test_narrative_quality.py::TestPsychologicalDepth::test_section_word_count\n"
     "ERROR tests/integration/test_narrative_quality.py::TestPsychologicalDepth::test_no_refusal_language\n"
     "274 passed, 10 skipped, 13 warnings, 4 errors in 25.60s",
     "ERROR tests/integration/test_narrative_quality.py::TestPsychologicalDepth::test_section_word_count"),
    ("274 passed, 10 skipped, 4 errors in 25.60s", "274 passed, 10 skipped, 4 errors in 25.60s"),
    ("1 failed, 34 passed in 0.06s", "1 failed, 34 passed in 0.06s"),
    ("===== 1 passed, 1 error in 0.31s =====", "===== 1 passed, 1 error in 0.31s ====="),
])  # fmt: skip
def test_pytest_error_rows_under_a_filter_are_mined(output: str, row: str) -> None:
    """zodiacid_8f51d2b8 (outside ../shared, its labels call the errored tests lost from S1): `pytest -q --tb=no
    2>&1 | tail -3` exits 0 printing pytest's rows for tests that errored in their setup and its `-q` summary line,
    which has no `===` around it."""
    command = "python -m pytest tests/unit/ tests/integration/ -q --tb=no 2>&1 | tail -3"
    assert open_failures(ran("t1", command, output)) == [f"python pytest tests/unit/: {row}"]


@pytest.mark.parametrize("output", [
    "274 passed, 10 skipped, 13 warnings in 25.60s",
    "ERROR: 2 errors found while building the docs\n3 passed in 0.2s",
    "Found 4 errors in 2 files.\n12 passed in 1.1s",
])  # fmt: skip
def test_passes_and_other_programs_errors_under_a_filter_open_no_failure(output: str) -> None:
    """Only pytest's own rows: a pass line, an error said in another program's words beside it, and tsc's count
    (`in 2 files`, not a duration) open nothing."""
    assert open_failures(ran("t1", "python -m pytest -q 2>&1 | tail -3", output)) == []


def test_cargos_row_for_tests_that_did_not_build_under_a_filter_is_mined() -> None:
    """lightprotocol_3ad45457 (outside ../shared): `cargo test -p light-sdk-types 2>&1 | tail -80` exits 0 when the
    tests do not compile; cargo's own row says so."""
    output = ("error[E0063]: missing field `cpi_context` in initializer\nwarning: build failed, waiting for other jobs "
              "to finish...\nerror: could not compile `light-sdk-types` (test \"decompress_processor\") due to 15 "
              "previous errors")  # fmt: skip
    assert open_failures(ran("t1", "cargo test -p light-sdk-types 2>&1 | tail -80", output)) == [
        "cargo test light-sdk-types: error: could not compile `light-sdk-types` (test \"decompress_processor\") due "
        "to 15 previous errors"]  # fmt: skip


CARGO_FAILED = ("test tests::test_derive_address ... FAILED\n\nfailures:\n    tests::test_derive_address\n\n"
                "test result: FAILED. 1 passed; 4 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s")


def test_a_pass_of_chosen_tests_does_not_retire_a_failure_of_all_of_them() -> None:
    """lightprotocol_3ad45457 (outside ../shared, its labels call the failing address tests lost from S1): the
    package's tests failed, then two chosen test targets passed and retired that failure; only a later run of the
    whole package (with the feature the failing tests need) passed them."""
    whole = ran("t1", "cargo test -p light-sdk-types 2>&1 | tail -100", CARGO_FAILED)
    chosen = ran("t2", "cargo test -p light-sdk-types --test compress_processor --test decompress_processor 2>&1 | "
                 "tail -60", "test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out")  # fmt: skip
    all_of_them = ran("t3", "cargo test -p light-sdk-types --features keccak 2>&1 | tail -30",
                      "test result: ok. 2 passed; 0 failed; 4 ignored; 0 measured; 0 filtered out")  # fmt: skip
    assert fates(whole, chosen) == [("t1", None, None)]
    assert fates(whole, chosen, all_of_them) == [("t1", "t3", "its tests passed, read through a filter")]


@pytest.mark.parametrize(("failed", "passed"), [
    ("pytest tests/", "pytest tests/ -k test_export"),
    ("python -m pytest", "python -m pytest -m slow"),
    ("go test ./...", "go test ./... -run TestImport"),
    ("npx vitest run", "npx vitest run --exclude='tests/scheduler/**'"),
    ("pytest tests/", "pytest tests/ --deselect tests/test_export.py::test_csv"),
    ("pytest", "pytest --ignore=tests/test_export.py"),
    ("go test ./...", "go test ./... -skip TestExport"),
])  # fmt: skip
def test_a_clean_run_of_chosen_tests_leaves_a_failure_of_all_of_them_open(failed: str, passed: str) -> None:
    broken = ran("t1", failed, "FAILED tests/test_export.py::test_csv - KeyError: 'legacy'", failed=True)
    assert fates(broken, ran("t2", passed, "1 passed in 0.1s")) == [("t1", None, None)]
    assert fates(broken, ran("t2", failed, "9 passed in 0.4s"))[0][1] == "t2"


def test_a_pass_of_the_chosen_tests_that_failed_retires_them() -> None:
    broken = ran("t1", "pytest tests/test_export.py -k test_csv", "FAILED tests/test_export.py::test_csv", True)
    assert fates(broken, ran("t2", "pytest tests/test_export.py -k test_csv", "1 passed in 0.1s"))[0][1] == "t2"


def test_a_failure_that_comes_back_after_its_retirement_is_open_again() -> None:
    """A pass retired it, and the same test failed the same way later: the second failure stands on its own, not
    as a repeat of one that is gone."""
    broken = "FAILED tests/test_export.py::test_csv - KeyError: 'legacy'\n1 failed, 8 passed in 0.4s"
    runs = (ran("t1", "pytest", broken, failed=True), ran("t2", "pytest", "9 passed in 0.4s"),
            ran("t3", "pytest", broken, failed=True))  # fmt: skip
    assert fates(*runs) == [("t1", "t2", "ran clean"), ("t3", None, None)]
    assert fates(runs[0], runs[2]) == [("t1", None, None)]  # failing again while it stands repeats it


CHAINED = """Exit code 1
Traceback (most recent call last):
  File "/app/.venv/lib/python3.12/site-packages/sqlalchemy/engine/base.py", line 1967, in _exec_single_context
    self.dialect.do_execute(
psycopg2.errors.UndefinedColumn: column atomic_criteria.unit_concept_id does not exist
LINE 1: ...c_criteria.value_text, atomic_criteria.unit_text, atomic_cri...
HINT:  Perhaps you meant to reference the column "atomic_criteria.entity_concept_id".


The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "scripts/run_ordinal_e2e.py", line 15, in <module>
    log.error("lookup failed")
sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn) column atomic_criteria.unit_concept_id"""


def test_a_test_run_read_through_a_filter_that_shows_a_pass_and_no_failure_retires_the_failure() -> None:
    """wfc (outside ../shared): `uv run pytest tests/test_claude_md_remediation.py -v --tb=short 2>&1` failed one
    test; after the fix the same run piped into `| tail -20` printed `35 passed`. No exit status proves pytest's
    stage (it is tail's), but the runner's rows are its word, as they are for a failure under a filter, so the
    failure is retired. A tail that shows a failed count, or no pass at all, or a run of another file, does not."""
    failed = ran("t1", "uv run pytest tests/test_remediation.py -v --tb=short 2>&1",
                 "tests/test_remediation.py::TestQA::test_shorter FAILED [ 51%]\n=== 1 failed, 34 passed in 0.06s ===",
                 failed=True)  # fmt: skip
    passed = ran("t2", "uv run pytest tests/test_remediation.py -v --tb=short 2>&1 | tail -20",
                 "=============================== 35 passed in 0.07s ===============================")
    assert fates(failed, passed) == [("t1", "t2", "its tests passed, read through a filter")]
    for command, output in (("uv run pytest tests/test_remediation.py -q 2>&1 | tail -1", "1 failed, 34 passed"),
                            ("uv run pytest tests/test_remediation.py 2>&1 | tail -2", "no tests ran in 0.01s"),
                            ("uv run pytest tests/test_other.py 2>&1 | tail -2", "=== 12 passed in 0.02s ===")):
        assert fates(failed, ran("t2", command, output)) == [("t1", None, None)], command


def test_a_step_chained_by_and_before_a_test_run_whose_rows_show_it_ran_succeeded() -> None:
    """cli_79e9becd (entireio/cli, outside ../shared): `mise run lint` failed; later `mise run lint && mise run test
    2>&1 | tail -20` printed go's `ok` rows. Its status is tail's, but the test ran, which `&&` allows only after the
    lint succeeded: the lint failure is retired, and was called lost from S1. Rows that show no run, or a step joined
    by `;`, prove nothing of the lint."""
    failed = ran("t1", "mise run lint 2>&1", "[lint] cmd/x.go:12: unused variable\n[lint] ERROR task failed",
                 failed=True)  # fmt: skip
    rows = "ok  \tentire.io/cli/cmd/entire/cli\t3.5s"
    assert fates(failed, ran("t2", "mise run lint && mise run test 2>&1 | tail -20", rows)) == [
        ("t1", "t2", "ran clean")]  # fmt: skip
    for command, output in (("mise run lint; mise run test 2>&1 | tail -20", rows),
                            ("mise run lint && mise run test 2>&1 | tail -20", "no test files")):
        assert fates(failed, ran("t2", command, output)) == [("t1", None, None)], command


def test_a_pull_request_whose_body_names_the_tests_is_no_run_of_them() -> None:
    """me_e9167529 (outside ../shared, read after its first look): `pnpm test:run` exited 1; the pull request opened
    later, its body's test plan reading "`pnpm test:run` ユニットテスト通過確認", was taken for a clean run of the
    whole suite and retired the failure, so S1 dropping it went unreported (its gold has it lost). wfc_f9 (outside
    ../shared) had three failed `pytest tests/` runs retired the same way, and across the sessions held 52 commits and
    pull requests counted as a whole-suite run by their prose. Code given to an interpreter is still what a line
    runs: `python3 -c "import py_compile; …"` is a check of the file."""
    failed = ran("t1", "pnpm test:run 2>&1", "Exit code 1\n> vitest run\nError: throw er; // Unhandled 'error' event",
                 failed=True)  # fmt: skip
    for prose in ('gh pr create --title "refactor: minimal redesign" --body "$(cat <<\'EOF\'\n## Test plan\n\n'
                  '- [x] `pnpm test:run` passes\nEOF\n)" --base main 2>&1',
                  'git commit -m "Complete the workflow and fix all tests"'):  # fmt: skip
        assert fates(failed, ran("t2", prose, "https://github.com/ta93abe/me/pull/90")) == [("t1", None, None)], prose
        assert what_ran(prose).split()[:2] in (["gh", "pr"], ["git", "commit"])
        assert "test" not in what_ran(prose)
    suite = ran("t2", "pnpm test:run 2>&1", "Test Files  4 passed (4)\n     Tests  36 passed (36)")
    assert fates(failed, suite) == [("t1", "t2", "ran clean")]
    assert "compile" in what_ran('python3 -c "import py_compile; py_compile.compile(\'t.py\')" && echo "OK"')
    assert "test" in what_ran('sh -c "go test ./..."')


def test_a_traceback_is_known_by_the_exception_it_raised() -> None:
    """medgemma (outside ../shared, labelled blind): the failure was named by the chain's joining line, "The above
    exception was the direct cause of the following exception:", which S1 had no reason to carry, and S1 was warned
    for dropping it though it kept the missing column. The first traceback's exception is the cause; a frame's code
    ("log.error(", "raise source.error(") names none. An error said before the traceback (a pipe's 'FAILED: curl')
    is still the failure."""
    chained = shell_runs([ran("t1", "python scripts/run_ordinal_e2e.py", CHAINED, failed=True)])[0]
    assert failure_line(chained) == (
        "psycopg2.errors.UndefinedColumn: column atomic_criteria.unit_concept_id does not exist")
    output = ("Exit code 1\nFAILED: curl \nTraceback (most recent call last):\n  File \"<string>\", line 1\n"
              "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)")
    command = "curl -s https://x.test/schema.json | python3 -c 'import json,sys; json.load(sys.stdin)'"
    assert failure_line(shell_runs([ran("t2", command, output, failed=True)])[0]) == "FAILED: curl"
    flat = "Traceback (most recent call last):\nFile \"x.py\", line 3, in <module>\nValueError: no ledger"
    assert failure_line(shell_runs([ran("t3", "python x.py", flat, failed=True)])[0]) == "ValueError: no ledger"


def test_the_failure_line_is_the_first_error_even_on_the_first_line() -> None:
    run = shell_runs([ran("t1", "pip install cupy-cuda12x", "error: externally-managed-environment\n\n"
                          "× This environment is externally managed", failed=True)])[0]  # fmt: skip
    assert failure_line(run) == "error: externally-managed-environment"


def test_a_build_failed_by_its_error_diagnostic_not_by_a_warning_before_it() -> None:
    """vault_964aba6a (extra27, labelled blind): the device build printed Swift concurrency warnings ("this is an
    error in the Swift 6 language mode") before the dependency's error. The failure was known by the warning, which
    S1 does not name, and reported lost; S1 keeps the real error (`toNanoseconds`, Int64 against UInt64), as its
    labels say."""
    output = ("Exit code 65\n==> Building Debug for device\nVault/Core/Security/SecureEnclaveManager.swift:16:16: "
              "warning: static property 'shared' is not concurrency-safe; this is an error in the Swift 6 language "
              "mode\nSources/OpenTelemetrySdk/Metrics/MeterProviderSdk.swift:58:108: error: cannot convert value of "
              "type 'Int64' to expected argument type 'UInt64'\n** BUILD FAILED **")  # fmt: skip
    run = shell_runs([ran("t1", "./scripts/deploy-phone.sh --launch 2>&1", output, failed=True)])[0]
    assert failure_line(run).startswith("Sources/OpenTelemetrySdk/Metrics/MeterProviderSdk.swift:58:108: error:")
    only_warnings = output.replace("58:108: error: cannot", "58:108: and cannot")
    run = shell_runs([ran("t1", "./scripts/deploy-phone.sh --launch 2>&1", only_warnings, failed=True)])[0]
    assert "warning: static property" in failure_line(run)  # no error diagnostic: the first error-looking line


def test_a_scanner_failed_by_the_vulnerability_it_found_not_by_a_members_name() -> None:
    """raven_a4aae4ac (fresh73, labelled blind: S1 keeps "GO-2026-4887"): govulncheck's failure was known by its call
    trace "#41: … calls client.httpError.Error", a Go method's name, and S1 was said to lose it. An exception's
    dotted type and a pre-commit hook's dotted leader still name failures."""
    output = ("Exit code 3\n=== Symbol Results ===\n\nVulnerability #1: GO-2026-4887\n    Moby has AuthZ plugin bypass "
              "when provided oversized request bodies in\n    github.com/docker/docker\n    Example traces found:\n"
              "      #41: internal/service/chat.go:426:71: service.ChatService.DeleteSession calls "
              "client.httpError.Error\n\nYour code is affected by 1 vulnerability from 1 module.")  # fmt: skip
    run = shell_runs([ran("t1", "govulncheck -scan symbol ./... 2>&1", output, failed=True)])[0]
    assert failure_line(run) == "Vulnerability #1: GO-2026-4887"
    member = shell_runs([ran("t1", "./check.sh", "Exit code 1\ncalls err.Error()\nsee the log", failed=True)])[0]
    assert failure_line(member) == "see the log"  # no line names a failure: the last
    raised = shell_runs([ran("t1", "catkin_prepare_release", "Exit code 1\ntermios.error: (25, 'Inappropriate ioctl "
                             "for device')\nrelease not prepared", failed=True)])[0]  # fmt: skip
    assert failure_line(raised).startswith("termios.error:")
    hook = shell_runs([ran("t1", "git commit -m x", "ruff format..........Failed\n- hook id: ruff-format",
                           failed=True)])[0]  # fmt: skip
    assert failure_line(hook) == "ruff format..........Failed"


TYPER_USAGE = ("Exit code 2\nUsage: spec-kitty [OPTIONS] COMMAND [ARGS]...\nTry 'spec-kitty --help' for help.\n"
               "╭─ Error ──────────────────────────────────────╮\n"
               "│ No such command 'move-task'. Did you mean 'validate-tasks'?   │\n"
               "╰──────────────────────────────────────────────╯")  # fmt: skip


def test_a_drawn_panel_is_read_as_its_title_and_what_is_inside() -> None:
    """joyusai_b62c46a7 (fresh74, labelled blind): typer printed its usage error in a rich panel, and the failure was
    known by the panel's top edge, "╭─ Error ────╮"; the message is inside it."""
    run = shell_runs([ran("t1", "spec-kitty move-task WP01 --lane done", TYPER_USAGE, failed=True)])[0]
    assert failure_line(run) == "Error: No such command 'move-task'. Did you mean 'validate-tasks'?"
    untitled = TYPER_USAGE.replace("╭─ Error ─", "╭───────")
    run = shell_runs([ran("t1", "spec-kitty move-task WP01", untitled, failed=True)])[0]
    assert failure_line(run) == "No such command 'move-task'. Did you mean 'validate-tasks'?"  # the last line


def test_a_status_with_no_error_in_the_output_is_a_verdict_not_a_failure() -> None:
    # A checker exits 2 on the report it printed: no line names a failure.
    output = "Exit code 2\nSEQUANT MERGE\n\n# Merge Readiness Report\n- **Checks run:** 4"
    assert open_failures(ran("t1", "node dist/bin/cli.js merge 265 298 --scan 2>&1", output, failed=True)) == []


# --- every later run asked, or only those that could answer ------------------------------------------

_LINES = (
    ("python3 bench/run_full_benchmark.py", "Traceback (most recent call last):\nValueError: bad shape", True),
    ("python3 bench/run_full_benchmark.py", "Traceback (most recent call last):\nKeyError: 'rows'", True),
    ("python3 bench/run_benchmark.py", "ok 3 rows", False),
    ("python3 -c 'import pkg; pkg.run()'", "ModuleNotFoundError: No module named 'pkg'", True),
    ("uv run python3 scripts/check.py", "checked 4 files", False),
    ("cd build && make", "src/core.c:12:5: error: unknown type name 'tensor_t'", True),
    ("cd build && make clean && make", "[100%] Built target core", False),
    ("gcc -o t t.c && ./t", "t.c:3:1: error: expected ';'", True),
    ("rm -f t.c", "", False),
    ("pytest tests/test_api.py -k login", "FAILED tests/test_api.py::test_login - AssertionError", True),
    ("pytest", "=== 40 passed in 2.1s ===", False),
    ("pytest tests/test_api.py -k login 2>&1 | tail -3", "=== 5 passed in 0.3s ===", False),
    ("pytest tests/test_api.py -q | tail -1", "1 failed, 4 passed in 0.2s", False),
    ("go test ./... | tail -5", "--- FAIL: TestParse (0.00s)\nFAIL\tpkg/parse", False),
    ("go test ./...", "ok  \tpkg/parse\t0.2s", False),
    ("./t", "Segmentation fault (core dumped)", True),
    ("git push origin main", "error: failed to push some refs", True),
    ("git merge origin/main --no-edit", "CONFLICT (content): Merge conflict in ci.yml\nAutomatic merge failed; fix "
     "conflicts and then commit the result.", True),
    ("git add ci.yml && git commit --no-edit", "[develop 8c1728e] Merge remote-tracking branch 'origin/main'", False),
)


def _asked_of_every_later_run(runs):
    """The definition `failures` keeps: each failure against every later run, each retirement in order."""
    from dataclasses import replace

    from inspector.shell_runs import RETIREMENTS, Failure, failing_signature, is_failure

    open_until = {}  # each failure's last opening: where it was retired, or None while it stands
    for position, run in enumerate(runs):
        if not is_failure(run):
            continue
        line = failure_line(run)
        failure = Failure(run, line, failing_signature(run, line))
        same = ((), line) if run.crash else (failure.signature, line)
        if same in open_until and (open_until[same] is None or open_until[same] > position):
            continue  # the same failure again while it stands; failing again after its retirement, it reopens
        later_runs = list(enumerate(runs))[position + 1 :]
        retired = next(((at, later.key, how) for at, later in later_runs for how, shows in RETIREMENTS
                        if shows(failure, later)), (None, None, None))  # fmt: skip
        superseded = next(((at, later.key) for at, later in later_runs if not run.crash and is_failure(later)
                           and (later_line := failure_line(later)) != line
                           and failing_signature(later, later_line) == failure.signature), (None, None))  # fmt: skip
        if superseded[0] is not None and retired[0] is not None and retired[0] < superseded[0]:
            superseded = (None, None)
        open_until[same] = retired[0]
        yield replace(failure, superseded_by=superseded[1], retired_by=retired[1], how=retired[2])


@pytest.mark.parametrize("seed", range(40))
def test_a_failures_life_is_the_same_whether_every_later_run_is_asked_or_only_those_that_could_retire_it(seed):
    # `failures` asks only the runs an index says could retire a failure (26 s to 1 s on 2,000 failing runs):
    # on shuffled real shapes of every retirement, it finds what asking every later run finds.
    import random

    rng = random.Random(seed)
    records = [ran(f"t{k}", *rng.choice(_LINES)) for k in range(30)]
    runs = shell_runs(records)
    assert list(failures(runs)) == list(_asked_of_every_later_run(runs))


def _stood(found):
    return [(f.run.key, f.line, f.signature, f.superseded_by, f.retired_by, f.how, f.at, f.superseded_at, f.retired_at)
            for f in found]  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_the_failures_at_a_cut_are_those_read_from_the_runs_before_it_alone(seed):
    # A summary's failures are cut from the whole log's, read once (`failures_before`), instead of read again from
    # the runs before each compaction: at every cut of shuffled real shapes of every retirement, they are the same.
    import random

    from inspector.shell_runs import failures_before

    rng = random.Random(seed)
    runs = shell_runs([ran(f"t{k}", *rng.choice(_LINES)) for k in range(30)])
    whole = list(failures(runs))
    for count in range(len(runs) + 1):
        assert _stood(failures_before(whole, count)) == _stood(failures(runs[:count])), count
