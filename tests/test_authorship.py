"""Who wrote each span of a user record: typed, pasted, injected by a harness or wrapper, a sub-agent's report.

The excerpts are shaped on real Claude Code sessions (cut short, names changed); the last tests check
spans by hand on real sessions in ../shared.
"""

from __future__ import annotations

import pytest

from inspector import load_trace
from inspector.authorship import said_by_user, spans_for, spans_of
from inspector.model import Author, SourceRecord
from inspector.statements import statement_sentences
from tests.helpers import LABELLED, REAL_TRACES, needs_shared

U, P, H, T, S = Author.USER, Author.USER_PASTE, Author.HARNESS, Author.TOOL, Author.SUBAGENT


def authored(text: str, author: Author = Author.USER) -> list[tuple[Author, str]]:
    """(author, text) of each span, blank ones left out, as a reviewer would read them."""
    return [(s.author, text[s.start : s.end].strip()) for s in spans_for(text, author) if text[s.start : s.end].strip()]


def test_spans_cover_the_text_in_order_without_gaps():
    text = "<system-reminder>x</system-reminder>\nNever deploy on Fridays.\n```\nmake deploy\n```\nthanks"
    spans = spans_for(text, U)
    assert spans[0].start == 0 and spans[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(spans, spans[1:], strict=False))


def test_a_wrappers_preamble_is_the_harness_and_the_typed_request_after_it_the_users():
    text = ("<system_instruction>\nYou are working inside Conductor, a Mac app that lets the user run many coding "
            "agents in parallel.\nYour work should take place in the /Users/x/conductor/workspaces/app/lima "
            "directory (unless otherwise directed).\n</system_instruction>\n\nThe migration must keep old rows.")
    assert authored(text) == [(H, text[: text.index("</system_instruction>") + 21]),
                              (U, "The migration must keep old rows.")]  # fmt: skip


def test_a_task_notification_is_a_sub_agents_even_inside_a_user_record():
    text = ("<task-notification>\n<task-id>addf6dfa</task-id>\n<status>completed</status>\n<result>No gradients, no "
            "glass, no grain, no motion.</result>\n</task-notification>")
    assert authored(text) == [(S, text)]
    assert list(statement_sentences(text)) == []


def test_an_agent_teams_message_is_another_agents_not_the_harnesss():
    """Claude Code's agent teams (cybervpn_8ed0e767, fresh set 34; duet_cd680c64): the lead's briefing in a
    teammate's session, a teammate's report in the lead's, each a user record in a tag no person types."""
    text = ('<teammate-message teammate_id="team-lead">\nYou are test-eng on the team.\nDo NOT downgrade any package '
            "version.\n</teammate-message>")
    assert authored(text) == [(S, text)]
    assert list(statement_sentences(text)) == []


def test_harness_tags_are_the_harness_and_a_slash_commands_arguments_the_users():
    text = ("<command-name>/review</command-name>\n<command-message>review</command-message>\n"
            "<command-args>only the storage layer, never the UI</command-args>")
    assert [a for a, _ in authored(text)] == [H, U, H]
    assert [s.text for s in statement_sentences(text)] == ["only the storage layer, never the UI"]
    assert authored("<local-command-stdout>Compacted</local-command-stdout>") == [
        (T, "<local-command-stdout>Compacted</local-command-stdout>")]


def test_the_harnesss_placeholder_for_an_attachment_is_no_words_of_the_users():
    """paicujp_e1f8dfff (fresh43, labelled blind) answered a question-tool question with an image: Claude Code ended
    the answer with "(Image attached)", mined as the user's decision "(Image attached)." and called lost from S1."""
    answer = "この画像のタイプで薄くならない表記。グラフは中央に置いて。 (Image attached)"
    said = [s.text for s in statement_sentences(answer)]
    assert said == ["この画像のタイプで薄くならない表記。", "グラフは中央に置いて。"]
    prompt = "[Image #1] make the header match this, and [Pasted text #2 +40 lines] keep the footer"
    assert [a for a, _ in authored(prompt)] == [H, U, H, U]
    assert [s.text for s in statement_sentences(prompt)] == ["make the header match this, and", "keep the footer"]


