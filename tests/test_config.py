"""Each threshold of `Config` changes what is found when moved, and each says why it has its value.

A threshold no test moves can be hard-coded back into its detector unnoticed; each test here gives a tiny
input one result under the defaults and another under a moved value, through the function that reads it.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from inspector.analysis import analyze
from inspector.config import DEFAULT_CONFIG, Config
from inspector.invariants import IndexedText, InvariantStatus, fuzzy_terms, match_invariant
from inspector.item_matching import match_action, match_user_item
from inspector.model import Author, Generation, Invariant, InvariantKind, SourceRecord, Trace
from inspector.presence import presence
from inspector.statements import last_question, user_items
from tests.helpers import session_log

CONFIG_SOURCE = Path(__file__).resolve().parents[1] / "inspector" / "config.py"
UNEXPLAINED = {"anchor_patterns", "elision_lexicon"}
"""Not thresholds: a caller's own key patterns and elision words (None: the built-in ones), no value to argue."""

EXPORTS = Invariant("user-decision:u1#0", InvariantKind.USER_DECISION, "store the session exports in the shared bucket")
"""Five topic terms: store, session, export, share, bucket."""
RETRY_COMMIT = Invariant(
    "action:c1", InvariantKind.COMPLETED_ACTION, "commit 871e5dd0 add retry logic to the upload client"
)
EXPORT_JOB = "The export job writes parquet files into the shared archive bucket"
"""Eight topic terms and no force: a sentence carrying some of them is kept or weakened by coverage alone."""
TASKS = (
    "Deploy the frontend. Rotate the credentials. Migrate the billing tables. "
    "Archive the logs. Benchmark the parser."
)
"""Five sentences of two or three topic terms each, read back from a closing "Which?" that names none."""
SNAPSHOTS = "Never delete the staging database snapshots before the quarterly audit finishes"


def moved(**values: float) -> Config:
    return replace(DEFAULT_CONFIG, **values)


def test_kept_coverage_is_the_share_a_completed_action_s_subject_needs() -> None:
    half = IndexedText("Added retry logic somewhere.")  # 3 of the subject's 6 terms
    assert match_action(RETRY_COMMIT, half).status is InvariantStatus.PARAPHRASED
    assert match_action(RETRY_COMMIT, half, moved(kept_coverage=0.9)).status is InvariantStatus.LOST


def test_kept_coverage_is_the_share_under_which_an_invariant_s_sentence_weakens_it() -> None:
    three_of_eight = IndexedText("Export job writes.")
    assert match_invariant(EXPORT_JOB, three_of_eight).status is InvariantStatus.WEAKENED
    kept = match_invariant(EXPORT_JOB, three_of_eight, config=moved(kept_coverage=0.3))
    assert kept.status is InvariantStatus.PARAPHRASED


def test_lost_coverage_is_the_share_under_which_a_user_item_is_gone() -> None:
    two_of_five = IndexedText("The exports live in a bucket.")
    assert match_user_item(EXPORTS, two_of_five).status is InvariantStatus.PARAPHRASED
    assert match_user_item(EXPORTS, two_of_five, moved(lost_coverage=0.5)).status is InvariantStatus.LOST


def test_lost_coverage_is_the_share_under_which_a_sentence_mostly_off_the_topic_is_not_the_invariant() -> None:
    # 3 of the invariant's 8 terms, and 3 of the sentence's own 9: neither covered nor focused
    three_of_eight = IndexedText("Export job writes run nightly after the deploy rotates cached credentials.")
    assert match_invariant(EXPORT_JOB, three_of_eight).status is InvariantStatus.WEAKENED
    assert match_invariant(EXPORT_JOB, three_of_eight, config=moved(lost_coverage=0.4)).status is InvariantStatus.LOST


def test_verbatim_coverage_is_the_share_at_which_a_user_item_is_kept_as_said() -> None:
    four_of_five = IndexedText("Session exports go to the bucket we share.")
    assert match_user_item(EXPORTS, four_of_five).status is InvariantStatus.PARAPHRASED
    assert match_user_item(EXPORTS, four_of_five, moved(verbatim_coverage=0.8)).status is InvariantStatus.VERBATIM


