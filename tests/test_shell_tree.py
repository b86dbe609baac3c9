"""Shell lines read by tree-sitter: the steps a user sees a failure named by, each from a real session's line shape.

The lines are cut short from sessions of JanDeDobbeleer/oh-my-posh, entireio/cli, port-experimental/port-cli and
roo-oliv/monodreams (../shared and sessions outside it); names and paths are changed.
"""

from __future__ import annotations

from inspector.model import SourceRecord
from inspector.shell_runs import command_signature, failures, inline_code, parse_steps, shell_runs
from inspector.shell_tree import tree_steps


def ran(key: str, command: str, output: str, failed: bool = False) -> SourceRecord:
    return SourceRecord(key=key, text=output, namespace="transcript", kind="tool_error" if failed else "tool_result",
                        authority="tool", extra={"command": command})  # fmt: skip


def words(command: str) -> list[tuple[str, ...]]:
    return [step.words for step in parse_steps(command)]


def test_a_test_run_after_a_heredoc_that_appends_a_test_is_named_by_the_test_run() -> None:
    # bashlex refused the line, and the lexer it fell back to ran the Go code into the failure's name
    # ("config.Config{ Blocks:: --- FAIL …"); the heredoc is data, the run is `go test`.
    command = ("cat >> prompt/runs_test.go <<'EOF'\n\nfunc TestRoom(t *testing.T) {\n\tcfg := &config.Config{\n"
               "\t\tBlocks: []*config.Block{},\n\t}\n\tassert.NotNil(t, cfg)\n}\nEOF\n"
               "go test ./prompt/ -run TestRoom 2>&1 | tail -20")  # fmt: skip
    assert command_signature(command) == ("go", "test", "./prompt/")
    [failure] = failures(shell_runs([ran("r1", command, "--- FAIL: TestRoom (0.00s)\nFAIL", failed=True)]))
    assert failure.text.startswith("go test ./prompt/: --- FAIL: TestRoom")


def test_quotes_are_read_as_the_shell_reads_them() -> None:
    # An apostrophe inside double quotes is a character (bashlex dropped it: "Wont fix"), a backslash inside single
    # quotes stays (bashlex made -F'\t' into -Ft), and "…" and '…' glued to each other are one word.
    reply = 'gh api repos/o/r/pulls/112/comments/7/replies -f body="Won\'t fix - it doesn\'t add value." && echo ok'
    assert words(reply)[0][-1] == "body=Won't fix - it doesn't add value."
    assert words("awk -F'\\t' '{print $2}' out.tsv | sort -rn | head -5")[0][:2] == ("awk", "-F\\t")
    glued = "log '{\"event\":\"done\",\"session\":\"'\"$$-$(date +%s)\"'\"}' 2>/dev/null || true"
    assert words(glued)[0] == ("log", '{"event":"done","session":"$$-$(date +%s)"}')


def test_the_word_before_a_heredoc_is_the_commands_argument() -> None:
    # tree-sitter-bash leaves the `-` of `python3 - <<PY` out of every node: code given on standard input is inline.
    command = "uv run python3 - <<'PY'\nimport json\nprint(json.dumps({}))\nPY"
    [step] = parse_steps(command)
    assert step.words == ("python3", "-")
    assert inline_code(step) and command_signature(command) == ("python", "-")
    assert command_signature("python3 <<'PYEOF'\nimport json, os\nfor p in sorted(os.listdir('.')):\n  print(p)\nPYEOF"
                             ) == ("python",)  # fmt: skip
    # An unquoted heredoc's text lies between its expansions, in no node of the tree: it is the body, no gap.
    unquoted = 'SP="/tmp/scratch"\npython3 - <<PY\nimport glob\nbase=r"$SP"; rows=[]\nprint(glob.glob(base))\nPY'
    assert [words for words, _, _ in tree_steps(unquoted)] == [(), ("python3", "-")]


def test_loops_branches_and_negation_give_their_commands_in_order() -> None:
    loop = 'cd web/build && for p in docs/a.html docs/b.html; do [ -f "$p" ] && echo "ok $p" || echo "missing $p"; done'
    assert [(step.words, step.after) for step in parse_steps(loop)] == [
        (("cd", "web/build"), ""), (("[", "-f", "$p", "]"), "&&"), (("echo", "ok $p"), "&&"),
        (("echo", "missing $p"), "||")]  # fmt: skip
    branch = "if ! git cherry-pick -n $c >/dev/null 2>&1; then\n  echo \"CONFLICT at $c\"\n  exit 1\nfi"
    assert [(step.words[0], step.after) for step in parse_steps(branch)] == [("git", ""), ("echo", ";"), ("exit", ";")]


