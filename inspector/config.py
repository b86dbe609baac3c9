"""Every threshold detection uses, each with why it has its value: one place to read, tune and test them.

A threshold that lives inline in a detector can be moved without any test noticing and justified by the one
session it was fitted to. Here each value carries its reason, the analyses read it from the `Config` they are
given, and `tests/test_config.py` shows that each one changes what is found when moved.

Below `Config` are the limits of the agents the guard runs in: facts about another program, measured or read from
its source, not thresholds to tune, so they are named constants that say where each was found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    """Thresholds and lexicons; the defaults are the ones the domain notes and the reasons below argue for."""

    # --- anchors and the chain ---------------------------------------------------------------------
    min_anchor_density: float = 0.5
    """Anchors / (anchors + elisions) below which a summary is paraphrasing its pointers away: the floor the
    first domain note's isolation check uses (`min_anchor_density = 0.5`): fewer keys than "etc."s."""
    collapse_ratio: float = 0.5
    """Density at or below this fraction of the first summary's is a collapse: the note's example falls from
    0.9 to 0.3 in three compactions; half is the point where more keys were traded for prose than kept."""
    max_unchecked_depth: int = 2
    """Summaries an invariant may be inherited through before it must be checked against source: the third
    note's "kept in S1, paraphrased in S2, gone in S3": by the third summary unchecked it is often gone."""
    high_local_fidelity: float = 0.85
    """Parent→child fidelity at or above which a step looks fine on its own: most of what the parent held is
    there, so only the comparison with the source shows the drift."""
    source_fidelity_drop: float = 0.2
    """Fall of source→current fidelity from its peak that counts as drift: one item in five of what the chain
    once held, gone while every single step looked fine."""
    drift_overlap: float = 0.5
    """Share of a dropped anchor's description that must still be in the child to call it decayed: half, as
    for an item a summary carries (`kept_coverage`): its key is gone but what it pointed at is still spoken of."""
    search_names_share: float = 0.5
    """Share of the topic terms of what a summary says a search confirmed that one search result must hold for
    it to name that: half, as for an item a summary carries (`kept_coverage`), since a result and a summary
    word one finding differently. What names a key (a path, a name with a digit, a dot, a slash or an
    underscore) is judged by its keys alone, which must be there whole."""

    # --- is an item still in a summary -------------------------------------------------------------
    kept_coverage: float = 0.5
    """Share of an item's topic terms one passage must carry for the item to be there: a paraphrase keeps the
    nouns that say what an item is about and rewords the rest, and half of them is what it keeps."""
    lost_coverage: float = 0.34
    """Below this share in every passage, and with none of its two-word phrases, the item is gone: what is
    left is a word or two any summary of the work would use. Between this and `kept_coverage` is a paraphrase
    we cannot confirm, which is never reported as a loss (precision first)."""
    verbatim_coverage: float = 0.9
    """Share of an item's terms in one passage at which it is kept as said rather than paraphrased: all but
    one term in ten, the one a summary changes by grammar ("we'll" → "will")."""
    fuzzy_term_score: int = 88
    """rapidfuzz ratio at or above which a summary's word stands for an item's term it is not the stem of: one
    letter changed in a word of eight or more ("summarise"/"summarize", "configured"/"configures"), not two.
    Words shorter than five letters must match exactly: one letter there is another word."""
    verbatim_ratio: int = 92
    """rapidfuzz ratio of an invariant and a summary sentence (both normalised) at which the sentence is the
    invariant as written: punctuation, an article or a plural changed, no word of substance."""
    sentence_focus: float = 0.5
    """Share of a summary sentence's own terms that must be an invariant's for a sentence carrying under
    `lost_coverage` of the invariant to still be about it: a short sentence given wholly to the topic."""

    actions_kept_share: float = 0.5
    """Share of the completed actions before a compaction that a summary must name more than, to have kept them as
    a series: one that names most commits and omits a few (a debug-logging commit among five) still tells the next
    agent what was done; one that names half or fewer does not, and each it omits is then reported."""
    actions_lost_warned: int = 2
    """Fewest commits a summary must leave out for a warning; fewer is a note. One commit left out is most
    often a step of work the summary tells as done, and git's log names it: against blind labels of fresh sessions
    from three repositories, 3 of 3 summaries that left out one commit lost nothing, while 2 of the 3 that left
    out two or more (six commits and a pull request, two of three commits) are losses."""
    refusals_for_error: int = 2
    """Times the user must have refused a call (before the summary or after it, in the same log) for a summary's
    step that makes it again to be an error; once is a warning. A single refusal may mean "not yet" or "not like
    that", and the user may let the call run later; twice is their answer, and a next agent told to make the call
    makes it a third time."""

    # --- what the user said ------------------------------------------------------------------------
    question_sentences: int = 4
    """Sentences before an agent's closing question read with it at most: an option list is the few lines
    above the question ("1. always 100%", "2. omit the field", "What's your preference?"), not the turn."""
    question_terms: int = 6
    """Topic terms at which the question and the lines before it say enough to give a short reply ("ok, do
    nothing") its topic: about two options' worth of nouns."""

    # --- what a summary claims -------------------------------------------------------------------
    brief_limit: int = 5
    """User messages in a span at which a summary calling it "one question" or "very short" is wrong: one or
    two is a short exchange, and a reply and a follow-up may be miscounted, but five typed messages are a
    conversation however it is summarised."""
    collapse_min_items: int = 5
    """User statements owed at a summary before it is judged for collapse by the share it carries: with fewer,
    one loss moves the share by a fifth or more, and the per-item findings already say what was lost."""
    collapse_kept: float = 0.3
    """Share of the owed user statements below which a summary has collapsed: a summary that drifts loses one
    or two of five (it still carries 0.6 to 0.8); one that carries under three in ten has lost most of what
    was asked at once, which is no longer drift but a summary of a different, shorter session."""
    restated_share: float = 0.6
    """Share of a claim's topic terms one sentence of a later summary or a later agent turn must hold to
    restate the claim: most of it, since a restatement is built on the claim rather than near it."""
    restated_min_terms: int = 3
    """Topic terms a claim needs before a restatement of it is looked for: with two, any sentence on the same
    subject would restate it."""
    repeat_window: int = 20
    """Agent turns after a compaction read for a restated claim: the next agent's first moves, when it acts on
    what the summary told it, not the rest of the session."""

    # --- what happened next: consequences of a loss (`inspector.consequences`) ---------------------
    reasked_similarity: int = 85
    """rapidfuzz token-set ratio of a later question-tool call to the question the user had answered at which it
    asks the same thing: the question's words nearly all there, as a harness re-asking it writes them."""
    retried_similarity: int = 85
    """rapidfuzz ratio of a later failure's line to the first one's at which it is the same failure: paths,
    counts or a timestamp in the line may differ, the error may not."""
    redone_similarity: int = 90
    """rapidfuzz ratio of a later commit's subject to a lost commit's at which it is the same change committed
    again: a word of the subject may differ ("fix"/"fixes"), its topic may not."""

    # --- who wrote a span, and what names a subject ----------------------------------------------
    paste_chars: int = 400
    """After a line of the user's ending in a colon ("got this feedback:"), this much more text is a paste (a
    review, a log), not the user's words: a few typed sentences run to two or three hundred characters."""
    log_run_lines: int = 3
    """Lines in a row, each opening with a bracketed tag or a level (`[Proxy] GET /api`, ` WARN  [Reanimated] …`),
    that are a pasted log: a person may open a line or two so ("[WIP] …"), a program prints such lines in runs (a
    real paste: 293 in a row)."""
    transcript_stamps: int = 3
    """Times one short line must stand alone in a user's message for it to be a chat's stamp (a date before each
    reply, "ChatGPT said:"), and the message around it a pasted conversation: a person types no line three times
    over, a copied chat prints one per message (a real paste: 24 "Feb 17" lines)."""
    document_chars: int = 1_200
    """A markdown document (a heading, then this much more) is a pasted spec, skill or review: people type
    paragraphs and lists into a prompt, not headed documents this long."""
    min_terms: int = 2
    """Topic terms an item needs to be looked for in a summary, and a passage must share: one ("A.", "yes",
    "tests") is in every summary of the work, so it can show neither presence nor absence."""
    subject_min_length: int = 3
    """A program, test or file stem shorter than this ('go', 'a', 'io') names nothing of its own: it is a
    runner, an article or a fragment, and a claim about it would be judged by every failure."""
    echo_slack: int = 20
    """How far into an output line a command may start for the line to be the harness echoing it ("Bash
    failed: " is 13 characters): a line holding more than the command (`make: *** …`) is the program's."""
    topic_candidates: int = 5
    """Summary sentences sharing the most terms with an invariant that are judged for it: the best few, since
    the one that carries it shares the most, and judging every sentence of a long summary costs its length."""

    quoted_back_chars: int = 30
    """The shortest sentence of a user's message that, found word for word in the agent's latest words, is the
    agent's words quoted back to answer them (duet_cd680c64: "Close the frontend-design open thread.", 38 characters,
    copied above "yes, retire old frontend-design"), not the user's: shorter ones ("Fix the tests.", "yes, go with A")
    are said again by chance."""
    copy_places: int = 8
    """How many places of a sentence's longest word are each read for a copy of it before the agent's latest words
    are read whole without markup, once for the message: a bound on time only, the answer is the same."""
    quoted_back_window: int = 20_000
    """How much of the agent's latest words a user's sentence is looked for in as a copy (`quoted_back_chars`): a few
    long turns, what is still on the user's screen. duet_cd680c64's user copied an item of a "what's next" list two
    turns and one message of their own later."""
    statement_chars: int = 400
    """The longest sentence or clause read as one statement: a rule or a request fits in two lines; past that
    it is a paragraph of narrative or a pasted block, whose force words belong to no single item."""
    verbatim_min_words: int = 3
    """Words a user's item needs before its words in order are looked for as kept verbatim: two words in order
    ("never push") occur in summaries that say something else."""
    quoted_run_words: int = 4
    """Words of a user's statement, in order and one of them a topic word, that a summary holds as they were typed
    for the statement to be quoted in part, not lost: "Approach A enhanced with" of "Approach A enhanced with
    Approach B", whose option letters are no terms. Three in order ("run the tests") recur in any summary of the
    work."""
    fuzzy_min_length: int = 5
    """Letters a term needs before a summary word a letter away may stand for it (`fuzzy_term_score`): in a
    shorter word one letter is another word ("test"/"text", "push"/"posh")."""
    root_letters: int = 5
    """Letters a word is cut to when an edit is matched to the request it carries out ("generation" and
    "generated" meet at "gener"): shorter roots join unrelated words, longer ones split inflections."""
    echo_head_chars: int = 30
    """How much of a command's start is looked for to recognise the harness echoing it on an output line:
    enough to be that command, short enough to survive the echo being cut off."""
    script_echo_chars: int = 600
    """How much of a package script run's output is read for the command the package manager echoes as it runs the
    script (`shell_runs.ShellRun.script_tools`): the echo comes first, after npm's one-line header; a longer reach
    would take a shell prompt in the script's own output (`$ …`) for it."""
    list_entry_words: int = 5
    """The longest entry of "a, b, etc." that is still a list entry beside its elision, not a clause."""
    language_min_words: int = 3
    """Common words a Latin-script text must hold, more than any other language's, before its language is told:
    a one-line rule has three or four ("no … la … de"); two are in a phrase of any of them."""
    script_share: float = 0.2
    """Share of a text's letters in a script past which the text is in that script's language: a summary that
    quotes a Korean sentence in an English account is English; one written in Korean is mostly Hangul."""
    option_chars: int = 200
    """The most of an offered option's title a reply's item keeps: a title is a few words ("Delete unused
    `GetSummariseOptions()`"); past this it is a description, whose terms would outweigh the title's."""
    criterion_chars: int = 400
    """The most of an acceptance criterion an item keeps: its title and first checklist lines, the part a
    summary that kept it would paraphrase."""
    entry_id_digits: int = 6
    """Digits of an identifier a list entry carries that a tool call acting on it names (`inspector.list_selection`):
    review comments, issues and tickets of any busy tracker are numbered past 100,000 (GitHub's review comments run
    to ten digits), while a row's line numbers, counts and sizes stay under it; a shorter number recurs in later
    calls by chance and would retire an entry nothing addressed."""
    plan_step_reach: int = 30
    """How far before a backticked name a verb of making may stand for a plan's step to create that name ("Add
    `migrateFilePointers()` helper", "**New file**: `tests/x.test.ts`", "Create a `retry()` wrapper"): an adjective or
    two and markup; further along the line the verb is about something else ("add a test that calls `parse()`")."""
    choice_chars: int = 200
    """The longest typed reply read as a choice of a list's entries by number ("skip 5, 7, 8 and do the rest"): a
    choice is a line; a longer message that holds numbers is new instructions, whose numbers are about other things."""

    # --- the OpenTelemetry export (not detection: what a receiver is given) ------------------------
    otlp_timeout_seconds: float = 10.0
    """How long `export-otel` waits on the OTLP receiver before saying it did not answer: the SDK's own default,
    which a receiver on the same network answers well within, even for a fleet's spans."""
    span_gap_ns: int = 1_000_000
    """Time between two exported spans where the log dates neither: a millisecond keeps their order in every
    backend (Phoenix and others keep microseconds) without moving a compaction on a timeline."""

    anchor_patterns: Mapping[str, str] | None = None
    elision_lexicon: Sequence[str] | None = None