def test_fuzzy_term_score_is_how_close_a_spelling_must_be_to_stand_for_a_term() -> None:
    american = IndexedText("The parser behavior stays stable.")  # "behavior" for "behaviour": ratio 94
    assert presence("keep the parser behaviour stable", american).coverage == 1.0
    assert presence("keep the parser behaviour stable", american, config=moved(fuzzy_term_score=95)).coverage < 1.0


def test_verbatim_ratio_is_how_close_a_sentence_must_be_to_be_the_invariant_as_written() -> None:
    plurals = IndexedText("Never push to the main branches without reviews.")  # ratio 97
    assert match_invariant("Never push to the main branch without review", plurals).status is InvariantStatus.VERBATIM
    strict = match_invariant("Never push to the main branch without review", plurals, config=moved(verbatim_ratio=98))
    assert strict.status is InvariantStatus.PARAPHRASED


def test_sentence_focus_lets_a_short_sentence_on_the_topic_carry_an_invariant() -> None:
    two_of_three = IndexedText("Keep staging snapshots forever.")  # 2 of the invariant's 7 terms, 2 of its own 3
    assert match_invariant(SNAPSHOTS, two_of_three).status is InvariantStatus.WEAKENED
    assert match_invariant(SNAPSHOTS, two_of_three, config=moved(sentence_focus=0.75)).status is InvariantStatus.LOST


def test_question_sentences_is_how_many_sentences_before_a_question_are_read_with_it() -> None:
    three_back = "Migrate the billing tables. Archive the logs. Benchmark the parser. Which?"
    assert last_question(f"{TASKS} Which?") == three_back
    assert last_question(f"{TASKS} Which?", config=moved(question_sentences=1)) == "Benchmark the parser. Which?"


def test_question_terms_is_how_many_terms_a_question_and_its_lines_must_name() -> None:
    assert last_question(f"{TASKS} Which?", config=moved(question_terms=2)) == "Benchmark the parser. Which?"
    wordy = last_question(f"{TASKS} Which?", config=moved(question_terms=20))
    assert wordy == "Rotate the credentials. Migrate the billing tables. Archive the logs. Benchmark the parser. Which?"


REQUIREMENT = "You must store the session exports in the shared bucket."


def turn(key: str, kind: str, text: str) -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind=kind, authority=kind)


def session(summary: str) -> Trace:
    """A session log: a requirement, an agent's closing question, a short reply; then one summary of it."""
    records = (
        turn("u1", "user", REQUIREMENT),
        turn("a1", "assistant", f"{TASKS} Which?"),
        turn("u2", "user", "ok, do nothing"),
    )
    keys = tuple(r.key for r in records)
    raw = Generation(0, "raw", "\n".join(r.text for r in records), covers=keys)
    summarised = Generation(1, "summary", summary, parent=0, covers=keys)
    return Trace("fixture", "claude-code", records, (raw, summarised), extra={"meta": {"session_log": True}})


def test_analyze_judges_a_session_s_items_by_the_config_it_is_given() -> None:
    def lost(config: Config) -> list[str]:
        tracks = analyze(session("The exports live in a bucket."), config).facts.invariants
        return [t.invariant.text for t in tracks if t.matches[1].status is InvariantStatus.LOST]

    assert lost(DEFAULT_CONFIG) == ["ok, do nothing"]
    assert lost(moved(lost_coverage=0.5)) == [REQUIREMENT, "ok, do nothing"]


def test_analyze_mines_a_session_s_items_by_the_config_it_is_given() -> None:
    def asked(config: Config) -> list[str | None]:
        tracks = analyze(session("Nothing was decided."), config).facts.invariants
        return [t.invariant.context for t in tracks if t.invariant.text == "ok, do nothing"]

    assert asked(moved(question_terms=2)) == ["Benchmark the parser. Which?"]
    assert asked(DEFAULT_CONFIG) == ["Migrate the billing tables. Archive the logs. Benchmark the parser. Which?"]


def _is_docstring(statement: ast.stmt | None) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and (
        isinstance(statement.value.value, str)
    )