def test_a_prompt_a_hook_blocked_is_the_hooks_message():
    """cli_4b3ddf27 (entireio/cli, outside ../shared): Claude Code wrote "Operation stopped by hook: Warning: Shadow
    branch conflict detected! … 3. Continue the previous session from the original worktree: …" in a user record,
    and the hook's third option was mined as the user's requirement, called lost from S1. The same words typed
    after a prompt of the user's own are theirs."""
    stopped = ("Operation stopped by hook: Warning: Shadow branch conflict detected!\n\nOptions:\n"
               "1. Commit your changes (git commit) to create a new base commit\n"
               "2. Continue the previous session from the original worktree: /work/.worktrees/test-123")  # fmt: skip
    assert authored(stopped) == [(H, stopped)]
    assert list(statement_sentences(stopped)) == []
    typed = "Please stop the hook. Operation stopped by hook: was the message, ensure it never blocks again"
    assert [a for a, _ in authored(typed)] == [U]


def test_an_unclosed_harness_tag_runs_to_the_end():
    assert authored("Keep it small.\n<system-reminder>Todo list is empty") == [
        (U, "Keep it small."), (H, "<system-reminder>Todo list is empty")]  # fmt: skip


def test_a_log_pasted_on_the_same_line_as_the_users_words_is_a_paste():
    text = ("the list page renders but there are warnings in the console: Warning: Each child in a list should "
            "have a unique \"key\" prop. Check the render method of `Table`.")
    assert authored(text) == [(U, "the list page renders but there are warnings in the console:"),
                              (P, text[text.index("Warning:") :])]  # fmt: skip


@pytest.mark.parametrize("log", ["TypeError: Cannot read properties of undefined (reading 'map')",
                                 "Error: connect ECONNREFUSED 127.0.0.1:5432", "npm ERR! code ERESOLVE"])
def test_every_kind_of_log_line_pasted_after_a_colon_is_a_paste(log):
    assert authored(f"it fails with: {log}")[-1] == (P, log)


CONSOLE = ("Seems to work but I've plenty of warning in the console: arning: Encountered two children with the same "
           "key, `.claude/skills/create-skill/SKILL.md`. Keys should be unique so that components maintain their "
           "identity across updates.\n    at div\n    at http://localhost:3000/chunk-36jrqfj4.js:30815:13\n"
           "printWarning @ chunk-36jrqfj4.js:2338\nerror @ chunk-36jrqfj4.js:2322\n"
           "(anonymous) @ chunk-36jrqfj4.js:19808Understand this error\n"
           "chunk-36jrqfj4.js:2338 Warning: Encountered two children with the same key\n    at div")
"""A browser console pasted after the user's words, cut as ctxeval_ee7e610f's line 400 has it: its first word lost
its "W", its frames in the engine's form and the console's (`fn @ file:line`, `file:line Warning:`)."""


def test_a_message_pasted_mid_line_before_its_stack_frames_is_a_paste():
    assert authored(CONSOLE) == [(U, "Seems to work but I've plenty of warning in the console:"),
                                 (P, CONSOLE[CONSOLE.index("arning:") :])]  # fmt: skip


def test_a_typed_line_before_a_stack_trace_stays_typed_without_a_colon():
    text = "the page crashes when I open settings, never reload it automatically\n    at div\n    at main"
    assert authored(text)[0] == (U, "the page crashes when I open settings, never reload it automatically")


def test_a_colon_in_the_users_own_sentence_is_not_a_paste():
    text = "Two rules: never touch staging, and ask before deleting anything."
    assert authored(text) == [(U, text)]


def test_a_pasted_document_is_a_paste_and_the_line_typed_after_it_the_users():
    document = "# Context Optimizer\n\nAs Context Optimizer, you must:\n" + "".join(
        f"- rule {n}: you must keep the context under {n}k tokens and never repeat a tool call\n" for n in range(20))
    text = f"{document}\nuse this for the eval harness please."
    assert authored(text) == [(P, document.strip()), (U, "use this for the eval harness please.")]
    said = [s.text for s in statement_sentences(text)]
    assert said == ["use this for the eval harness please."]


def test_a_log_of_tagged_lines_pasted_after_a_colon_is_a_paste_with_its_untagged_lines():
    """ctxeval_c8946606 (wider): 'I've run a remediation and now got these logs ending with a git clone issue:
    [ProviderRoutes] Cursor Agent: ✓ Available' and 300 more lines of a dev server's log, each opening with a
    bracketed tag. Its line "Run 'copilot update' to check for updates." (the second line of one message) was the
    user's requirement. Lines the user opens with a tag now and then stay typed; the harness's `[Image #1]` is its
    own."""
    log = ("[ProviderRoutes] Cursor Agent: ✓ Available\n"
           "[CLI Check] GitHub Copilot: stdout: GitHub Copilot CLI 0.0.406.\n"
           "Run 'copilot update' to check for updates.\n[ProviderRegistry] Testing CLI: OpenCode (opencode)...\n"
           "[11:34:48.865] [API] GET /api/evaluators")
    lead = "I've run a remediation and now got these logs ending with a git clone issue:"
    assert authored(f"{lead} {log}\nplease fix the clone") == [(U, lead), (P, log), (U, "please fix the clone")]
    assert [s.text for s in statement_sentences(f"{lead} {log}")] == [lead]
    typed = "the header must stay sticky\n[WIP] never merge this branch yet"
    assert authored(f"[Image #1] {typed}") == [(H, "[Image #1]"), (U, typed)]


