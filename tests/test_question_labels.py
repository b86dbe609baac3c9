"""A question-tool answer is kept where a summary lists it under the label its question was shown with.

Claude Code's question tool shows each question under a short label (`header`: "Finding 5", "Auth method") that
the agent chose. Asked through a review's findings one by one, mementor_063071b3 (fresh39, labelled blind: S1
faithful) answered "Skip" to "The three copies differ only in relative path prefix. No clean unification is
possible. Add sync comments, or skip entirely?", shown as "Finding 5"; S1 lists `Finding 5 (second ask): "Skip"`,
and the answer was called lost, because "Skip." is too short to be found alone and none of the question's words
are on that line. The label comes from the answer's own record (`toolUseResult.questions`), so the reading needs
nothing from the call's record.
"""

from __future__ import annotations

from pathlib import Path

from inspector.analysis import analyze
from inspector.readers.claude_code import question_labels, questions_answered
from inspector.readers.registry import load_trace
from tests.test_guard_authorship import call, result, session

QUESTION = ("The three copies differ only in relative path prefix. No clean unification is possible. Add sync "
            "comments, or skip entirely?")  # fmt: skip
BODY = (f'User has answered your questions: "{QUESTION}"="Skip". You can now continue with the user\'s answers in '
        "mind.")  # fmt: skip
ASKED = {"questions": [{"question": QUESTION, "header": "Finding 5", "multiSelect": False,
                        "options": [{"label": "Skip", "description": "the duplication is inherent"},
                                    {"label": "Address", "description": "add comments linking the three sites"}]}]}
LISTED = "6. All user messages:\n   - Finding 4: \"Address\"\n   - Finding 5 (second ask): \"Skip\"\n"


def _asked_log(folder: Path, summary: str, *, labelled: bool = True) -> Path:
    result_fields = {**ASKED, "answers": {QUESTION: "Skip"}} if labelled else {"answers": {QUESTION: "Skip"}}
    asked = [call("c1", "a1", "AskUserQuestion", ASKED), result("m", "c1", BODY, result_fields)]
    return session(folder, asked, typed="Review the crate and ask me about each finding.", summary=summary)


def _lost(path: Path) -> list[str]:
    """What the summary is said to have lost of the user's answers (the typed request before them aside)."""
    return [f.message for f in analyze(load_trace(path)).findings
            if f.rule == "user-statement-lost" and "Review the crate" not in f.message]  # fmt: skip


def test_an_answer_listed_under_its_questions_label_is_kept(tmp_path: Path) -> None:
    assert _lost(_asked_log(tmp_path, LISTED)) == []


def test_without_the_label_or_the_answer_on_its_line_the_answer_is_lost(tmp_path: Path) -> None:
    """The label alone says nothing of what was chosen, and a log whose result does not say the label has none
    to look for."""
    apart = "6. All user messages:\n   - Finding 5: see below\n   - We skip Finding 4\n"
    [unlisted] = _lost(_asked_log(tmp_path, apart))
    assert "“Skip.”" in unlisted
    [unlabelled] = _lost(_asked_log(tmp_path, LISTED, labelled=False))
    assert "“Skip.”" in unlabelled


def test_the_reader_keeps_each_questions_label_from_the_answers_own_record() -> None:
    """Each answer's stretch carries its question's label when the result says one; a blank label, or an entry that
    is no question, gives none."""
    stretches = questions_answered(BODY, question_labels(ASKED["questions"]))
    assert stretches == [[0, 5, QUESTION, "Finding 5"]]
    assert questions_answered(BODY) == [[0, 5, QUESTION]]
    assert question_labels([{"question": QUESTION, "header": "  "}, "not a question", {"header": "x"}]) == {}


def test_finding_50_does_not_list_the_answer_to_finding_5(tmp_path: Path) -> None:
    """A label is a whole phrase: it ends where a word does."""
    [lost] = _lost(_asked_log(tmp_path, "6. All user messages:\n   - Finding 50: \"Skip\"\n"))
    assert "“Skip.”" in lost


WRAPPER_ASKED = {"questions": [
    {"question": "This is a significant refactor (issue #69 scope). Should I plan this as a single large changeset, or "
                 "break it into incremental PRs?",
     "options": ["Single changeset — replace everything at once", "Incremental — Phase 1 (server endpoint) first"]},
    {"question": "For the chat input, reachat currently provides @mention and /command support. What's the priority?",
     "options": ["Must have mentions and commands from day one",
                 "Text input + file upload is enough to start, add mentions/commands later"]}]}  # fmt: skip
WRAPPER_ANSWERED = [{"type": "text", "text": (
    "User responses:\n1. Single changeset — replace everything at once\n"
    "2. Text input + file upload is enough to start, add mentions/commands later")}]


def _answered_through(folder: Path, tool: str) -> list:
    asked = [call("c1", "a1", tool, WRAPPER_ASKED), result("m", "c1", WRAPPER_ANSWERED, WRAPPER_ANSWERED)]
    trace = load_trace(session(folder, asked, typed="Plan the migration to useChat."))
    return [r for r in trace.sources if r.kind == "user" and r.extra.get("via") == "question-tool"]


def test_a_wrappers_question_tool_answers_are_the_users_each_with_the_question_it_answers(tmp_path: Path) -> None:
    """osabio_ddb216ba (fresh63, labelled blind): Conductor runs Claude Code in its workspaces and gives the agent its
    own question tool, `mcp__conductor__AskUserQuestion`, whose result lists the answers by number ("User
    responses:\\n1. …\\n2. …"). Read as a tool's output, the user's choices (its labels: "Text input + file upload is
    enough to start" lost at S2) were no one's words. They are the user's, each with the question its call put in the
    same place; an MCP tool of any other name is a tool, whatever it prints."""
    [answers] = _answered_through(tmp_path, "mcp__conductor__AskUserQuestion")
    assert answers.author.value == "user"
    assert answers.text == ("Single changeset — replace everything at once.\n"
                            "Text input + file upload is enough to start, add mentions/commands later.")
    assert [stretch[2] for stretch in answers.extra["asked"]] == [q["question"] for q in WRAPPER_ASKED["questions"]]
    assert _answered_through(tmp_path, "mcp__helpdesk__ask_question") == []
