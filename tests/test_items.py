"""Session items: what the user said, failures still open and actions done, mined from real session excerpts.

Every string quoted here is from ../shared/real_traces (the labelled sessions and their gold files), cut short.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from inspector import analyze, load_trace
from inspector.actions import action_items
from inspector.invariants import IndexedText, InvariantStatus
from inspector.item_matching import match_action, match_failure, match_user_item
from inspector.items import session_items, standing_said
from inspector.model import Invariant, InvariantKind, SourceRecord
from inspector.readers.claude_code import user_words_in_result
from inspector.shell_runs import command_signature, failure_items, shell_runs
from inspector.statements import last_question, offered_options, statement_kind, statement_sentences, user_items
from inspector.text import content_terms
from tests.helpers import LABELLED, needs_shared

ENTIRECLI = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"
needs_real = needs_shared(LABELLED)

KEEP_LOCAL = "intentional - keep it local! let's proceed with implementation using superpowers"
MANUAL_COMMIT = (
    "A. just manual commit for now (Can we update the linear issue ENT-96  to reflect this, "
    "and create a new one to cover auto?)"
)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
    "there is already scoped transcript functionality and summarisation code in explain, "
    "let's avoid code duplication"
)
REJECTED_SILENTLY = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how "
    "to proceed."
)
ANSWERED = (
    'User has answered your questions: "Which repo?"="Entirely new git repo". '
    "You can now continue with the user's answers in mind."
)
BENCHMARK = "cd bench && python3 run_full_benchmark.py --sizes 64,128 --competitors cublas"
CRASH_OUTPUT = "Running size 64...\nmalloc(): invalid size (unsorted)\nAborted (core dumped)"
CRASH = "python run_full_benchmark.py: malloc(): invalid size (unsorted)"
NEVER_STARTED = "python3: can't open file 'run_full_benchmark.py': [Errno 2] No such file or directory"


def user(text: str, key: str = "u1", **extra: object) -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind="user", authority="user", extra=extra)


def assistant(text: str, key: str = "a1") -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind="assistant", authority="assistant")


def ran(key: str, command: str, output: str, kind: str = "tool_result") -> SourceRecord:
    return SourceRecord(
        key=key, text=output, namespace="transcript", kind=kind, authority="tool", extra={"command": command}
    )


def items_of(text: str, **extra: object) -> list[tuple[InvariantKind, str]]:
    return [(item.kind, item.text) for item in user_items(user(text, **extra))]


# --- what the user said -----------------------------------------------------------------------------


def test_keep_it_local_is_a_constraint_and_the_go_ahead_is_not_an_item() -> None:
    assert items_of(KEEP_LOCAL) == [(InvariantKind.USER_CONSTRAINT, "intentional - keep it local!")]


@pytest.mark.parametrize("rule", ["the prod bucket is readonly", "staging is off limits", "tags shall not move"])
def test_every_word_that_forbids_states_a_constraint(rule: str) -> None:
    assert items_of(rule) == [(InvariantKind.USER_CONSTRAINT, rule)]


def test_may_not_is_what_might_be_and_no_constraint() -> None:
    assert not [kind for kind, _ in items_of("the old attribution may not match the intended semantics")
                if kind is InvariantKind.USER_CONSTRAINT]  # fmt: skip


PASTED_REVIEW = ("The CalculatedAt timestamp uses time.Now() which includes the local timezone. While this is "
                 "consistent with the existing CreatedAt field in CommittedMetadata (line 329), using UTC would be "
                 "more consistent with incremental checkpoint timestamps and avoid timezone-related issues when "
                 "comparing timestamps across systems.\n\nCan we do this, but can you first check if we really use UTC "
                 "consistently?")
"""A review comment the user pasted, then asked about (a real session's): "avoid" in it is what UTC would do."""


@pytest.mark.parametrize("rule", ["let's avoid code duplication", "Avoid force pushes to main",
                                  "ideally we should avoid tight coupling between the button and the panel"])
def test_avoid_said_to_the_agent_is_a_constraint(rule: str) -> None:
    assert items_of(rule) == [(InvariantKind.USER_CONSTRAINT, rule)]


def test_avoid_as_what_something_does_or_why_is_no_constraint() -> None:
    assert not [kind for kind, _ in items_of(PASTED_REVIEW) if kind is InvariantKind.USER_CONSTRAINT]
    assert statement_kind("we should rebuild the WASM on npm run start to avoid these issues") is (
        InvariantKind.USER_REQUIREMENT)


def test_please_and_a_work_verb_anywhere_is_a_request() -> None:
    request = ("maybe you are correct, if so please still use 2 agents for different purposes, but the UI please help "
               "to optimize as well to avoid the confusion.")
    assert statement_kind(request) is InvariantKind.USER_REQUIREMENT
    assert statement_kind("could you please run the tests") is None  # a question, however it ends


def test_a_choice_is_a_decision_without_the_question_riding_on_it() -> None:
    [item] = user_items(user(MANUAL_COMMIT))
    assert (item.kind, item.text) == (InvariantKind.USER_DECISION, "just manual commit for now")
    assert item.quote is not None and "ENT-96" in item.quote  # the finding still quotes the whole sentence


def test_please_use_is_a_preference() -> None:
    assert items_of("please use the british spelling :)") == [
        (InvariantKind.USER_PREFERENCE, "please use the british spelling :)")
    ]


def test_no_then_a_clause_corrects_and_no_before_a_noun_reports() -> None:
    """entirecli: "no remove this again, …" corrects the agent; safecast-map-MCP: "No changes." answered "Try
    testing at … it should now show the complete response": what the user saw, not a correction."""
    assert statement_kind("no remove this again, the risk someone assumes it's a stable link is to big") is (
        InvariantKind.CORRECTION)
    assert statement_kind("no it should read the config first") is InvariantKind.CORRECTION
    assert statement_kind("No, the other branch") is InvariantKind.CORRECTION
    for report in ("No changes.", "No luck", "no difference at all", "No errors in the console"):
        assert statement_kind(report) is not InvariantKind.CORRECTION, report


def test_the_words_of_a_condition_state_nothing_the_user_asks() -> None:
    """localroots_47432d30 (paretoimproved/local-roots, outside ../shared): a pasted answer's "Trim or add to it
    based on what you actually use — if you're running yarn or pnpm instead of npm, swap those in." was mined as the
    user's correction by its "instead of", inside the condition, and its loss called an error in faithful
    summaries. A condition says the case a statement applies to; what it asks is after it."""
    assert statement_kind("if you're using bun rather than node, switch those over") is not InvariantKind.CORRECTION
    assert statement_kind("If the build is green instead of red, tag it") is not InvariantKind.CORRECTION
    assert statement_kind("if possible, use pnpm instead of npm") is InvariantKind.CORRECTION  # asked after it
    assert statement_kind("if the tests fail, don't push") is InvariantKind.USER_CONSTRAINT
    assert statement_kind("use pnpm instead of npm") is InvariantKind.CORRECTION


def test_actually_starts_a_correction() -> None:
    assert statement_kind("actually maybe let's test this first") is InvariantKind.CORRECTION


def test_system_package_approach_is_a_decision() -> None:
    assert statement_kind("Lets do the system package approach please") is InvariantKind.USER_DECISION


def test_a_question_is_not_an_item() -> None:
    assert statement_kind("Can we update the linear issue ENT-96 to reflect this?") is None
    assert items_of("what does explain do with scoped transcripts?") == []


def test_a_question_without_its_question_mark_is_not_an_item() -> None:
    asked = "Can you run the benchmarks of our library vs. the competition and make sure it uses the GPU"
    assert statement_kind(asked) is None


INTERROGATIVE_OR_NOT = {
    # opener: (a question without its "?", a statement or imperative that opens with the same word)
    "can": ("can you make sure the tests pass", "can be done later, but never on main"),
    "could": ("could you avoid touching the schema", "could be a race, so never run them in parallel"),
    "would": ("would it be better to avoid the rewrite", "would be good to ensure we log"),
    "will": ("will the migration need to run first", "will need to run the migrations first"),
    "shall": ("shall we avoid the rewrite", "shall be read-only until the release"),
    "should": ("should we avoid the rewrite", "should never run on the production database"),
    "may": ("may I skip the tests for now", "may need to rerun the migrations"),
    "might": ("might it be better to avoid the rewrite", "might need to rerun the migrations"),
    "must": ("must we keep it local", "must keep it local"),
    "do": ("do you want me to never push", "Do make sure the migrations run first."),
    "does": ("does the build need to pass first", "does not need to run on CI, keep it local"),
    "did": ("did you make sure the tests pass", "did not work, avoid that approach"),
    "is": ("is it ok to never push to main", "is fine, ensure we log"),
    "are": ("are the tests required to pass first", "are required before the release, never skip them"),
    "was": ("was the schema read-only before", "was wrong, never use that flag"),
    "were": ("were the tests required", "were never meant to run on prod"),
    "am": ("am I supposed to avoid the rewrite", "am fine with it, but never push to main"),
    "have": ("have you decided to avoid the rewrite", "have to keep it local"),
    "has": ("has the build been required to pass", "has to pass before the release"),
    "had": ("had you decided to avoid the rewrite", "had to revert it, never use that flag again"),
    "can't": ("can't we avoid the rewrite", "can't be done on main, keep it local"),
    "couldn't": ("couldn't we avoid the rewrite", "couldn't reproduce it, so avoid that approach"),
    "won't": ("won't it need to run first", "won't work, avoid that approach"),
    "wouldn't": ("wouldn't it be better to avoid the rewrite", "wouldn't work, avoid that approach"),
    "shouldn't": ("shouldn't we avoid the rewrite", "shouldn't touch the production database"),
    "mustn't": ("mustn't we keep it local", "mustn't touch the production database"),
    "don't": ("don't you think we should avoid the rewrite", "Don't touch the production database."),
    "doesn't": ("doesn't it need to run first", "doesn't need to run on CI, keep it local"),
    "didn't": ("didn't you make sure the tests pass", "didn't work, avoid that approach"),
    "isn't": ("isn't it required to pass first", "isn't needed, avoid adding it"),
    "aren't": ("aren't the tests required", "aren't needed, avoid adding them"),
    "wasn't": ("wasn't the schema read-only", "wasn't needed, avoid adding it"),
    "weren't": ("weren't the tests required", "weren't needed, avoid adding them"),
    "haven't": ("haven't we decided to avoid the rewrite", "haven't decided yet, go with sqlite for now"),
    "hasn't": ("hasn't the build been required", "hasn't been needed, avoid adding it"),
    "hadn't": ("hadn't we decided to avoid the rewrite", "hadn't been needed, avoid adding it"),
    "what": ("what should we avoid here", "what I want is a test for each endpoint"),
    "why": ("why do we need to keep it local", "why we never push to main: the CI deploys it"),
    "how": ("how should we avoid the rewrite", "how you do it is up to you, but never push to main"),
    "where": ("where do we need to keep the logs", "where the logs go is up to you, but never in the repo"),
    "when": ("when will we need to run the migrations",
             "when someone does a `commit --amend` later it's not really feasible to update again"),
    "which": ("which flag should we avoid", "which you pick is up to you, but avoid the rewrite"),
    "who": ("who needs to review the migration", "who you ask doesn't matter, never push to main"),
    "whom": ("whom should we ask to review it", "whom you ask doesn't matter, never push to main"),
    "any": ("Any chance we can avoid the rewrite?", "Any change to prod must be reviewed first."),
}  # fmt: skip
"""An auxiliary opens a question when its subject follows it, and an imperative or a statement that drops its
subject when a verb does; a question word followed by a subject opens a clause of a statement."""


@pytest.mark.parametrize("opener", sorted(INTERROGATIVE_OR_NOT))
def test_an_opening_word_makes_a_question_only_in_question_word_order(opener: str) -> None:
    question, statement = INTERROGATIVE_OR_NOT[opener]
    assert question.lower().startswith(opener + " ") and statement.lower().startswith(opener + " ")
    assert statement_kind(question) is None
    assert statement_kind(statement) is not None


def test_a_question_after_a_comma_is_cut_off_in_question_word_order_only() -> None:
    assert items_of("never push the branch, did the tests pass") == [
        (InvariantKind.USER_CONSTRAINT, "never push the branch")]  # fmt: skip
    assert items_of("avoid the rewrite, which do you prefer") == [(InvariantKind.USER_CONSTRAINT, "avoid the rewrite")]
    assert items_of("avoid the rewrite, what we need is a small patch") == [
        (InvariantKind.USER_CONSTRAINT, "avoid the rewrite, what we need is a small patch")]  # fmt: skip


@pytest.mark.parametrize(
    "request_",
    ["Fix the issues and bugs and push them", "Address the findings", "fix all gaps", "go ahead with phase 1",
     "ok, skip 5, 7 and 8 and do the rest"],
)
def test_a_request_in_the_imperative_is_a_requirement(request_: str) -> None:
    assert statement_kind(request_) is InvariantKind.USER_REQUIREMENT


@pytest.mark.parametrize("request_", ["OK. Do the 3 changes that you suggest separately.", "Do all easy wins",
                                      "do a proposal for the 3 steps", "do that but try using serena to make edits"])
def test_do_before_a_thing_is_the_imperative_not_a_question(request_: str) -> None:
    """flutterdocker_5e12a303 (fresh55, labelled blind): "OK. Do the 3 changes that you suggest separately." is a
    decision its labels track to S2, and was read as a question ("do the … ?"). "Do" before a person still asks."""
    [(kind, _)] = items_of(request_)
    assert kind is InvariantKind.USER_REQUIREMENT
    assert statement_kind("do you want me to split them") is None and statement_kind("do we need tests") is None


@pytest.mark.parametrize("going", ["Do that", "ok do it now", "Do it.", "yes, do this please", "go ahead",
                                   "Go ahead.", "ok, go ahead please"])
def test_a_reply_that_only_says_go_is_not_an_item(going: str) -> None:
    """"Do that" approves the agent's proposal, which the work then carries out (flutterdocker_5e12a303, labelled
    nothing there); so does "go ahead" (ovid_ec84c889, fresh75, whose labels track the refactor it approved, not the
    words): a summary owes the words nothing. What follows the go is still asked."""
    assert statement_kind(going) is None
    assert statement_kind(f"{going} with phase 1".replace(". with", " with")) is InvariantKind.USER_REQUIREMENT


@pytest.mark.parametrize("report", ["Build failed again on CI", "Review looks good", "Test results are in the log",
                                    "Test automation is flaky"])
def test_a_work_noun_heading_a_report_is_no_request(report: str) -> None:
    assert statement_kind(report) is None


@pytest.mark.parametrize("going", ["let's proceed with implementation", "lets take a look at level 2.",
                                   "let's have a closer look at the parser",
                                   "wait, let's discuss first",  # cli_4b3ddf27 (outside ../shared), answered at once
                                   "Lets think deeply about this and how to properly implement it"])
def test_setting_the_agent_going_is_not_an_item(going: str) -> None:
    # planetfall (outside ../shared, labelled blind): "lets take a look at level 2." was a decision S2 was faulted
    # for dropping; it is "let's look", which sets the agent going and binds nothing after.
    assert statement_kind(going) is None


def test_a_decision_beside_setting_the_agent_going_is_still_one() -> None:
    assert statement_kind("let's take a look at level 2, we'll go with the tile map for now") is (
        InvariantKind.USER_DECISION)


def test_a_short_answer_borrows_the_question_it_answers() -> None:
    asked = "1. always report coverage as 100%\n2. omit the field when no tests ran\nWhat's your preference?"
    assert list(user_items(user("ok, do nothing, can we add some tests?"))) == []  # too few terms on its own
    [item] = user_items(user("ok, do nothing, can we add some tests?"), asked)
    assert (item.kind, item.text, item.context) == (InvariantKind.USER_CONSTRAINT, "ok, do nothing", asked)


CONFIG_OPTIONS = (
    "**Next question:** How should the configuration key be named and structured?\n\n"
    "| Option | Description |\n|--------|-------------|\n"
    "| **A. `auto_summarize: true` (Recommended)** | Simple boolean in `strategy_options`. |\n"
    "| **B. `summarize: { enabled: true }`** | Nested object allowing future model override. |\n\n"
    "I recommend **Option A** because:\n- Consistent with the existing `push_sessions` pattern\n\n"
    "Which naming/structure do you prefer?"
)


@pytest.mark.parametrize(
    ("reply", "picked"),
    [
        ("I think B, nested in strategy options - it leaves us space to further customise later on.", "B"),
        ("yes, let's go with A", "A"),
        ("A. is fine, ensure we log", "A"),
        ("option b works, the model must stay configurable", "B"),
    ],
)
def test_a_reply_that_picks_an_option_carries_the_option_s_text(reply: str, picked: str) -> None:
    items = list(user_items(user(reply), last_question(CONFIG_OPTIONS), CONFIG_OPTIONS))
    assert items and {item.context for item in items} == {f"option {picked}: {offered_options(CONFIG_OPTIONS)[picked]}"}
    # each by its title: the table's first cell, without its bold or its aside "(Recommended)"
    assert offered_options(CONFIG_OPTIONS) == {"A": "`auto_summarize: true`", "B": "`summarize: { enabled: true }`"}


def test_a_reply_that_picks_a_numbered_item_by_a_verb_carries_its_text() -> None:
    """dsa110flits_76f60b7a (fresh68, read after its score): the agent offered "1. Post a "#37 mostly implemented …"
    status comment to the upstream issue? …  2. Continue into `/plan` on the `dt_min` remainder, or stop — …", and
    the user typed "Go with 2. continue": the guard gave it back as in reply to the first line's question. A number
    after a verb picks only where it ends its clause: "go with 2 threads" counts."""
    turn = ("Still your call on the two items from before:\n1. Post a \"#37 mostly implemented\" status comment to the "
            "upstream issue? (outward-facing — won't without go-ahead)\n2. Continue into `/plan` on the `dt_min` "
            "remainder, or stop — the Research artifact is the demonstration.")
    [item] = user_items(user("Go with 2. continue"), last_question(turn), turn)
    assert item.context == "option 2: Continue into `/plan` on the `dt_min` remainder, or stop"
    assert [i.context for i in user_items(user("go with 2 threads, it must stay small"), None, turn)] == [None]


MACHINEKEY_TURN = (
    "**Therefore: cross-Tailnet same-device isn't merely \"out of Phase-1 scope\" (as #8 frames it) — it's "
    "client-blocked.**\n\n## Recommendation\n**Keep MachineKey globally unique for Phase 1.** Add `tenant_id`/"
    "`tailnet_id` columns (per #26 — future-proof, all queries scope), but the **uniqueness constraint stays global**."
    "\n\n## Questions\n\n**Q1 — constraint.** Global-unique MachineKey now (my rec), or composite `(tailnet_id, "
    "machine_key)`?\n\nAnswer Q1–Q3. Push hard on Q2 — it edits a \"locked\" decision."
)
"""ravenscale_a3748748 (fresh74): the agent's turn the user answered "go for recomended"."""


@pytest.mark.parametrize(
    ("turn", "recommended"),
    [
        (MACHINEKEY_TURN, "Keep MachineKey globally unique for Phase 1."),
        ("Trade-off: per-query stats cost a write each.\n\n**Recommend:** record `pipe_stats` as internal datasource "
         "fed through the **same Gatherer** — async, post-response. Query handler drops a stat struct on a channel.\n\n"
         "Go for recommended?", "record pipe_stats as internal datasource fed through the same Gatherer — async, "
         "post-response."),
        ("One parity question to settle now: **quarantine-on-bad-row (Tinybird default) vs reject-whole-batch.** I "
         "recommend **quarantine** — it's what existing Tinybird clients expect. A drop-in alt that hard-fails breaks "
         "them.\n\nOK?", "I recommend quarantine — it's what existing Tinybird clients expect."),
        ("- **Delete the token**: the deploy revokes it.\n- **Warn, don't delete** (recommended): removing a "
         "declaration narrows scope.\n\nGo for recommended (warn-don't-delete + ADR 0026)?", "Warn, don't delete"),
        ("**Recommendation:**\n\n| Aspect | Decision |\n|---|---|\n| Where | Dev-only (`tr local`/`tr dev`). "
         "Production server does zero file watching. |\n| Watcher | fsnotify |\n\nGo for recommended, or adjust?",
         "Where Dev-only (tr local/tr dev)."),
        (CONFIG_OPTIONS, "option A: `auto_summarize: true`"),
    ],
)
def test_a_reply_that_picks_the_recommendation_carries_what_was_recommended(turn: str, recommended: str) -> None:
    """tiny_8800a864, ravenscale_a3748748 (fresh74) and monodreams_0f7de2e3 (pool): three users answer the agent's
    recommendation with "go for recommended", "go for recomended", "Let's proceed with your recommendation then". Like
    "let's go with A", the reply means nothing to the next agent without what was recommended: under a head
    ("## Recommendation", "**Recommend:**", a table under it), in a sentence ("I recommend …"), or an option marked
    "(recommended)"; the first sentence of it, or the option it names."""
    [item] = user_items(user("go for recomended"), last_question(turn), turn)
    assert (item.kind, item.context) == (InvariantKind.USER_DECISION, f"recommended: {recommended}")
    [item] = user_items(user("Let's proceed with your recommendation then, implement it"), None, turn)
    assert (item.kind, item.context) == (InvariantKind.USER_DECISION, f"recommended: {recommended}")


def test_a_pick_of_the_recommendation_with_none_offered_is_no_item() -> None:
    assert list(user_items(user("go for recommended"), None, "Two ways: a lock or a queue. Which one?")) == []
    # a recommended thing of its own is no pick of the agent's recommendation
    assert [i.context for i in user_items(user("use the recommended Node version, it must stay pinned"), None,
                                          MACHINEKEY_TURN)] == [None]  # fmt: skip


def test_a_pick_is_kept_by_what_it_picked_not_by_its_own_words_quoted() -> None:
    """ravenscale_a3748748's S1 quotes "go for recomended" twice in its list of the user's messages and never says
    what it chose (its labels: weakened at S1); S2 says it as "0009 (MachineKey global uniqueness phase 1)" (kept)."""
    [item] = user_items(user("go for recomended"), None, MACHINEKEY_TURN)
    s1 = ('7. All user messages:\n   - "go for recomended" (with mid-turn message "Q2, sounds right")\n   - "go for '
          'recomended" (#33)\n   - **docs/adr/0006-0009** — the 4 fork ADRs (merged to main earlier).\n')
    s2 = ("   - ADRs: 0007 (auto-scoping GORM session, fail-closed), 0008 (N=1 is seed not backfill), 0009 (MachineKey "
          "global uniqueness phase 1).\n")
    assert match_user_item(item, IndexedText(s1)).status is InvariantStatus.LOST
    assert match_user_item(item, IndexedText(s2)).status is not InvariantStatus.LOST


def test_numbered_questions_are_no_options_and_a_numbered_answer_picks_none() -> None:
    """A turn that asks "1. Who's the primary user?  2. Scope of v1:" is answered "1) …", not picked from."""
    asked = "A few questions:\n1. Who's the primary user?\n2. Scope of v1:\n3. Any plans to host it?"
    assert offered_options(asked) == {}
    [item] = user_items(user("2) For now we must keep a static repository, GitLab later"), None, asked)
    assert item.context is None


def test_a_capital_letter_that_is_an_article_or_an_unoffered_label_picks_nothing() -> None:
    for reply in ("A quick note: we must keep the public API stable", "let's go with D, it must stay small"):
        assert [item.context for item in user_items(user(reply), None, CONFIG_OPTIONS)] == [None]


@pytest.mark.parametrize(
    "typed",
    [
        "<command-name>/exit</command-name>",
        "<command-message>exit</command-message>",
        "<bash-input>git pull</bash-input>",
    ],
)
def test_slash_commands_and_shell_mode_are_not_statements(typed: str) -> None:
    assert list(statement_sentences(typed)) == []


def test_pasted_table_lines_are_not_statements() -> None:
    text = (
        "Almost perfect, except we need our operators to be updated to match\n"
        "Category    Visual Style    Rationale\n"
        "Algebraic Elements / Sets    Upright or blackboard / calligraphic for distinguished sets\n"
    )
    said = " ".join(s.text for s in statement_sentences(text))
    assert "operators" in said
    assert "Visual Style" not in said and "Upright" not in said


def test_text_after_got_this_feedback_is_a_paste() -> None:
    text = (
        "got this feedback: \n\nThe calculation of actualHumanRemoved has a potential logic issue. The current "
        "approach tries to infer human removals by subtracting agent removals from total commit removals. However, "
        "this doesn't correctly handle the case where the agent added lines that the human then removed.\n\n"
        'Example scenario:\n\nAgent adds "lineA" and "lineB" (2 new lines)\nHuman removes "lineB" (1 line)\n'
        "Result: base → committed shows +1 line (lineA)\nIn this case:\n\ncommitRemoved = 0 (base → committed "
        "shows no removals, just additions)\nhumanRemoved (checkpoint → committed) = 1 (lineB was removed)\n"
        "actualHumanRemoved = 0 - 0 = 0 (incorrect, should be 1)\n"
    )
    assert [s.text for s in statement_sentences(text)] == ["got this feedback:"]
    assert items_of(text) == []


def test_a_question_tool_answer_is_a_decision() -> None:
    said, via = user_words_in_result(ANSWERED)
    assert items_of(said or "", via=via) == [(InvariantKind.USER_DECISION, "Entirely new git repo.")]


# --- the Claude Code reader: the user's words inside tool results ------------------------------------


def test_rejection_feedback_is_what_the_user_said() -> None:
    assert user_words_in_result(REJECTED) == (
        "there is already scoped transcript functionality and summarisation code in explain, "
        "let's avoid code duplication",
        "rejection",
    )


def test_rejection_without_feedback_says_nothing() -> None:
    said, _ = user_words_in_result(REJECTED_SILENTLY)
    assert said is None


def test_question_tool_answers_are_what_the_user_said() -> None:
    assert user_words_in_result(ANSWERED) == ("Entirely new git repo.", "question-tool")


def test_each_question_tool_answer_is_its_own_sentence() -> None:
    two = 'User has answered your questions: "Which repo?"="Entirely new git repo", "Which branch?"="main, for now"'
    assert user_words_in_result(two) == ("Entirely new git repo.\nmain, for now.", "question-tool")


def test_the_agents_recommended_mark_is_not_part_of_the_users_answer() -> None:
    """Claude Code's question tool has the agent end the label of the option it recommends with "(Recommended)";
    picked, it came back in the answer and was looked for in summaries as the user's word: "3 conditions
    (Recommended)" was called lost from a summary saying "3 conditions (None / Flat LLM / Intent Layer)"
    (intent-layer_418907ce, outside ../shared), "Yes — delete both (Recommended)" likewise in three wfc sessions."""
    answer = ('User has answered your questions: "What conditions do we test?"="3 conditions (Recommended)", '
              '"Which output?"="Blog post (a writeup)". You can now continue with these answers in mind.')
    assert user_words_in_result(answer) == ("3 conditions.\nBlog post (a writeup).", "question-tool")


def test_a_short_question_tool_answer_is_found_by_its_question_and_a_go_ahead_is_no_item() -> None:
    """"3 conditions." says too little to be found in a summary by its own words; it borrows the question the tool put,
    as a typed reply borrows the agent's (intent-layer_418907ce, outside ../shared: it is the session's key decision,
    and was no item at all once the agent's "(Recommended)" mark was dropped from it). "Yes, proceed." and "Yes,
    upgrade now." only say go, as a typed "let's proceed" does: the work carries on, not the words (three wfc
    sessions; portcli_e9e702ed's gstack upgrade, in wider/)."""
    from inspector.readers.claude_code import questions_answered

    body = ('User has answered your questions: "What conditions do we need to test to make a convincing '
            'counter-argument?"="3 conditions (Recommended)", "gstack v1.51 is available. Upgrade now?"="Yes, upgrade '
            'now", "Proceed with the migration?"="Yes, proceed". You can now continue with these answers in mind.')
    said, via = user_words_in_result(body)
    record = user(said or "", via=via, asked=questions_answered(body))
    items = list(user_items(record))
    assert [(item.text, item.context) for item in items] == [
        ("3 conditions.", "What conditions do we need to test to make a convincing counter-argument?")]


def test_a_statement_whose_subject_is_the_sentence_before_is_an_item_with_it() -> None:
    """vault_ac3aa258 (outside ../shared, read after its first look): "If one file was added, it should default to all.
    This needs to persist accross closing and opening the app". Alone, "This needs to persist …" names nothing: it was
    called gone from a summary saying "File filter default changed … with @AppStorage persistence", at error. With
    the sentence it stands on, it is found. A statement that names its own subject stays as it was typed."""
    text = ("If one file was added, it should default to all. This needs to persist accross closing and opening the "
            "app")
    assert (InvariantKind.USER_REQUIREMENT, "If one file was added, it should default to all. This needs to persist "
            "accross closing and opening the app") in items_of(text)
    assert items_of("Keep the cache warm. The filter needs to persist across restarts.") == [
        (InvariantKind.USER_REQUIREMENT, "Keep the cache warm."),
        (InvariantKind.USER_REQUIREMENT, "The filter needs to persist across restarts.")]


def test_rejection_feedback_is_a_constraint() -> None:
    said, via = user_words_in_result(REJECTED)
    assert [kind for kind, _ in items_of(said or "", via=via)] == [InvariantKind.USER_CONSTRAINT]


# --- failures still open ---------------------------------------------------------------------------


def test_command_signature_drops_directory_and_flags() -> None:
    assert command_signature(BENCHMARK) == ("python", "run_full_benchmark.py")


def test_a_crash_in_piped_output_is_a_failure() -> None:
    [item] = failure_items(shell_runs([ran("t1", f"{BENCHMARK} 2>&1 | tail -20", CRASH_OUTPUT)]))
    assert (item.kind, item.text, item.retired_by) == (InvariantKind.FAILURE, CRASH, None)


def test_a_later_clean_run_of_the_same_command_retires_the_failure() -> None:
    records = [
        ran("t1", f"{BENCHMARK} 2>&1 | tail -20", CRASH_OUTPUT),
        ran("t2", "cd bench && python3 run_full_benchmark.py --sizes 256", "size 256: 1.2 GFLOPS\nDone."),
    ]
    assert [item.retired_by for item in failure_items(shell_runs(records))] == ["t2"]


def test_a_later_run_that_never_started_does_not_retire_the_failure() -> None:
    records = [
        ran("t1", f"{BENCHMARK} 2>&1 | tail -20", CRASH_OUTPUT),
        ran("t2", f"{BENCHMARK} 2>&1 | tail -20", NEVER_STARTED),
    ]
    assert [item.retired_by for item in failure_items(shell_runs(records))] == [None]


def test_exploration_and_slips_are_not_failures() -> None:
    records = [
        ran("t1", "ls build/", "ls: cannot access 'build/': No such file or directory", "tool_error"),
        ran("t2", "cat docs/notes.md", "Error: something failed", "tool_error"),
        SourceRecord(key="t3", text="<tool_use_error>File has not been read yet. Read it first before writing to "
                     "it.</tool_use_error>", namespace="transcript", kind="tool_error", authority="tool",
                     extra={"command": "python3 scripts/patch.py", "slip": "refused by the harness"}),
    ]  # fmt: skip
    assert list(failure_items(shell_runs(records))) == []


# --- completed actions -----------------------------------------------------------------------------


def test_a_commit_is_an_action_with_its_sha() -> None:
    output = "[main 871e5dd] docs: add README\n 1 file changed, 40 insertions(+)"
    [item] = action_items([ran("c1", "git add README.md && git commit -m 'docs: add README'", output)])
    assert (item.kind, item.text) == (InvariantKind.COMPLETED_ACTION, "commit 871e5dd docs: add README")


def test_a_pull_request_is_an_action_with_its_number() -> None:
    [item] = action_items([ran("p1", 'gh pr create --title "Add README"', "https://github.com/o/r/pull/133\n")])
    assert item.text == "pull request #133 opened"


def test_the_agents_words_the_user_copies_to_answer_them_are_the_agents() -> None:
    """duet_cd680c64 (fresh45, labelled blind): the user copied an item of the agent's "what's next" list, "1. Close
    the frontend-design open thread. … Make the call and either remove it from `enabledPlugins` or document the
    boundary.", a turn and a message of their own later, and answered under it "yes, retire old frontend-design". The
    copy was mined as the user's requirement, and called lost from S1 and S2. A message that is all a copy of one
    option ("1. Fix the ingest — only update timestamps when node data actually changes.") is the user choosing it."""
    listed = ("### Polish\n1. **Drop the `legacy-theme` stylesheet.** Nothing imports it since the redesign. Make the "
              "call and either delete it from `styles/` or document why it stays.\n2. **Fix the ingest** — only "
              "write the index when an entry actually changes.")  # fmt: skip
    records = [user("what's next?", "u1"), assistant(listed, "a1"), user("explain the index", "u2"),
               assistant("The index maps entries to files.", "a2"),
               user("  1. Drop the legacy-theme stylesheet. Nothing imports it since the redesign. Make the call and "
                    "either delete it from styles/ or document why it stays.\n\nyes, never keep the legacy theme",
                    "u3"),
               user("2. Fix the ingest — only write the index when an entry actually changes.", "u4")]  # fmt: skip
    said = [item.text for item in session_items(records) if item.source_key in ("u3", "u4")]
    assert said == ["yes, never keep the legacy theme",
                    "Fix the ingest — only write the index when an entry actually changes."]  # fmt: skip


def test_a_passage_of_the_agents_words_copied_over_several_lines_is_no_choice_of_the_users() -> None:
    """lightprotocol_345198a8 (outside ../shared, read after its score was taken): the user typed "remove all of
    these" and pasted three paragraphs of the agent's review of its proofs, as a terminal copies them (marks gone,
    lines wrapped and indented). Its lead-in and first pasted line share a line a copy's wide gap reads as pasted, so
    no typed sentence was left beside the copy, which was kept whole as a choice: its "They'd be better as #[test]
    functions -- …" became the user's constraint, reported lost from a summary as an error."""
    review = ("**~9 are unit tests** dressed up as Kani proofs. They'd be better as `#[test]` functions -- they don't "
              "benefit from symbolic execution because they test constants, trivial setters, or stub behavior.\n\n"
              "**~7 are modeling proofs** that verify logic the harness itself wrote, not the actual codebase. These "
              "give false confidence.")  # fmt: skip
    pasted = ("remove all of these   ~7 are weak -- they test trivial constructors or mocks.\n\n  ~9 are unit tests "
              "dressed up as Kani proofs. They'd be better as #[test] functions -- they don't benefit from symbolic "
              "execution because they test constants, trivial setters, or\n   stub behavior. ~7 are modeling proofs "
              "that verify logic the harness itself wrote, not the actual codebase. These give false confidence.")
    records = [user("review the proofs", "u1"), assistant(review, "a1"), user(pasted, "u2")]
    assert [item.text for item in session_items(records) if item.source_key == "u2"] == []


def test_session_items_keep_log_order_across_kinds() -> None:
    records = [
        user(KEEP_LOCAL, "u1"),
        ran("t1", f"{BENCHMARK} 2>&1 | tail -20", CRASH_OUTPUT),
        ran("c1", "git commit -m 'docs: add README'", "[main 871e5dd] docs: add README"),
    ]
    assert [item.kind for item in session_items(records)] == [
        InvariantKind.USER_CONSTRAINT,
        InvariantKind.FAILURE,
        InvariantKind.COMPLETED_ACTION,
    ]


def test_mining_a_log_again_gives_its_own_items_never_the_last_log_s() -> None:
    """The guard mines one log twice (its cheap reading, then its full check) and the second time reuses the first:
    only for the very same records, never another log's, nor the same words in a new list."""
    first = (user(KEEP_LOCAL, "u1"),)
    second = (user("Never run migrations against the staging database.", "u9"),)
    assert [i.source_key for i in standing_said(first)] == ["u1"]
    assert [i.source_key for i in session_items(second)] == ["u9"]
    assert [i.source_key for i in session_items(first)] == ["u1"]
    grown = (*first, user("Don't push to origin.", "u2"))
    assert [i.source_key for i in session_items(grown)] == ["u1", "u2"]
    failed = (*first, ran("t1", f"{BENCHMARK} 2>&1 | tail -20", CRASH_OUTPUT))
    assert [i.source_key for i in session_items(failed)] == ["u1", "t1"]
    assert [i.source_key for i in standing_said(failed)] == ["u1"]  # the full miner's failures are not the user's


# --- finding an item in a summary ------------------------------------------------------------------


def keep_local() -> Invariant:
    [item] = user_items(user(KEEP_LOCAL))
    return item


def crash() -> Invariant:
    return Invariant("failure:t1", InvariantKind.FAILURE, CRASH, "t1")


GITIGNORE = ("What if I add it to an .env file and let you access it from there? If so, make sure it is included in "
             ".gitignore")
"""anchapin/luminaguard 4b693f10: the user's request before the first compaction; its summary below."""
GITIGNORE_SUMMARY = ("Files and Code Sections:\n- .gitignore (added .env)\n- .env (created with JULES_API_KEY)\n"
                     "   - Set up .env file with API key and added to .gitignore\n")  # fmt: skip


def test_a_request_whose_file_the_summary_names_is_not_called_lost() -> None:
    """Its terms are 'included' and 'gitignore'; no passage holds both, yet the summary speaks of the file."""
    [item] = user_items(user(GITIGNORE))
    match = match_user_item(item, IndexedText(GITIGNORE_SUMMARY))
    assert match.status is InvariantStatus.PARAPHRASED and match.matched_text == ".gitignore"
    assert match_user_item(item, IndexedText("Set up the Jules API client.\n")).status is InvariantStatus.LOST


def test_a_prohibition_on_a_file_the_summary_names_is_still_lost() -> None:
    """A summary that names the file and drops the "never" has lost exactly what the user said."""
    [item] = user_items(user("Don't ever touch .gitignore."))
    assert match_user_item(item, IndexedText(GITIGNORE_SUMMARY)).status is InvariantStatus.LOST


def test_a_user_item_listed_verbatim_is_kept() -> None:
    summary = 'User feedback:\n- "intentional - keep it local!" (the branch stays unpushed)\n'
    match = match_user_item(keep_local(), IndexedText(summary))
    assert (match.status, match.matched_text) == (InvariantStatus.VERBATIM, "intentional - keep it local")


def test_a_summary_on_another_topic_loses_the_user_item() -> None:
    summary = "The conversation was very short - just one question, one search, and then exit."
    assert match_user_item(keep_local(), IndexedText(summary)).status is InvariantStatus.LOST


def test_an_answer_quoted_in_part_is_not_lost() -> None:
    """recoverylm_5a7da3e1 (outside ../shared, labelled blind: kept): the user answered the agent's three approaches
    with "Approach A enhanced with Approach B."; its option letters are no terms, and the question's terms outweigh
    its own, so S1's "Recommended Approach A enhanced with B. User confirmed." was called a loss."""
    question = ("We can always upgrade to TF-IDF or embeddings later if keyword matching proves insufficient. Does "
                "this approach work for you, or do you want to go a different direction?")  # fmt: skip
    item = Invariant("user-decision:u1#0", InvariantKind.USER_DECISION, "Approach A enhanced with Approach B.", "u1",
                     context=question)  # fmt: skip
    summary = ("11. I proposed 3 approaches (keyword extraction, session summary search, TF-IDF). Recommended "
               "Approach A enhanced with B. User confirmed.")  # fmt: skip
    match = match_user_item(item, IndexedText(summary))
    assert (match.status, match.matched_text) == (InvariantStatus.PARAPHRASED, "Approach A enhanced with")
    # Three of its words in order, or four that are all small words, quote nothing.
    assert match_user_item(item, IndexedText("Approach A was dropped; B is enhanced instead.")).status is (
        InvariantStatus.LOST)  # fmt: skip
    small = Invariant("user-decision:u1#0", InvariantKind.USER_DECISION, "Yes, go with it as it is.", "u1",
                      context=question)  # fmt: skip
    assert match_user_item(small, IndexedText("The agent will go with it as it is written.")).status is (
        InvariantStatus.LOST)  # fmt: skip


def test_a_file_asked_for_by_its_word_is_kept_by_its_name() -> None:
    """cipherbox_12f1f541 (fresh28, labelled blind: faithful): the user's question-tool answer "Done — create
    context." asked for the phase's CONTEXT.md; S1 says "I created the branch … and checked for existing CONTEXT.md"
    and "I wrote the CONTEXT.md file and committed it", and the answer was called lost: `context.md` was one term and
    no passage said "context" beside "create". A file's name that is a word with an extension is that word too; a
    name with digits or folders is not cut so."""
    item = Invariant("user-decision:u1#0", InvariantKind.USER_DECISION, "Done — create context.", "u1")
    summary = ("3. I created the branch `feat/phase-14` from main and checked for existing CONTEXT.md (none found).\n"
               "10. I wrote the CONTEXT.md file and committed it.")  # fmt: skip
    assert match_user_item(item, IndexedText(summary)).status is not InvariantStatus.LOST
    assert match_user_item(item, IndexedText("I created the branch and wrote 14-context.md.")).status is (
        InvariantStatus.LOST)  # fmt: skip


def test_words_joined_by_a_slash_are_each_a_term() -> None:
    """entiretest_127e928e (fresh32, labelled blind: faithful): the question-tool answer "Placeholder/mock checkout."
    was called lost from S1, which says "User selected: localStorage persistence, … both panel AND page, mock
    checkout": `placeholder/mock` was one term, and the answer's two terms needed two in one passage. Words joined by
    slashes are alternatives or a list, as anchors read them; a path (a dot, a digit, an underscore) stays one term."""
    item = Invariant("user-decision:u1#0", InvariantKind.USER_DECISION, "Placeholder/mock checkout.", "u1")
    summary = "- User selected: localStorage persistence, cart icon with badge, both panel AND page, mock checkout"
    assert match_user_item(item, IndexedText(summary)).status is not InvariantStatus.LOST
    assert content_terms("Run tests/lint/typecheck on src/app_v2/main.py") == {
        "run", "test", "lint", "typecheck", "src/app_v2/main.py"}  # fmt: skip


def test_a_question_tool_answer_kept_in_part_beside_its_question_is_kept() -> None:
    """entiretest_127e928e (fresh32, labelled blind: S1 faithful): asked "Should the cart persist data, and if so,
    how?", the user picked "Browser localStorage only.", and S1's "User selected: localStorage persistence, …" was
    called an error loss: the answer says enough alone, so it borrowed no question, and "browser" is not in S1. The
    answer is one of the tool's options, which a summary tells in the question's words with some of the option's.
    The question's topic without any of the answer's words keeps nothing."""
    answer = Invariant("user-decision:u1#0", InvariantKind.USER_DECISION, "Browser localStorage only.", "u1",
                       asked="Should the cart persist data, and if so, how?")  # fmt: skip
    summary = "- User selected: localStorage persistence, cart icon with badge, both panel AND page, mock checkout"
    assert match_user_item(answer, IndexedText(summary)).status is InvariantStatus.PARAPHRASED
    assert match_user_item(answer, IndexedText("The cart should persist its data across reloads.")).status is (
        InvariantStatus.LOST)  # fmt: skip
    assert match_user_item(replace(answer, asked=None), IndexedText(summary)).status is InvariantStatus.LOST
    record = SourceRecord("u1", "Browser localStorage only.", namespace="transcript", kind="user", authority="user",
                          extra={"via": "question-tool", "asked": [[0, 26, answer.asked]]})  # fmt: skip
    [mined] = user_items(record)
    assert (mined.text, mined.context, mined.asked) == ("Browser localStorage only.", None, answer.asked)


def test_an_open_crash_under_errors_and_fixes_is_presented_as_fixed() -> None:
    summary = "4. Errors and fixes:\n   - malloc(): invalid size (unsorted) in run_full_benchmark.py at size 64.\n"
    assert match_failure(crash(), IndexedText(summary)).status is InvariantStatus.WEAKENED


def test_an_open_crash_called_unresolved_is_kept() -> None:
    summary = "run_full_benchmark.py aborts with malloc(): invalid size (unsorted); the crash is still unresolved."
    assert match_failure(crash(), IndexedText(summary)).status is InvariantStatus.PARAPHRASED


def test_still_unresolved_outweighs_an_errors_and_fixes_heading() -> None:
    summary = (
        "4. Errors and fixes:\n   - malloc(): invalid size (unsorted) in run_full_benchmark.py: still unresolved.\n"
    )
    assert match_failure(crash(), IndexedText(summary)).status is InvariantStatus.PARAPHRASED


def test_a_commit_is_kept_by_its_sha() -> None:
    item = Invariant("c", InvariantKind.COMPLETED_ACTION, "commit 871e5dd docs: add README", "c1")
    assert match_action(item, IndexedText("Committed 871e5dd (README).")).status is InvariantStatus.VERBATIM
    assert match_action(item, IndexedText("Worked on the benchmark.")).status is InvariantStatus.LOST


# --- end to end on the labelled real sessions ----------------------------------------------------


@needs_real
def test_entirecli_keep_it_local_is_lost_in_s2_only() -> None:
    result = analyze(load_trace(ENTIRECLI))
    lost = [f for f in result.findings if f.rule == "user-statement-lost" and f.source is not None]
    assert any(f.generation == 2 and "keep it local" in f.source.quote for f in lost)  # type: ignore[union-attr]
    assert not [f for f in result.findings if f.rule == "user-statement-lost" and f.generation == 1]


@needs_real
def test_entirecli_every_error_points_at_evidence() -> None:
    errors = [f for f in analyze(load_trace(ENTIRECLI)).findings if f.severity.value == "error"]
    assert errors and all(f.source is not None or f.excerpt is not None for f in errors)


def _edit(key: str, path: str, new: str) -> SourceRecord:
    return SourceRecord(key=key, text=f"replace_all: false\nfile_path: {path}\nold_string: x\nnew_string: {new}",
                        namespace="transcript", kind="tool_call", authority="assistant", extra={"tool": "Edit"})


README_ASK = "brainstorm:\n- documented in README, note specific claude-only generation for now"


def test_a_request_naming_a_file_is_retired_by_the_edit_that_writes_it() -> None:
    """entirecli 1e0816ef: the README edit saying Claude-only generation fulfils the user's request."""
    done = _edit("e2", "/Users/alex/workspace/cli/README.md", "Summaries are generated with Claude only for now.")
    [item] = [i for i in session_items([user(README_ASK), done]) if i.kind is InvariantKind.USER_DECISION]
    assert item.retired_by == "e2"


def test_an_edit_that_writes_only_the_files_own_name_does_not_retire_the_request() -> None:
    """The file a request names is not one of its topic terms, however the stemmer spells it ('README' → 'readm')."""
    named_only = _edit("e2", "/Users/alex/workspace/cli/README.md", "See the README for the install steps.")
    assert all(i.retired_by is None for i in session_items([user(README_ASK), named_only]))


def test_an_unrelated_edit_or_a_constraint_is_not_retired_by_an_edit() -> None:
    unrelated = _edit("e2", "/Users/alex/workspace/cli/README.md", "| `strategy_options.push_sessions` | true |")
    assert all(i.retired_by is None for i in session_items([user(README_ASK), unrelated]))
    never = user("never touch README.md without asking me first", key="u2")
    edit = _edit("e3", "/repo/README.md", "asking first: touch nothing")
    assert all(i.retired_by is None for i in session_items([never, edit]))


@pytest.mark.parametrize("said", ["I don't see it on the PR", "we can't find the log from yesterday",
                                  "I don't know where the config lives", "I do not remember that flag"])
def test_saying_what_one_sees_or_knows_forbids_nothing(said):
    """portcli_e9e702ed: "I don't see it on the PR" became a lost constraint, an error in a faithful summary."""
    assert statement_kind(said) is not InvariantKind.USER_CONSTRAINT


@pytest.mark.parametrize("said", ["I can't close that popup and I can sign in with google.",
                                  "When I open the onboarding flow, once I get to the paywall, I can't select any of "
                                  "the buttons."])
def test_what_the_user_cannot_do_is_a_bug_report_that_forbids_nothing(said):
    """localroots_47432d30 (fresh52, labelled blind: a request, retired by S2): "I can't close that popup" was mined as
    a constraint, and S2's dropping it, the popup fixed, a warning in a faithful summary. vault_1998fc0b's paywall
    report is the same: what fails for the user, not what the agent may not do."""
    assert statement_kind(said) is not InvariantKind.USER_CONSTRAINT


@pytest.mark.parametrize("said", ["Maybe something like a Catalyst by Tailwind, but we don't have Vue.js for Catalyst, "
                                  "so try to see if you can port it.", "I don't have access to the staging cluster"])
def test_what_the_user_lacks_forbids_nothing(said):
    """ravencloak_31505fc3 (fresh73, labelled blind: S1 and S2 faithful, read after its score): "we don't have Vue.js
    for Catalyst" says what the project lacks; mined as a constraint, its prohibition was said weakened in S1 and lost
    in S2, two false warnings. "don't have it auto-merge" still forbids, and "we don't have to" waives."""
    assert statement_kind(said) is not InvariantKind.USER_CONSTRAINT


@pytest.mark.parametrize("said", ["don't touch the staging database", "I don't want a second migration here",
                                  "I don't think we should ship the beta flag", "you cannot push to main",
                                  "we can't change the public API", "I really can't accept a second migration",
                                  "don't have it auto-merge the pull request"])
def test_a_prohibition_is_still_a_constraint(said):
    assert statement_kind(said) is InvariantKind.USER_CONSTRAINT


@pytest.mark.parametrize("said", [
    "we don't really need to mention ralph - we've archived the project",  # a session outside ../shared (duet)
    "you don't have to rerun the migrations",
    "no need to restart the server",
])  # fmt: skip
def test_a_waiver_is_no_rule_the_next_agent_must_keep(said):
    # "Don't need to" lifts an obligation: neither its "don't" (a prohibition) nor its "need to" (an obligation)
    # makes it a constraint or a requirement, nor a binding one. Mined as a constraint, the first was an error
    # finding ("its prohibition is gone") in a summary a blind reader called faithful.
    from inspector.statement_force import binding

    assert statement_kind(said) not in (InvariantKind.USER_CONSTRAINT, InvariantKind.USER_REQUIREMENT)
    assert not binding(said)


def test_a_rule_beside_a_waiver_is_still_a_rule():
    from inspector.statement_force import binding

    said = "never push to main, you don't need to run the tests"
    assert statement_kind(said) is InvariantKind.USER_CONSTRAINT
    assert binding(said)


def test_a_waiver_is_no_prohibition_to_lose_lift_or_break():
    """Every reader of an item's prohibition asks `forbidding`, so the "don't" of a waiver beside another rule
    ("keep it local", a rule to leave something as it is) is no "never" a summary can drop: a summary keeping the
    rule without a "not" has kept it. A real "don't" beside a waiver is still found, at its own offset."""
    from inspector.invariants import IndexedText, InvariantStatus
    from inspector.item_matching import match_user_item
    from inspector.model import Invariant
    from inspector.statement_force import forbidding

    said = "keep it local, you don't have to push it"
    assert statement_kind(said) is InvariantKind.USER_CONSTRAINT
    assert forbidding(said) is None
    item = Invariant("user-constraint:u1#0", InvariantKind.USER_CONSTRAINT, said, "u1")
    kept = match_user_item(item, IndexedText("The design doc is kept local on purpose; pushing it is optional."))
    assert kept.status is not InvariantStatus.WEAKENED, kept.reason
    ruled = "you don't have to rerun it, but don't touch staging"
    found = forbidding(ruled)
    assert found is not None and ruled[found.start():].startswith("don't touch")