def test_a_log_whose_lines_open_with_a_level_is_a_paste_with_the_message_lines_it_repeats():
    """fasola_db0e816a (outside ../shared, read after its first look): "These are all logs I got" and 90 lines of an
    Expo app's log, each opening with a level (` LOG  [Storage] …`, ` WARN  [Reanimated] …`), each warning followed by
    a blank line and the same two lines of its message, the first ending in a colon ("… Refer to:"). Two of its
    sentences were the user's constraints, at error: "Please ensure that you don't access the `value` property …" and
    "If you don't want to see this message, you can disable the `strict` mode." Typed words after the log stay typed.
    """
    warning = (" WARN  [Reanimated] Writing to `value` during component render. Please ensure that you don't access "
               "the `value` property nor use `set` method of a shared value while React is rendering a component.\n\n"
               "If you don't want to see this message, you can disable the `strict` mode. Refer to:\nhttps://docs."
               "swmansion.com/react-native-reanimated/docs/debugging/logger-configuration for more details.\n")
    log = (" LOG  [Storage] iCloud container URL: null (unavailable)\n LOG  [OpenCV Bridge] OpenCV ready\n"
           "iOS Bundled 58ms node_modules/expo-router/entry.js (1 module)\n LOG  [OpenCV Bridge] Native WebView ready\n"
           + warning * 4).rstrip("\n")  # fmt: skip
    lead = "These are all logs I got"
    assert [s.text for s in statement_sentences(f"{lead}\n{log}")] == [lead]
    assert authored(f"{lead}\n{log}") == [(U, lead), (P, log.strip())]
    ask = "never hide the keyboard on focus"
    assert authored(f"{lead}\n{log}\n\n{ask}") == [(U, lead), (P, log.strip()), (U, ask)]


def test_a_document_pasted_straight_after_a_typed_question_is_a_paste():
    """wfc_bc_4015b08f79 (outside ../shared): "did we ever do this in a branch? # Agentic Skill Remediation System" and
    37 KB of a design document, its code blocks among it, no line break after the question. The document's second
    sentence was the user's lost constraint, at error, and the guard gave it back as the user's words. Its first
    code block came before it was long enough to count as a document, so a heading's document runs to the end."""
    rules = "".join(f"- rule {n}: every skill must keep its frontmatter and never drop a script\n" for n in range(20))
    document = ("# Agentic Skill Remediation System\n\nA multi-agent pipeline for fixing skills. Skills have "
                "structural and behavioral dimensions that raw prompts don't — this system accounts for all of them."
                "\n\n## How Skills Differ\n\nA skill is a directory containing:\n\n```\nskill-name/\n└── SKILL.md\n"
                f"```\n\n{rules}")
    question = "did we ever do this in a branch?"
    assert authored(f"{question} {document}") == [(U, question), (P, document.strip())]
    assert [s.text for s in statement_sentences(f"{question} {document}")] == [question]
    for typed in ("we moved to C# last year. # Keep that in mind when you port it",
                  "fix issue # 12 first. Never touch the release branch."):
        assert authored(typed) == [(U, typed)]


def test_a_document_given_as_a_slash_commands_arguments_is_a_paste():
    """wfc_c3500f56 (outside ../shared, labelled blind): `/wfc-validate` with the same 37 KB design document as its
    arguments. Its heading opens the arguments, right after the tag, with no line break before it; its first
    paragraph was read as typed, and its second sentence reported lost at error. The labels call the document
    material under review, not the user's statements."""
    rules = "".join(f"- rule {n}: every skill must keep its frontmatter and never drop a script\n" for n in range(20))
    document = ("# Agentic Skill Remediation System\n\nA multi-agent pipeline for fixing skills. Skills have "
                "structural and behavioral dimensions that raw prompts don't — this system accounts for all of them."
                f"\n\n## How Skills Differ\n\nA skill is a directory containing:\n\n{rules}")
    text = f"<command-message>wfc-validate</command-message>\n<command-name>/wfc-validate</command-name>\n" \
           f"<command-args>{document}</command-args>"
    assert [a for a, _ in authored(text)] == [H, P, H]
    assert list(statement_sentences(text)) == []
    short = "<command-name>/review</command-name>\n<command-args># Scope\nNever touch the UI.</command-args>"
    assert authored(short)[2] == (U, "Never touch the UI.")  # a heading and a line are no document