def test_every_threshold_says_why_it_has_its_value() -> None:
    [config_class] = [
        node for node in ast.parse(CONFIG_SOURCE.read_text()).body
        if isinstance(node, ast.ClassDef) and node.name == "Config"
    ]  # fmt: skip
    body = config_class.body
    fields = [
        (statement.target.id, after)
        for statement, after in zip(body, [*body[1:], None], strict=True)
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    ]
    assert [name for name, _ in fields] == list(Config.__dataclass_fields__)
    assert [name for name, after in fields if name not in UNEXPLAINED and not _is_docstring(after)] == []


# --- what a summary claims ----------------------------------------------------------------------------


def _record(key: str, text: str, kind: str, authority: str, **extra: object) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind=kind, authority=authority, extra=extra)




def _rule_hits(trace: Trace, rule: str, config: Config = DEFAULT_CONFIG) -> list[tuple[int | None, str]]:
    return [(f.generation, f.severity.value) for f in analyze(trace, config).findings if f.rule == rule]


ASKS = ["Never push to main without review.", "we should not store the summary in the shadow branch",
        "Don't touch the staging database.",
        "I prefer small focused commits.", "never change the checkpoint metadata format"]  # fmt: skip


def test_collapse_kept_is_the_share_of_owed_statements_under_which_a_summary_collapsed() -> None:
    records = [_record(f"u{n}", ask, "user", "user") for n, ask in enumerate(ASKS)]
    one_of_five = session_log(records, (5, " ".join(ASKS)), (5, "Never push to main without review."))
    assert _rule_hits(one_of_five, "summary-collapse") == [(2, "error")]
    assert _rule_hits(one_of_five, "summary-collapse", moved(collapse_kept=0.1)) == []


def test_collapse_min_items_is_how_many_owed_statements_a_collapse_needs() -> None:
    records = [_record(f"u{n}", ask, "user", "user") for n, ask in enumerate(ASKS[:4])]
    none_of_four = session_log(records, (4, " ".join(ASKS[:4])), (4, "Worked on the explain command."))
    assert _rule_hits(none_of_four, "summary-collapse") == []
    assert _rule_hits(none_of_four, "summary-collapse", moved(collapse_min_items=4)) == [(2, "error")]


def test_brief_limit_is_how_many_user_messages_make_one_question_wrong() -> None:
    records = [_record(f"u{n}", f"what does step {n} of the release print?", "user", "user") for n in range(3)]
    brief = session_log(records, (0, "Nothing yet."), (3, "The conversation was very short - just one question."))
    assert _rule_hits(brief, "summary-collapse") == []
    assert _rule_hits(brief, "summary-collapse", moved(brief_limit=3)) == [(2, "error")]


SEARCH_CLAIM = "A web search confirmed the correct repository is microsoft/onnxruntime-genai."
REPEATING = [_record("u1", "which repo?", "user", "user"),
             _record("c1", "query: onnxruntime-genai repository microsoft", "tool_call", "assistant", tool="WebSearch"),
             _record("a2", "From the summary, a web search confirmed the repository is microsoft/onnxruntime-genai.",
                     "assistant", "assistant")]  # fmt: skip


def test_repeat_window_restated_share_and_min_terms_decide_whether_the_next_agent_repeated_a_claim() -> None:
    trace = session_log(REPEATING, (2, SEARCH_CLAIM))
    assert _rule_hits(trace, "claim-unsupported") == [(1, "error")]  # the next agent repeats it
    for config in (moved(repeat_window=0), moved(restated_share=1.0), moved(restated_min_terms=20)):
        assert _rule_hits(trace, "claim-unsupported", config) == [(1, "warning")], config


def test_restated_share_decides_whether_a_later_summary_carries_a_claim_on() -> None:
    trace = session_log(REPEATING[:2], (2, SEARCH_CLAIM), (2, f"Known: {SEARCH_CLAIM}"))
    assert _rule_hits(trace, "claim-unsupported") == [(1, "error"), (2, "warning")]
    assert _rule_hits(trace, "claim-unsupported", moved(restated_min_terms=20)) == [(1, "warning"), (2, "warning")]


# --- who wrote a span, and what names a subject ---------------------------------------------------------

FEEDBACK = "got this feedback from the reviewer:\n" + "\n".join(
    f"- finding {n}: the retry loop in upload_client.py swallows the timeout error" for n in range(6))
"""A colon line, then about 450 characters of someone else's review."""