DEFAULT_CONFIG = Config()
"""The defaults, shared: analyses called without a configuration read these."""


# --- how long a sentence can be -------------------------------------------------------------------------
MAX_SENTENCE_CHARS = 2_000
"""A sentence longer than this is split at the last space within it. Every check that weighs a sentence against
another (a dropped key's description, an item's match, a claim's subject) reads it whole, some once per key it
holds, so a summary of 20 KB on one line with no full stop took 29 s for 1.2 MB of such text: its cost was its
length squared. The longest sentence of the 32 real summaries in ../shared is 752 characters (ohmyposh_d3cfdfe7
S1), so this is well past any sentence written as one, and what it splits is a run-on list."""


# --- the agents the guard runs in: how much hook context each one shows its model whole ---------------
CLAUDE_CODE_CONTEXT_CHARS = 10_000
"""Claude Code shows a hook's `additionalContext` whole up to this many characters (JavaScript's string length:
UTF-16 code units); a longer one is saved to a file and the model reads a 2 KB preview and the file's path. The
hooks reference says so (code.claude.com/docs/en/hooks, "JSON output": hook output strings, additionalContext
among them, "are capped at 10,000 characters"), and the reports agree on the number and the preview:
anthropics/claude-code#51537 (`persistHookOutput`, 1e4 since v2.1.89), #91614 (a 17.7 KB SessionStart output cut
to a 2 KB preview), #94358."""
CODEX_CONTEXT_TOKENS = 2_500
"""Codex shows a hook handler's `additionalContext` whole while `approx_token_count(text) <= 2_500`; past that it
keeps a head and tail preview and saves the whole text under `$CODEX_HOME/hook_outputs/` (openai/codex#21069,
codex-rs/hooks/src/output_spill.rs). A handler's own `additionalContextLimit` can change it; `guard install`
writes none, so the default holds. How Codex counts a token: `CODEX_BYTES_PER_TOKEN`."""
CODEX_BYTES_PER_TOKEN = 4
"""Codex's token estimate: UTF-8 bytes / 4, rounded up (codex-rs/utils/string/src/truncate.rs,
`APPROX_BYTES_PER_TOKEN`); later versions count at least one token per word and per punctuation mark too
(`TokenCountEstimate`: the larger of the two), which `inspector.guard` counts as well, so the guard stays under
either version's limit."""


__all__ = ["CLAUDE_CODE_CONTEXT_CHARS", "CODEX_BYTES_PER_TOKEN", "CODEX_CONTEXT_TOKENS", "DEFAULT_CONFIG",
           "MAX_SENTENCE_CHARS", "Config"]