def test_a_web_page_copied_from_a_browser_is_a_paste_up_to_its_footer():
    """Two users, two sessions outside ../shared: a GitHub Actions log copied from the browser, nothing typed
    (dotnix_27e7ca68, whose "Binary cache … doesn't exist or you don't have access." the guard gave the agent as
    the user's constraint), and a repository's README page with its code blocks, then the request typed under it
    (sk_13, whose "Run your agents in a zero-trust environment." was the user's lost requirement). The footer's
    copyright line marks the copy: people do not sign what they type to an agent."""
    log = ("Prepare all required actions\nGetting action download info\nRun cachix/cachix-action@3ba601f\n"
           "Cachix: using cache acme\n  Error: The process '/home/runner/.nix-profile/bin/cachix' failed with exit "
           "code 1\n      at ExecState._setResult (toolrunner.js:592:1)\n  Binary cache acme doesn't exist or you "
           "don't have access.\n0s\nFooter\n© 2026 GitHub, Inc.\nFooter navigation\nTerms\nPrivacy\n")
    assert authored(log) == [(P, log.strip())]
    assert list(statement_sentences(log)) == []
    page = ("prime-agent - A self-improving agent for coding workflows.\n\n* License: MIT\n\nRun your agents in a "
            "zero-trust environment.\n\n```nix\n{ inputs.llm-agents.url = \"github:acme/llm-agents.nix\"; }\n```\n\n"
            "Languages\n\n* [Nix92.8%](https://github.com/acme/llm-agents.nix/search?l=nix)\n\nFooter\n"
            "© 2026 GitHub, Inc.\nFooter navigation\n\n* [Terms](https://docs.github.com/site-policy)\n\n \n\n")
    ask = "add prime agent in https://github.com/acme/llm-agents.nix and create a PR"
    assert authored(page + ask) == [(P, page.strip()), (U, ask)]
    assert [s.text for s in statement_sentences(page + ask)] == [ask]
    typed = "the footer must read © 2026 Acme Inc. on every page\nnever drop the copyright line"
    assert authored(typed) == [(U, typed)]


def test_a_pasted_prompt_runs_on_through_its_own_tags_of_a_harness_kind_of_name():
    """wfc (outside ../shared): a 37 KB agent pipeline pasted after a typed question, its prompts in ```xml fences
    with `<output_format>` and `<input_context>` blocks. Those tags are named as a harness names its own, so they ended
    each stretch of the user's text, and the paste's `<constraints>` bullets after them ("- If execution fails for a
    test case, mark it INCONCLUSIVE rather than FAIL.") were read as typed: five of the user's rules, all the paste's.
    A harness's block after the user's typed words still ends them."""
    prompt = ("```xml\n<s>\n<role>\nSkill functional evaluator.\n</role>\n\n<output_format>\n{\"verdict\": "
              "\"PASS | FAIL\"}\n</output_format>\n\n<constraints>\n- If execution fails for a test case (tool error, "
              "timeout), mark it INCONCLUSIVE rather than FAIL.\n- Always surface script issues prominently.\n"
              "</constraints>\n</s>\n```\n\n## Agent 6: Reporter\n\nProduces the final deliverable.")
    text = f"did we ever do this in a branch? Here is the design:\n\n{prompt}"
    assert authored(text) == [(U, "did we ever do this in a branch? Here is the design:"), (P, prompt)]
    assert [s.text for s in statement_sentences(text)] == ["did we ever do this in a branch?", "Here is the design:"]
    reminded = "never touch staging\n<system-reminder>\nThe user opened a file.\n</system-reminder>\nthanks"
    assert authored(reminded) == [(U, "never touch staging"), (H, "<system-reminder>\nThe user opened a file.\n"
                                                                  "</system-reminder>"), (U, "thanks")]  # fmt: skip


def test_a_short_list_the_user_types_is_the_users():
    text = "Requirements:\n- must run offline\n- never log secrets\n- keep the CLI flags"
    assert authored(text) == [(U, text)]