def test_paste_chars_is_how_much_after_a_colon_line_is_a_paste(monkeypatch) -> None:
    import inspector.authorship as authorship

    def typed(text: str) -> str:
        spans = authorship.spans_for(text, Author.USER)
        return " ".join(text[s.start : s.end] for s in spans if s.author is Author.USER)

    assert "finding 3" not in typed(FEEDBACK)
    monkeypatch.setattr(authorship, "DEFAULT_CONFIG", moved(paste_chars=2_000))
    assert "finding 3" in typed(FEEDBACK)


def test_document_chars_is_how_long_a_headed_text_must_run_to_be_a_document(monkeypatch) -> None:
    import inspector.authorship as authorship

    spec = "# Upload client\n\n" + "The client must retry each upload three times before it gives up. " * 12

    def pasted(text: str) -> bool:  # is the body, past the heading, someone else's document?
        at = text.index("The client")
        spans = authorship.spans_for(text, Author.USER)
        return any(s.author is Author.USER_PASTE and s.start <= at < s.end for s in spans)

    monkeypatch.setattr(authorship, "DEFAULT_CONFIG", moved(document_chars=300))
    assert pasted(spec)
    monkeypatch.setattr(authorship, "DEFAULT_CONFIG", moved(document_chars=5_000))
    assert not pasted(spec)


def test_min_terms_is_how_many_topic_terms_an_item_needs() -> None:
    record = SourceRecord("u1", "never touch staging", namespace="transcript", kind="user", authority="user")
    assert [i.text for i in user_items(record)] == ["never touch staging"]
    assert list(user_items(record, config=moved(min_terms=3))) == []


def test_subject_min_length_is_the_shortest_stem_that_names_a_program(monkeypatch) -> None:
    import inspector.shell_runs as shell_runs

    assert shell_runs.is_subject("cli") and not shell_runs.is_subject("io")
    monkeypatch.setattr(shell_runs, "DEFAULT_CONFIG", moved(subject_min_length=4))
    assert not shell_runs.is_subject("cli")


def test_echo_slack_is_how_far_in_a_line_the_harness_echoes_the_command(monkeypatch) -> None:
    import inspector.shell_runs as shell_runs

    run = shell_runs.shell_runs([SourceRecord("r1", "Bash failed: make build\nmake: *** [build] Error 2",
                                              namespace="transcript", kind="tool_error", authority="tool",
                                              extra={"command": "make build"})])[0]  # fmt: skip
    assert shell_runs.failure_line(run) == "make: *** [build] Error 2"
    monkeypatch.setattr(shell_runs, "DEFAULT_CONFIG", moved(echo_slack=5))
    assert shell_runs.failure_line(run) == "Bash failed: make build"


def test_topic_candidates_is_how_many_best_sharing_sentences_are_judged() -> None:
    weak_first = IndexedText("Never skip snapshots; staging database snapshots before the audit. "
                             "Staging database snapshots before the quarterly audit finishes are kept.")  # fmt: skip
    assert match_invariant(SNAPSHOTS, weak_first).status is not InvariantStatus.LOST
    assert match_invariant(SNAPSHOTS, weak_first, config=moved(topic_candidates=0)).status is InvariantStatus.LOST


def test_option_and_criterion_chars_are_how_much_of_an_agent_written_line_an_item_keeps(monkeypatch) -> None:
    import inspector.statements as statements
    import inspector.task_spec as task_spec

    turn = "A. Delete the unused helper and its tests\nB. Move it to a shared package\nWhich one?"
    assert statements.offered_options(turn)["A"] == "Delete the unused helper and its tests"
    monkeypatch.setattr(statements, "DEFAULT_CONFIG", moved(option_chars=10))
    assert len(statements.offered_options(turn)["A"]) <= 10
    issue = "## Acceptance criteria\n- [ ] retry each upload three times before giving up\n"
    assert task_spec.criteria(issue)[0].text == "retry each upload three times before giving up"
    monkeypatch.setattr(task_spec, "DEFAULT_CONFIG", moved(criterion_chars=10))
    assert len(task_spec.criteria(issue)[0].text) <= 10


BOUNDS = {"QUESTION_TAIL_CHARS", "TYPED_CHARS", "BATCH_CHARS", "_LOOK_BACK", "_SHORT_TEXT", "_NAMED", "_JSON_PIECE",
          "_READINGS", "_MAX_CLASS"}