def test_a_command_the_tree_runs_across_a_line_break_ends_at_the_break() -> None:
    # On these lines tree-sitter-bash 0.25 ran `head -5` on into the next lines' words, with no error in its tree
    # (port-cli's and oh-my-posh's sessions): the break is between two words, so it ends the command.
    command = ('$B text 2>&1 | grep -E "GET /v1|POST /v1" | head -5\necho "---"\n'
               '$B text 2>&1 | grep -E "GET /v1|POST /v1|PATCH /v1" | head -3')  # fmt: skip
    expected = [("$B", "text"), ("grep", "-E", "GET /v1|POST /v1"), ("head", "-5"), ("echo", "---"), ("$B", "text"),
                ("grep", "-E", "GET /v1|POST /v1|PATCH /v1"), ("head", "-3")]  # fmt: skip
    assert [words for words, _, _ in tree_steps(command)] == expected
    restore = ("cd src && cp config/segment.go /tmp/s.bak\ngo test ./config/ -run TestRestore 2>&1 | grep -E 'FAIL|ok' "
               "| head -3\ncp /tmp/s.bak config/segment.go")  # fmt: skip
    assert [(step.words[0], step.after) for step in parse_steps(restore)] == [
        ("cd", ""), ("cp", "&&"), ("go", ";"), ("grep", "|"), ("head", "|"), ("cp", ";")]  # fmt: skip
    # A comment on a line of its own that the command ran into is blanked with it (a `;` after it would be part of
    # the comment), and the break before it already ends the command (port-cli's gstack browse lines).
    commented = ('B="$HOME/x/browse"\n# Get webhooks path\n$B goto "https://docs.example.io/hooks" 2>&1 | grep -v x\n'
                 '$B text 2>&1 | grep -oE "(GET|POST) /v1[^ ]*" | head -3\necho "---"\n# Check the runs sidebar\n'
                 '$B goto "https://docs.example.io/runs" 2>&1 | grep -v x\n$B text 2>&1 | grep -E "run" | head -20')
    assert [words[0] for words, _, _ in tree_steps(commented) if words] == [
        "$B", "grep", "$B", "grep", "head", "echo", "$B", "grep", "$B", "grep", "head"]  # fmt: skip


def test_a_line_with_a_syntax_error_is_left_to_the_shell_lexer() -> None:
    assert tree_steps("echo $(( 1 +") is None
    # No variable is named `?format`: the grammar's assignment is a word the shell runs.
    assert tree_steps("?format=png") == [(("?format=png",), "", False)]
    assert tree_steps("?x=1 make") is None and words("?x=1 make")[0][0] == "?x=1"
    assert words("echo $(( 1 +")[0][0] == "echo"


def test_a_tree_that_runs_words_together_or_leaves_out_the_first_is_left_to_the_shell_lexer() -> None:
    """Two more wrong trees that look whole, found by holding the plain reading to the grammar on generated lines:
    tree-sitter-bash 0.25 reads `] ]` as one word, and starts the line's root after a leading `-` it leaves out."""
    assert tree_steps("cd ] ]") is None and words("cd ] ]") == [("cd", "]", "]")]
    assert tree_steps("- 2>/dev/null --") is None and words("- 2>/dev/null --") == [("-", "--")]
    assert tree_steps("echo a\\ b") == [(("echo", "a b"), "", False)]  # an escaped blank is inside the word


def test_a_line_deeper_than_the_stack_is_left_to_the_shell_lexer() -> None:
    """Trace text is untrusted: a list of a thousand `&&`, nested in the tree a thousand deep, must cost a fallback,
    never a crash of `check`."""
    deep = "x=$(a) && " * 1500 + "b"
    assert tree_steps(deep) is None
    assert words(deep)[-1] == ("b",)


def test_the_words_after_a_redirections_target_are_the_commands() -> None:
    """tree-sitter-bash makes every word after a redirection's target a further target (`ls 2>/dev/null src/` has two
    destinations); the shell takes the first and passes the rest to the command, as the plain reading does. After a
    list the grammar hangs the redirection on, they are its last command's."""
    assert tree_steps("for f in *.py; do grep -n TODO 2>/dev/null $f src/; done") == [
        (("grep", "-n", "TODO", "$f", "src/"), "", False)]  # fmt: skip
    assert [words for words, _, _ in tree_steps("a || b > out.txt 'x | y'")] == [("a",), ("b", "x | y")]
    assert words("ls 2>/dev/null src/ | head") == [("ls", "src/"), ("head",)]