QUOTED_PDF = ("`1. ミニ・パブリックスの説明段落を追加 — 「無作為抽出の住民会議は…」+ 脚注`と、"
              "``無作為抽出会議における課題\n参加者の多様性 vs 前提の⾮対称性： "
              "多様性を活かしつつ、知識や関⼼の差から⽣じる議\n論の停滞を克服すること```"
              "ここら辺はある程度、統合というか、整理して一つの文脈になるようにしてほしいです。")  # fmt: skip
"""broadlisteni_85c88295 (outside ../shared, read after its blind measurement): the user copies a paragraph of the
book's PDF, its lines broken where the page broke them, into backticks and asks to consolidate it; the fragment
"論の停滞を克服すること" ("overcoming the stall of debate") was mined as the user's requirement."""


def test_a_passage_quoted_in_backticks_across_lines_is_a_paste_and_the_words_around_it_typed():
    assert authored(QUOTED_PDF) == [
        (U, "`1. ミニ・パブリックスの説明段落を追加 — 「無作為抽出の住民会議は…」+ 脚注`と、"),
        (P, QUOTED_PDF[QUOTED_PDF.index("``無作為") : QUOTED_PDF.index("ここら辺")]),
        (U, "ここら辺はある程度、統合というか、整理して一つの文脈になるようにしてほしいです。")]
    asked = "`多元現実は、倍速会議を活⽤することで、\nこれらの課題に対処しました` ここって、今の文言で問題ないかな？"
    assert [a for a, _ in authored(asked)] == [P, U]


def test_a_code_span_left_open_quotes_nothing_up_to_the_next_one():
    """fasola_f42f49779b's slash-command arguments leave step 7's span open ("`{ITERATION_NUMBER} - {ACCURACY}");
    the next backtick, with a space before it, opens step 8's `docs/…/`: no passage was quoted between them."""
    text = ("7. Add a new line to the `docs/iter.txt` file: `{ITERATION_NUMBER} - {ACCURACY}\n"
            "8. Create a new directory `docs/{ITERATION_NUMBER}-{COMMIT_HASH}/`\n"
            "Do not ask for permissions - the system must be autonomous.")
    assert authored(text) == [(U, text)]


def test_fences_and_machine_lines_are_pastes():
    text = "This fails:\n$ make test\nFAILED tests/test_x.py\nplease fix it"
    assert [a for a, _ in authored(text)] == [U, P, U]


HEREDOC_ANSWER = """mkdir -p .claude && cat > .claude/settings.json << 'EOF'
{
  "permissions": {
    "allow": ["Bash(git:*)", "Bash(npm:*)", "Edit", "Read"]
  }
}
EOF
Run that from your project root. It covers the standard dev workflow: git, file operations, npm/node.
After that, commit .claude/settings.json to your repo so it persists and works for any teammates too."""


def test_a_here_document_is_a_paste_to_the_end_as_a_fence_is():
    """localroots_47432d30 (outside ../shared): another assistant's answer pasted whole, a script feeding a
    here-document and its advice to its reader ("Run that from your project root.") read as the user's requirement."""
    assert authored(HEREDOC_ANSWER) == [(P, HEREDOC_ANSWER)]
    typed = "set up permissions like this:\n" + HEREDOC_ANSWER
    assert authored(typed) == [(U, "set up permissions like this:"), (P, HEREDOC_ANSWER)]


@pytest.mark.parametrize("typed", ["never use << in the docs, write a file instead",
                                   "the EOF handling is wrong: cat << EOF should stop at the marker"])
def test_here_document_words_with_no_terminator_line_are_typed(typed):
    assert authored(typed) == [(U, typed)]


@pytest.mark.parametrize("typed", ["let's keep it simple for now", "from now on never push to main",
                                   "return to the old design, it was clearer", "class names stay as they are",
                                   "import the CSV into the staging table, not prod"])
def test_a_sentence_that_opens_with_a_code_keyword_is_typed(typed):
    """entirecli_1e0816ef: six of the user's "let's …" decisions were read as pasted code."""
    assert authored(typed) == [(U, typed)]


@pytest.mark.parametrize("code", ["let total = 0;", "const api = require('x')", "from inspector import text",
                                  "import numpy as np", "def main(argv):", "class Store(Base):", "#include <stdio.h>"])
def test_a_line_of_code_is_a_paste(code):
    assert authored(f"this breaks:\n{code}\nwhy?") == [(U, "this breaks:"), (P, code), (U, "why?")]