"""Module numbers that bound work or what a message shows, never what is found: how far back a question is
looked for, how much of a turn is read, a search's batch, the fast path for a short text, how many code points
a message names, how much of a JSON text is scanned at once, how often a shell line is parsed again before the
shell lexer takes it, how many characters a regex's look-ahead lists. Each says so where it is defined."""


def test_no_detection_module_holds_a_number_of_its_own() -> None:
    core = CONFIG_SOURCE.parent
    modules = [*core.glob("*.py"), *(core / "detectors").glob("*.py")]
    numbers = []
    for path in modules:
        if path.name in ("config.py", "bounded_io.py", "bounded_sqlite.py", "guard.py", "guard_options.py",
                         "guard_install.py", "views.py", "render.py", "library.py", "sized_cache.py", "cli_scan.py",
                         "kept_readings.py"):  # resources and display
            continue
        for node in ast.parse(path.read_text()).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if isinstance(value, ast.Constant) and type(value.value) in (int, float):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target  # type: ignore[union-attr]
                name = getattr(target, "id", "")
                if name not in BOUNDS:
                    numbers.append(f"{path.name}: {name} = {value.value}")
    assert numbers == []


def _user(text: str) -> SourceRecord:
    return SourceRecord("u1", text, namespace="transcript", kind="user", authority="user")


def test_statement_chars_is_the_longest_clause_read_as_one_statement() -> None:
    rule = "Never deploy the billing service on a Friday afternoon, " + "because the on-call rota is thin, " * 4
    assert [i.text for i in user_items(_user(rule))] == [rule.strip(" ,")]
    assert list(user_items(_user(rule), config=moved(statement_chars=60))) == []


def test_verbatim_min_words_is_how_long_an_item_must_be_to_be_kept_word_for_word() -> None:
    item = Invariant("u", InvariantKind.USER_CONSTRAINT, "never force-push main", "u1")
    kept = IndexedText("Rules: never force-push main; rebase feature branches only.")
    assert match_user_item(item, kept).status is InvariantStatus.VERBATIM
    # past the word count its words in order are not looked for, and its terms alone cannot make it verbatim
    unordered = moved(verbatim_min_words=9, verbatim_coverage=1.1)
    assert match_user_item(item, kept, unordered).status is InvariantStatus.PARAPHRASED


def test_fuzzy_min_length_is_how_long_a_term_must_be_to_match_a_near_spelling() -> None:
    typo = IndexedText("Rotated the authentcation tokens.")
    assert fuzzy_terms({"authent", "token"}, typo) == {"authent": "authentc", "token": "token"}
    assert fuzzy_terms({"authent", "token"}, typo, config=moved(fuzzy_min_length=12)) == {"token": "token"}


def test_root_letters_is_where_an_edit_meets_the_request_it_carries_out(monkeypatch) -> None:
    import inspector.actions as actions

    assert actions._roots({"generation", "claude-only"}) == {"gener", "claud"}
    monkeypatch.setattr(actions, "DEFAULT_CONFIG", moved(root_letters=7))
    assert actions._roots({"generation", "claude-only"}) == {"generat"}


def test_echo_head_chars_is_how_much_of_a_command_recognises_its_echo(monkeypatch) -> None:
    import inspector.shell_runs as shell_runs

    command = "python3 scripts/build_release_notes.py --since v1.4"
    echoed = f"Bash failed: {command}"
    assert shell_runs._echoes(echoed, command)
    monkeypatch.setattr(shell_runs, "DEFAULT_CONFIG", moved(echo_head_chars=200))
    assert not shell_runs._echoes("Bash failed: python3 scripts/build_release_notes.py …", command)


def test_list_entry_words_is_the_longest_entry_beside_an_elision(monkeypatch) -> None:
    import inspector.elision as elision

    listed = "Touched the parser module, the lexer module, etc."
    assert [e.orphaned for e in elision.find_elisions(listed, [])] == [False]  # "a, b, etc." names its referents
    monkeypatch.setattr(elision, "DEFAULT_CONFIG", moved(list_entry_words=1))
    assert [e.orphaned for e in elision.find_elisions(listed, [])] == [True]