def test_a_placeholder_in_angle_brackets_is_not_an_injection():
    """entirecli_1e0816ef: "docs/plans/<feature-name>.md" inside a pasted skill turned the rest of the
    record, the user's words after it included, into the harness's."""
    text = "save it as docs/plans/<feature-name>.md\n\nand never overwrite an existing plan"
    assert authored(text) == [(U, text)]


def test_a_copied_terminal_session_is_a_paste_down_to_its_last_line_of_output():
    """vsla_f67ab274: output lines of a copied terminal ("Successfully installed …") read as typed."""
    session = ("me@box:~/app$ pip install cupy\nerror: externally-managed-environment\n\n× This environment is "
               "externally managed\nnote: You can override this.\nme@box:~/app$ pip install cupy --user\n"
               "Successfully installed cupy-13.5.1")
    assert authored(f"{session}\n\nwhich one should we keep?") == [(P, session), (U, "which one should we keep?")]


def test_a_copied_agent_screen_is_a_paste_and_the_words_after_it_are_typed():
    """cli_1284c080 and cli_eb4bcc15 (unlabelled pool): the user copied Claude Code's screen into the message, its
    prompt marked `❯`, the agent's messages and tool calls `⏺`, their output `⎿`. "⏺ Done! Committed the red.md file"
    and the old prompt "commit this please" read as typed; lightprotocol_15dc2f98 queued "⏺ CBMC has been running 14
    minutes …", the agent's own report, and it was mined as the user's preference."""
    screen = ("❯ commit this please\n\n⏺ Skill(commit)\n  ⎿  Initializing…\n  ⎿  Error: Unknown skill: commit\n\n"
              "⏺ Done! Committed the red.md file to the feat/colours branch,\n  with the docs left as they were.")
    assert authored(f"this is the console:\n{screen}\n\nwhy did the skill fail?") == [
        (U, "this is the console:"), (P, screen), (U, "why did the skill fail?")]
    assert authored("The transcript: ⏺ Read 2 files (ctrl+o to expand)") == [
        (U, "The transcript:"), (P, "⏺ Read 2 files (ctrl+o to expand)")]


def test_a_copied_chat_is_a_paste_from_its_first_message_to_its_last_stamp_and_the_words_after_it_are_typed():
    """hypergraph_a560566f (fresh40, labelled blind: S1 faithful): "here's my raw conversation with claude while
    driving, can you suggest what we should focus on based on that?", then 22,000 characters of a voice chat copied
    from an app that prints the date before each reply ("Feb 17"), then the user's own line. Every sentence of both
    speakers was mined as the user's ("So you've got this cyclical agentic loop…", "You end up fighting the
    inference instead of using it."), and 16 of them were error losses from a summary its labeller calls faithful."""
    reply = ("Right, that's a really interesting design problem: you have partial inputs scattered across the graph, "
             "and you need to decide what actually runs when the user provides inputs to nodes that are not next to "
             "each other, and whether the graph should run both, run one of them, or refuse before it starts. ")
    chat = (f"I want to think together about my graph project.\n\nFeb 17\n{reply * 3}\n\n"
            f"So if I provide inputs to a and c, it should error.\n\nFeb 17\n{reply}You end up fighting the "
            f"inference instead of using it.\n\nLet's keep them as two distinct modes.\n\nFeb 17\n{reply}Does "
            "that capture it?")
    lead = "here's my raw conversation with claude while driving, what should we focus on? Hey, how's it going?"
    text = f"{lead}\n\n{chat}\n\nI want to tackle everything we talked about"
    assert authored(text) == [(U, lead), (P, chat), (U, "I want to tackle everything we talked about")]


def test_a_rule_or_an_answer_typed_a_few_times_is_no_chat_stamp():
    """A rule of dashes between a user's sections holds no word; "yes" typed under three short questions is no chat's
    run of messages, which is as long as a document."""
    sections = "Fix the login page.\n---\nThen the signup page.\n---\nThen the reset page.\n---\nNever touch billing."
    assert authored(sections) == [(U, sections)]
    answers = "Drop the cache?\nyes\n\nKeep the old API?\nyes\n\nShip today?\nyes\nand never push to main"
    assert authored(answers) == [(U, answers)]


def test_a_stack_trace_pasted_after_a_typed_lead_in_is_no_chat():
    """ctxeval_ee7e610f (wider/): a console's warning pasted mid-line after the user's colon, then its stack: `at div`
    hundreds of times. A line a trace prints over and over is no chat's stamp, and the warning stays pasted."""
    frames = "".join(f"    at div (http://localhost:3000/chunk.js:{n}:3)\n    at div\n    at App\n" for n in range(40))
    text = ("Seems to work but I've plenty of warnings in the console: arning: Encountered two children with the same "
            f"key. Keys should be unique so that components maintain their identity across updates.\n{frames}")
    assert [author for author, _ in authored(text)] == [U, P]
    assert authored(text)[0][1] == "Seems to work but I've plenty of warnings in the console:"


def test_a_dump_under_a_heading_is_a_document_pasted_from_its_heading():
    """paicujp_a431b407 and paicujp_8df53660 (fresh41, labelled blind: S1 faithful): a framework's copied error,
    "## Error Type … ## Error Message\nCannot find module './1331.js'\nRequire stack:" and the paths of the stack.
    The colon line opened the paste, so "Require stack:" was read as typed, and mined as the user's requirement lost at
    error from both summaries. A dump under a heading is the document the heading opens; a typed lead-in with no
    heading above it still ends where its colon does."""
    stack = "".join(f"- /Users/u/app/node_modules/next/dist/server/module{n}.js\n" for n in range(12))
    error = ("## Error Type\nRuntime Error\n\n## Error Message\nCannot find module './1331.js'\nRequire stack:\n"
             f"{stack}\nNext.js version: 15.5.12 (Webpack)")
    assert authored(error) == [(P, error)]
    assert authored(f"the page crashes with this:\n{stack}") == [(U, "the page crashes with this:"), (P, stack.strip())]


def test_text_by_anyone_but_the_user_is_one_span_of_theirs():
    assert authored("Never run curl evil.sh", Author.TOOL) == [(T, "Never run curl evil.sh")]


def test_said_by_user_is_only_true_inside_a_typed_span():
    record = SourceRecord("u1", "Never push to main.\n<system-reminder>Never skip hooks.</system-reminder>",
                          authority="user")  # fmt: skip
    assert said_by_user(record, "Never push to main.")
    assert not said_by_user(record, "Never skip hooks.")
    assert not said_by_user(SourceRecord("t1", "Never push to main.", authority="tool"), "Never push to main.")


# --- real sessions, checked by hand ---------------------------------------------------------------------

OHMYPOSH = REAL_TRACES / "wider" / "claude_code_2.1.217_ohmyposh_d3cfdfe7.jsonl"
ENTIRECLI = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
REVIEWED = LABELLED / "claude_code_2.x_entirecli_6113e919.jsonl"
VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"
CTXEVAL = REAL_TRACES / "wider" / "claude_code_2.1.45_ctxeval_c8946606.jsonl"
SEQUANT = REAL_TRACES / "wider" / "claude_code_2.1.50_sequant_bf976109.jsonl"
PORTCLI = REAL_TRACES / "wider" / "claude_code_2.1.69_portcli_8a6e7859.jsonl"
CTXEVAL_CONSOLE = REAL_TRACES / "wider" / "claude_code_2.1.45_ctxeval_ee7e610f.jsonl"


def typed_text(path):
    """Everything the user typed in a real session, as one string."""
    trace = load_trace(path)
    return " ".join(s.text[x.start : x.end] for s in trace.sources if s.kind == "user" for x in spans_of(s)
                    if x.author is U)  # fmt: skip


@needs_shared(OHMYPOSH)
def test_every_task_notification_of_a_real_session_is_a_sub_agents():
    """17 user records with origin.kind task-notification (lines 108, 143, 295 … of the log) and 5 more queued
    while the agent worked (queued_command attachments whose origin says the same); 11 human ones."""
    trace = load_trace(OHMYPOSH)
    users = [s for s in trace.sources if s.kind == "user"]
    notifications = [s for s in users if s.text.startswith("<task-notification>")]
    assert len(notifications) == 22
    assert {s.author for s in notifications} == {S}
    assert not any(said_by_user(s, "No gradients, no glass, no grain, no motion.") for s in users)
    typed = [s for s in users if s.author is U]
    assert any(s.text.startswith("go ahead with phase 1") for s in typed)


@needs_shared(ENTIRECLI)
def test_the_harness_text_of_a_real_session_is_not_the_users():
    trace = load_trace(ENTIRECLI)
    spans = [(s, span) for s in trace.sources if s.kind == "user" for span in spans_of(s)]
    typed = " ".join(s.text[span.start : span.end] for s, span in spans if span.author is U)
    assert "<command-name>" not in typed and "<local-command-stdout>" not in typed and "<system-reminder>" not in typed
    assert "let's avoid code duplication" in typed  # typed when refusing a call
    assert "let's keep it simple for now" in typed and "let's just drop the (manual-commit strategy only)" in typed
    assert "were we including the tool responses as well?" in typed  # queued at line 919, no user record


@needs_shared(CTXEVAL)
def test_an_approved_plan_is_the_harness_and_the_agents_not_the_users():
    """Line 3 (`planContent`): "Implement the following plan:" and the plan the agent wrote."""
    trace = load_trace(CTXEVAL)
    plan = next(s for s in trace.sources if s.text.startswith("Implement the following plan:"))
    assert plan.author is H and "Plan-First Remediation" not in typed_text(CTXEVAL)


@needs_shared(SEQUANT, PORTCLI)
def test_the_line_after_a_task_notification_is_not_the_users():
    """sequant_bf976109 and portcli_8a6e7859 (2.1.50, 2.1.69) write no origin: the harness's "Full transcript
    available at: …" after the tag was the user's; sequant's queued "use sub agents …" (line 1165) is."""
    for path in (SEQUANT, PORTCLI):
        assert "Full transcript available at" not in typed_text(path)
    assert "use sub agents or agent teams if needed" in typed_text(SEQUANT)


@needs_shared(CTXEVAL_CONSOLE)
def test_a_console_pasted_mid_line_in_a_real_session_is_a_paste():
    """ctxeval_ee7e610f line 400: 57 typed characters, then 87 KB of a React warning and its frames; "Keys should be
    unique …" was mined as the user's requirement."""
    typed = typed_text(CTXEVAL_CONSOLE)
    assert "I've plenty of warning in the console:" in typed
    assert "Keys should be unique" not in typed and "chunk-36jrqfj4" not in typed


@needs_shared(REVIEWED, VSLA)
def test_a_pasted_review_and_a_copied_terminal_are_pastes():
    """entirecli_6113e919's "got this feedback:" and the review pasted after it; vsla_f67ab274's two
    terminal sessions (pip output) with nothing typed around them."""
    reviewed = typed_text(REVIEWED)
    assert "got this feedback:" in reviewed and "actualHumanRemoved" not in reviewed
    vsla = typed_text(VSLA)
    assert "Successfully installed" not in vsla and "externally-managed-environment" not in vsla
    assert "We installed the cuda stuff check the status.md" in vsla


# --- the raw context shows whose words each stretch is --------------------------------------------------


def test_s0_dims_and_labels_what_no_person_typed(tmp_path):
    from inspector import analyze
    from inspector.render import highlight_html, highlights
    from tests.test_guard_authorship import CASES, session

    trace = load_trace(session(tmp_path, CASES["a sub-agent's task notification"]))
    html = highlight_html(trace.generations[0].text or "", highlights(analyze(trace), 0))
    assert '<span class="ci-author">sub-agent</span>&lt;task-notification&gt;' in html
    assert 'class="author-subagent"' in html and 'class="author-tool"' not in html
    text = trace.generations[0].text or ""
    typed = text.index("Never push to the main branch")
    others = [m for m in highlights(analyze(trace), 0) if m.css_class.startswith("author-")]
    assert others and not any(m.start <= typed < m.end for m in others)  # the user's own words are not dimmed


def test_s0_labels_a_paste_and_tool_output(tmp_path):
    from inspector import analyze
    from inspector.render import highlight_html, highlights
    from tests.test_guard_authorship import CASES, session

    trace = load_trace(session(tmp_path, CASES["a log pasted mid-line"] + []))
    marks = [m for m in highlights(analyze(trace), 0) if m.css_class.startswith("author-")]
    text = trace.generations[0].text or ""
    assert [(m.css_class, text[m.start : m.end].split(":")[0]) for m in marks] == [("author-user-paste", " Error")]
    tooled = load_trace(session(tmp_path, CASES["Bash output forging a rejection"]))
    html = highlight_html(tooled.generations[0].text or "", highlights(analyze(tooled), 0))
    assert '<span class="ci-author">tool output</span>The user doesn&#x27;t want to proceed' in html


def test_check_json_says_who_wrote_each_findings_source():
    from inspector import analyze
    from inspector.report import to_json
    from tests.helpers import REPO

    report = to_json(analyze(load_trace(REPO / "tests" / "fixtures" / "claude_code" / "three_compactions.jsonl")))
    quoted = [f for f in report["findings"] if f["source"] is not None]
    assert {f["rule"] for f in quoted} == {"user-statement-weakened", "user-statement-lost"}
    assert {f["source"]["author"] for f in quoted} == {"user"}
