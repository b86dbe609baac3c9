from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.anchors import DEFAULT_PATTERNS, AnchorIndex, AnchorStatus, extract_anchors, resolve_in_isolation
from inspector.model import SourceRecord
from tests.helpers import chain, generations_of, record, session_log

PIECES = [
    "src/a.py", "/etc/hosts", "~/n.md", "./run.sh", "../x/y", "a.py.", "and/or", "1/2", "v1.2.3", "config.yaml",
    "https://h.io/a?b=1", "git://x", "a1b2c3d", "deadbeef", "1234567", "abcdefa", "PAY-42", "pay-42", "OPS-4711x",
    "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1", "[[ledger:3.2]]", "[[src/a.py]]", "(", ")", ".", ",", "-", "/",
    ":", "@", "é", "word", "The", "end.", "x.", "..", "a//b", "@scope/pkg", "+", "_",
]  # fmt: skip
SPACES = [" ", "\n", "\t", "\u00a0", "\u2003", "\x1c", ""]
texts = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SPACES)), max_size=16).map(
    lambda parts: "".join(piece + space for piece, space in parts)
)


def keys(text: str) -> list[tuple[str, str]]:
    return [(a.key, a.pattern) for a in extract_anchors(text)]


def test_bracket_keys_are_taken_whole_even_when_they_contain_paths():
    assert keys("see [[ledger:3.2]] and [[svc/config.yaml]]") == [
        ("ledger:3.2", "bracket"),
        ("svc/config.yaml", "bracket"),
    ]


def test_configurable_families_uri_path_commit_ticket():
    text = "Fixed in a1b2c3d for PAY-42, see https://ci.example/run/7 and src/app/main.py or /etc/hosts."
    assert keys(text) == [
        ("a1b2c3d", "commit"),
        ("PAY-42", "ticket"),
        ("https://ci.example/run/7", "uri"),
        ("src/app/main.py", "path"),
        ("/etc/hosts", "path"),
    ]


def test_prose_that_looks_like_a_path_is_not_an_anchor():
    assert keys("and/or read/write, 3/4 of e.g. v1.2 runs, the 1234567 rows") == []


def test_words_joined_by_slashes_are_prose_without_path_evidence():
    """Real summaries from other repositories: a BDD scenario, a check list, a list of tools."""
    assert keys("Given/When/Then steps; run tests/lint/typecheck in the shell/terminal/editor") == []


def test_file_names_joined_by_slashes_are_a_list_not_a_path():
    """planetfall, ctxeval: 'droneBayView.js/archiveView.js/overhead.js' and 'AGENTS.md/CLAUDE.md' name files one
    after another; no folder is called 'droneBayView.js'. A module path ends in a version, and a folder with a dot
    in its name sits among folders without one: both stay paths."""
    assert keys("edit droneBayView.js/archiveView.js/overhead.js and AGENTS.md/CLAUDE.md, import gopkg.in/yaml.v3 "
                "from vendor/chart.js/dist/chart.umd.js") == [("gopkg.in/yaml.v3", "path"),
                                                              ("vendor/chart.js/dist/chart.umd.js", "path")]


def test_a_route_written_with_a_placeholder_after_it_is_a_pattern_not_a_path():
    """changelogue_21c0d1ca16 (outside ../shared, unlabelled): S1 says it verified "`curl` to `/api/v1/releases/{id}`
    and `/api/v1/semantic-releases/{id}/sources`"; the path pattern stopped at the brace and gave '/api/v1/releases',
    which no record holds as a key, and S1 was warned of two dead pointers. A placeholder right after the key makes it
    a family, as one inside it does; a real path beside one stays."""
    assert keys("Verified via `curl` to `/api/v1/releases/{id}` and `/api/v1/semantic-releases/{id}/sources`, then "
                "read ../worktrees/feature/<issue-number>/x.md and internal/api/server.go") == [
        ("internal/api/server.go", "path")]  # fmt: skip


def test_a_slash_after_a_closing_bracket_is_no_root():
    """planetfall_07d253ca52 (outside ../shared, unlabelled): S2's "Builders: buildPlasmaRing/StarDome/SignalSpire
    (beamTex)/GardenPod/GravSkid" joins builder names with slashes; the part after the bracket was read as the
    absolute path '/GardenPod/GravSkid' and warned of. After a bracket a `/` joins on, so the key needs evidence of
    its own: a Next.js route group's file keeps its extension."""
    assert keys("Builders: buildPlasmaRing/StarDome/SignalSpire(beamTex)/GardenPod/GravSkid (userData.anim per type)"
                " and app/(marketing)/about/page.tsx") == [("/about/page.tsx", "path")]


def test_a_framework_named_with_its_js_suffix_is_no_file():
    """changelogue_6a432120 (fresh29, labelled blind: faithful) and changelogue_3d85fb75 (extra26, labelled blind):
    S1 describes "a React/Next.js frontend", and both were warned that 'React/Next.js' and 'Next.js' resolve to no
    record. Node.js and Next.js were read as files in six more sessions of five repositories (../shared and
    fresh28). A file of that spelling under a folder, or in lower case, is still one."""
    assert keys("A Go backend with a React/Next.js frontend on Node.js; see src/Chart.js and next.js") == [
        ("src/Chart.js", "path"), ("next.js", "path")]  # fmt: skip


def test_the_target_of_an_assignment_in_quoted_code_is_no_file():
    """planetfall_d43002f0 (fresh31, labelled blind: S2 faithful): S2 says "`update(t)` sets marker
    pos/rotation.y=atan2(dir.x,dir.z)", and was warned that 'pos/rotation.y' resolves to no record. ohmyposh_d3cfdfe7
    (../shared) built with `-X github.com/jandedobbeleer/oh-my-posh/src/build.Version=…`, a Go variable set at link
    time, held in its anchor list as a file. A path after `=` is a value, and one before `==` is compared."""
    assert keys("sets marker pos/rotation.y=atan2(dir.x,dir.z); wrote --out=build/report.json; "
                "if src/a.py==b") == [("build/report.json", "path"), ("src/a.py", "path")]  # fmt: skip


def test_a_file_name_is_never_cut_inside_a_hyphenated_word():
    """apollo_d97ae08b (outside ../shared, labelled blind): S1's "Read compile.sh, Dockerfile.latex,
    Dockerfile.r-plumber" gave the anchor 'Dockerfile.r' (`.r` is R's extension), which no record holds, and S1 was
    warned of it. A known extension is a file name's end only where the word ends; with a folder the whole name is
    the path. A name a word is built on ("gx.toml-driven") is no anchor either."""
    assert keys("Read compile.sh, Dockerfile.r-plumber, the gx.toml-driven upgrades and docker/Dockerfile.r-plumber"
                ) == [("compile.sh", "path"), ("docker/Dockerfile.r-plumber", "path")]
    assert keys("edit app.py - the entry point, then utils.ts.") == [("app.py", "path"), ("utils.ts", "path")]


def test_a_path_without_an_extension_needs_a_root_an_underscore_or_a_digit():
    assert keys("see src/parser/lexer, tools/gen_docs/main and build/v2/out") == [
        ("src/parser/lexer", "path"), ("tools/gen_docs/main", "path"), ("build/v2/out", "path")]  # fmt: skip


def test_custom_patterns_replace_the_defaults():
    anchors = extract_anchors("chunk#12 and [[x]]", {"chunk": r"chunk#\d+"})
    assert [(a.key, a.pattern) for a in anchors] == [("chunk#12", "chunk")]


def test_resolution_is_exact_qualified_or_path_suffix():
    index = AnchorIndex(
        [
            record("config.yaml", "a", namespace="billing"),
            record("config.yaml", "b", namespace="auth"),
            record("/home/u/proj/src/app/main.py", "c", namespace="file"),
            record("src/app/main.py", "c", namespace="file"),
            record("/other/lib/main.py", "d", namespace="file"),
        ]
    )
    status = {r.anchor.key: r.status for r in resolve_in_isolation(
        "config.yaml [[auth:config.yaml]] app/main.py main.py [[missing:1]]", index)}  # fmt: skip
    assert status == {
        "config.yaml": AnchorStatus.AMBIGUOUS,
        "auth:config.yaml": AnchorStatus.RESOLVED,
        "app/main.py": AnchorStatus.RESOLVED,  # two spellings of one file are one target
        "main.py": AnchorStatus.AMBIGUOUS,
        "missing:1": AnchorStatus.UNRESOLVED,
    }


def test_a_folder_resolves_when_a_known_path_lies_under_it_and_only_then():
    """`/srv/app` holds `/srv/app/core/x.py`; `/srv/app-old/y.py` and `/srv/apple` sort on either side of it and
    hold nothing under `/srv/app/`, while `/srv/ap` is no folder of any of them."""
    index = AnchorIndex(
        [record(key, "x", namespace="file") for key in ("/srv/app-old/y.py", "/srv/app/core/x.py", "/srv/apple")]
    )
    found = {r.anchor.key: (r.status, r.referents) for r in resolve_in_isolation(
        "see /srv/app and /srv/app-old and /srv/ap and /srv/app/core here", index)}  # fmt: skip
    assert found == {
        "/srv/app": (AnchorStatus.RESOLVED, ("folder:/srv/app",)),
        "/srv/app-old": (AnchorStatus.RESOLVED, ("folder:/srv/app-old",)),
        "/srv/ap": (AnchorStatus.UNRESOLVED, ()),
        "/srv/app/core": (AnchorStatus.RESOLVED, ("folder:/srv/app/core",)),
    }


def test_a_dot_folder_keeps_its_dot_when_a_path_is_matched_by_its_tail():
    """duet, wwbm-webapp (outside ../shared, labelled blind): '~/.claude/projects/…/MEMORY.md' and
    '.claude/settings.json' were unresolved though the log edited '/Users/…/.claude/…' files: every leading dot and
    slash was stripped before the tail was compared, so '.claude/x' was looked for as 'claude/x'. Only what places a
    path (`~/`, `./`, `../`, `.../`, `/`) is dropped; 'claude/settings.json' is another path, and stays unresolved."""
    edited = ("/home/u/.claude/settings.json", "/repo/.github/workflows/ci.yml", "/repo/cmd/cli/strategy/x_test.go")
    index = AnchorIndex([record(key, "edited", namespace="file") for key in edited])
    found = {r.anchor.key: (r.status, r.referents) for r in resolve_in_isolation(
        "~/.claude/settings.json and .claude/settings.json and claude/settings.json, ./.github/workflows/ci.yml, "
        ".../cli/strategy/x_test.go", index)}  # fmt: skip
    settings_file = (AnchorStatus.RESOLVED, ("file:/home/u/.claude/settings.json",))
    assert found == {
        "~/.claude/settings.json": settings_file,
        ".claude/settings.json": settings_file,
        "claude/settings.json": (AnchorStatus.UNRESOLVED, ()),
        "./.github/workflows/ci.yml": (AnchorStatus.RESOLVED, ("file:/repo/.github/workflows/ci.yml",)),
        ".../cli/strategy/x_test.go": (AnchorStatus.RESOLVED, ("file:/repo/cmd/cli/strategy/x_test.go",)),
    }


SOURCES = [record("ledger:1", "Rollback plan."), record("ledger:2", "Retry cap is 3.")]


def test_unresolved_anchor_fires_for_a_dead_key_only():
    trace = chain(SOURCES, "Plan in [[ledger:1]]; cap in [[ledger:9]] and [[ledger:9]].")
    assert generations_of(trace, "unresolved-anchor") == [1]  # one finding per key, not per occurrence
    assert generations_of(chain(SOURCES, "Plan in [[ledger:1]], cap in [[ledger:2]]."), "unresolved-anchor") == []


def test_anchors_in_the_raw_context_are_not_judged():
    trace = chain(SOURCES, "Plan in [[ledger:1]].", raw="raw turn citing [[nowhere:0]]")
    assert generations_of(trace, "unresolved-anchor") == []


def test_ambiguous_anchor_fires_on_a_collision_and_not_on_a_qualified_key():
    sources = [record("config.yaml", "a", namespace="billing"), record("config.yaml", "b", namespace="auth")]
    assert generations_of(chain(sources, "Limits live in config.yaml."), "ambiguous-anchor") == [1]
    assert generations_of(chain(sources, "Limits live in [[billing:config.yaml]]."), "ambiguous-anchor") == []


def test_no_anchors_fires_when_a_summary_elides_without_any_key():
    assert generations_of(chain(SOURCES, "The plan is as noted earlier, etc."), "no-anchors") == [1]
    assert generations_of(chain(SOURCES, "The plan is in [[ledger:1]], as noted."), "no-anchors") == []
    assert generations_of(chain(SOURCES, "Nothing elided here."), "no-anchors") == []


@settings(max_examples=500, deadline=None)
@given(texts)
def test_the_shortcut_scans_find_exactly_what_a_plain_scan_finds(text):
    """Default patterns skip text that cannot match; the same patterns as a custom set scan it all.

    The custom set is wrapped in a group: `re.compile` caches by pattern text, so the very same
    strings would compile to the default objects and take the shortcuts too. Long texts take
    another path scan than words and lines do, so each text is also tried long.
    """
    plain = {name: f"(?:{pattern})" for name, pattern in DEFAULT_PATTERNS.items()}
    for variant in (text, "Prose that ends. " * 15 + text + " And more prose." * 15):
        assert extract_anchors(variant) == extract_anchors(variant, plain)


def test_a_key_with_a_placeholder_is_a_pattern_not_an_anchor():
    """pup-mcp: 'https://api.{dd_site}/api/{version}/{endpoint}' is how URLs are built, not one URL."""
    text = "Requests go to https://api.{dd_site}/api/{version}/{endpoint}, logs to runs/<run-id>/out.json."
    assert [a.key for a in extract_anchors(text)] == []
    assert [a.key for a in extract_anchors("See https://api.datadoghq.com/api/v2/slo and runs/42/out.json.")] == [
        "https://api.datadoghq.com/api/v2/slo", "runs/42/out.json"]  # fmt: skip


def test_versions_joined_by_slashes_are_no_path():
    """sequant: 'tested on Node 18.x/20.x/22.x'."""
    assert [a.key for a in extract_anchors("CI runs on Node 18.x/20.x/22.x and Python 3.11/3.12.")] == []


def test_a_key_that_is_a_path_only_by_an_underscore_is_reported_as_info_when_it_resolves_to_nothing():
    """pup-mcp 'metric/monitor/time_slice', entire-bmad 'thinking/text/tool_use': words of a list joined by
    slashes, as likely as a dead path; a key with an extension or a source root is still a warning."""
    records = [SourceRecord("u1", "summarise the checkpoints", namespace="transcript", kind="user", authority="user")]
    summary = "Content blocks are thinking/text/tool_use; see src/parser/lexer_v2 and docs/metrics_guide.md."
    found = {f.evidence["key"]: f.severity.value for f in analyze(session_log(records, (1, summary))).findings
             if f.rule == "unresolved-anchor"}  # fmt: skip
    assert found == {"thinking/text/tool_use": "info", "src/parser/lexer_v2": "warning",
                     "docs/metrics_guide.md": "warning"}  # fmt: skip


def test_every_key_of_a_summary_whose_log_is_in_another_file_is_reported_as_info():
    """ohmyposh_030df228 (fresh32, labelled blind: S1 faithful) opens with its compaction: the session was continued
    from another file, which holds what S1 summarised, and five of S1's keys (`website/_scratch_schema.json`,
    `5cf09a5f` …) were warnings that nothing here could bind. A summary that covers no record of its log has keys
    no record here can check; one that covers a record is judged as ever."""
    records = [SourceRecord("u1", "rename the Open Studio button", namespace="transcript", kind="user",
                            authority="user")]  # fmt: skip
    summary = "Restored website/_scratch_schema.json from stash 5cf09a5f; see website/scripts/render.mjs."
    continued = {f.evidence["key"]: f.severity.value for f in analyze(session_log(records, (0, summary))).findings
                 if f.rule == "unresolved-anchor"}  # fmt: skip
    assert continued == {"website/_scratch_schema.json": "info", "5cf09a5f": "info",
                         "website/scripts/render.mjs": "info"}  # fmt: skip
    assert set(unresolved_severities(summary).values()) == {"warning"}


def test_a_key_the_summary_cut_short_with_an_ellipsis_is_reported_as_info_when_it_resolves_to_nothing():
    """cli_1284c080 (fresh33, labelled blind: S1 faithful) quotes the user's "have a look at this first
    https://linear.app/entirehq/issue/ENT-250/... - I wrote it just a little while ago": the log holds the address
    whole (…/ENT-250/introduce-actionhandler-interface-…), and S1 was warned that its head resolves to nothing."""
    summary = ("The user said: have a look at this first https://linear.app/entirehq/issue/ENT-250/… and "
               "https://linear.app/entirehq/issue/ENT-251/ too.")  # fmt: skip
    assert unresolved_severities(summary) == {"https://linear.app/entirehq/issue/ENT-250/…": "info",  # a URI takes it
                                              "https://linear.app/entirehq/issue/ENT-251/": "warning"}  # fmt: skip
    assert unresolved_severities(summary.replace("…", "...")) == {
        "https://linear.app/entirehq/issue/ENT-250/": "info", "https://linear.app/entirehq/issue/ENT-251/": "warning"}


def test_a_folder_the_summary_follows_with_an_ellipsis_names_a_path_under_it_and_is_reported_as_info():
    """cli_1284c080 (fresh33, labelled blind: S2 faithful) explains a test failure: "`t.TempDir()` on macOS returns
    `/var/folders/...` but `GetWorktreePath()` … resolves symlinks (`/private/var/folders/...`)". Both folders were
    warned of as dead pointers: `/...` after a folder says some path under it, never named whole. The same folder
    written alone is still a key."""
    summary = "t.TempDir() returns `/var/folders/...`, resolved to `/private/var/folders/…`; see /opt/builds/cache too."
    assert unresolved_severities(summary) == {"/var/folders": "info", "/private/var/folders": "info",
                                              "/opt/builds/cache": "warning"}  # fmt: skip


def test_a_placeholder_path_is_reported_as_info():
    """mdpreview_3ad7a41f (fresh40, labelled blind): S1's code comment says a relative image "converts ./image.png to
    file:///path/to/image.png", and that illustration was warned of as a dead pointer; portcli_d0dbaa44 (fresh38,
    labelled blind: S1 faithful) was, of the file name a skill says to save a plan under, its date left to fill."""
    summary = "A relative image becomes file:///path/to/image.png; logs go to /srv/pathto/x.log."
    assert unresolved_severities(summary) == {"file:///path/to/image.png": "info", "/srv/pathto/x.log": "warning"}
    planned = "The plan is to be saved to `docs/superpowers/plans/YYYY-MM-DD-skip-system-blueprints.md`."
    assert unresolved_severities(planned) == {"docs/superpowers/plans/YYYY-MM-DD-skip-system-blueprints.md": "info"}


def test_a_shorthand_for_names_the_summary_prints_in_full_is_reported_as_info():
    """cybervpn_74a46b67 (fresh42, labelled blind: S1 faithful) and cybervpn_319947db (fresh38): "the AGENT_TEAM prompt
    files (GAPS, MVP, PHASE3-8)" is a range of the files AGENT_TEAM_PHASE3_PROMPT.md to …PHASE8…, and "Read
    AGENT_TEAM_PHASE8_PROMPT.md and PHASE7_PROMPT.md" names the second without the head of the first; both were warned
    of as dead pointers. A shorthand whose full form the summary does not print, resolved, is still one."""
    read = [SourceRecord(f"TEAM_PLAN_STAGE{n}_NOTES.md", "notes", namespace="file", kind="file", authority="tool")
            for n in (2, 3, 4)]  # fmt: skip
    summary = ("- Review the TEAM_PLAN notes (INTRO, STAGE2-4)\n- Read TEAM_PLAN_STAGE4_NOTES.md and STAGE3_NOTES.md\n"
               "- Also TEAM_PLAN_STAGE2_NOTES.md and TEAM_PLAN_STAGE3_NOTES.md\n- Then STAGE5_NOTES.md, STAGE7-9\n")
    assert unresolved_severities(summary, read) == {"STAGE2-4": "info", "STAGE3_NOTES.md": "info",
                                                    "STAGE5_NOTES.md": "warning", "STAGE7-9": "warning"}  # fmt: skip


def unresolved_severities(summary: str, read: Sequence[SourceRecord] = ()) -> dict[str, str]:
    """Key → severity of every unresolved-anchor finding on a one-message session, with the files it `read`,
    summarised as `summary`."""
    records = [SourceRecord("u1", "plan the work", namespace="transcript", kind="user", authority="user"), *read]
    return {f.evidence["key"]: f.severity.value for f in analyze(session_log(records, (len(records), summary))).findings
            if f.rule == "unresolved-anchor"}  # fmt: skip


def test_a_path_the_summary_names_as_one_to_make_is_reported_as_info_when_it_resolves_to_nothing():
    """monodreams: "(e) create `registry/cursor/block.json` as worked example": a plan's file, written only after
    the compaction; a file the summary says was made, and the log never shows, is still a warning. So is a file to
    take code out into (ravencloak_31505fc3, fresh73: "… or extract to a `tableContext.ts` file"), and not one the
    summary says the code was moved to."""
    summary = ("Next: (d) create `registry/block.schema.json`, (e) create `registry/cursor/block.json` as worked "
               "example, add a new file docs/registry.md.\nDone: created src/loader/registry.cs.\n"
               "- Fix AppTable.vue: move `tableContextKey` exports to a separate block or extract to a "
               "`src/tableContext.ts` file; moved the helpers to `src/table/helpers.ts`.")
    assert unresolved_severities(summary) == {
        "registry/block.schema.json": "info", "registry/cursor/block.json": "info", "docs/registry.md": "info",
        "src/loader/registry.cs": "warning", "src/tableContext.ts": "info",
        "src/table/helpers.ts": "warning"}  # fmt: skip


def test_a_path_with_its_middle_or_head_left_out_is_reported_as_info_when_it_resolves_to_nothing():
    """flutterdocker_5e12a303 (outside set): "openspec/changes/windows-scout-scope/.../spec.md" and
    "/tmp/.../scratchpad/argenv.Dockerfile" are paths the summary shortened; no record bears them as written. So is a
    nix session's "error: Cannot build '.../docker.service.drv'" of `/nix/store/jpc8…-docker.service.drv`."""
    summary = ("Reviewed windows-scout-scope/.../spec.md and /tmp/.../scratchpad/argenv.Dockerfile; "
               "edited openspec/changes/windows-scout-scope/specs/ci/spec.md; Cannot build '.../docker.service.drv' "
               "here, nor pkgs/docker.drv.")
    assert unresolved_severities(summary) == {
        "windows-scout-scope/.../spec.md": "info", "/tmp/.../scratchpad/argenv.Dockerfile": "info",
        ".../docker.service.drv": "info", "pkgs/docker.drv": "warning",
        "openspec/changes/windows-scout-scope/specs/ci/spec.md": "warning"}  # fmt: skip


def test_a_path_the_summary_says_is_not_there_is_reported_as_info_when_it_resolves_to_nothing():
    """docalign_7cb54db1 (fresh65, S1 faithful by its blind labels): "The `signals.md` file path was initially wrong
    (`/Users/kotkot/Discovery/docalign/context/signals.md` doesn't exist; actual path is
    `_planning/context/signals.md`)": the summary points the next agent away from the path, not at it."""
    summary = ("The path was wrong (`/Users/kotkot/Discovery/docalign/context/signals.md` doesn't exist). Tried "
               "`cmd/entire/cli/commands` but that directory does not exist. Edited `cmd/entire/cli/session.go`.")
    assert unresolved_severities(summary) == {
        "/Users/kotkot/Discovery/docalign/context/signals.md": "info", "cmd/entire/cli/commands": "info",
        "cmd/entire/cli/session.go": "warning"}  # fmt: skip


def test_a_path_the_log_wrote_with_a_shell_variable_is_reported_as_info_when_it_resolves_to_nothing():
    """localroots_2def5933 (fresh52, S1 faithful by its blind labels) names
    `~/.gstack/projects/paretoimproved-local-roots/main-reviews.jsonl`, which every command wrote as
    `~/.gstack/projects/$SLUG/main-reviews.jsonl`: the summary prints the path the shell expanded. The variable stands
    for one segment, so a path elsewhere with the same name is still a dead pointer."""
    reviews = SourceRecord("r1", "NO_REVIEWS", namespace="transcript", kind="tool_result", authority="tool",
                           extra={"tool": "Bash", "command": "eval $(~/.claude/skills/gstack/bin/gstack-slug "
                                  "2>/dev/null) && cat ~/.gstack/projects/$SLUG/main-reviews.jsonl 2>/dev/null || "
                                  "echo \"NO_REVIEWS\""})  # fmt: skip
    summary = ("Persisted the review to `~/.gstack/projects/paretoimproved-local-roots/main-reviews.jsonl`; older "
               "ones are in `~/.gstack/projects/paretoimproved/local-roots/main-reviews.jsonl`.")
    assert unresolved_severities(summary, [reviews]) == {
        "~/.gstack/projects/paretoimproved-local-roots/main-reviews.jsonl": "info",
        "~/.gstack/projects/paretoimproved/local-roots/main-reviews.jsonl": "warning"}  # fmt: skip
    assert unresolved_severities(summary) == dict.fromkeys(unresolved_severities(summary, [reviews]), "warning")


def test_a_code_member_written_like_a_path_is_reported_as_info_when_it_resolves_to_nothing():
    """agentsync_bf16b2f6 (fresh70, S1 faithful by its blind labels) names Go's `internal/fsroot.Root.StagedWrite` and
    the calls `os.MkdirAll/os.WriteFile`: a package's member after a dot, not a file's extension; a file with an
    extension in any case is still a dead pointer when no record bears it."""
    summary = ("Writes go through `internal/fsroot.Root.StagedWrite` instead of `os.MkdirAll/os.WriteFile`; see "
               "`internal/fsroot/root.go`, `deploy/app.Dockerfile` and `scripts/analysis.R`.")
    assert unresolved_severities(summary) == {
        "internal/fsroot.Root.StagedWrite": "info", "os.MkdirAll/os.WriteFile": "info",
        "internal/fsroot/root.go": "warning", "deploy/app.Dockerfile": "warning",
        "scripts/analysis.R": "warning"}  # fmt: skip


def test_a_files_lines_read_as_a_ticket_are_reported_as_info_when_they_resolve_to_nothing():
    """tiny_8800a864 (fresh74, S1 faithful by its blind labels): "Template section (~L161-163): rewrote to MVP …" and
    "L414-416": lines of a file, read by the ticket pattern as a key. A ticket is still a warning, and so is a "range"
    that runs backwards, which no editor writes."""
    summary = "Template section (~L161-163) and L414-416 rewritten; see ENT-112 and L9-3."
    assert unresolved_severities(summary) == {
        "L161-163": "info", "L414-416": "info", "ENT-112": "warning", "L9-3": "warning"}  # fmt: skip


def test_an_agents_instruction_file_is_reported_as_info_when_it_resolves_to_nothing():
    """wakil_5bea7345 (outside set): "a local-first Python CLI knowledge-work agent, per
    `/Users/ebridges/Projects/wakil/CLAUDE.md`": Claude Code loaded the file at the start and the log never
    shows it read; another file of the same folder the log never shows is still a warning."""
    summary = ("Building wakil, per `/Users/ebridges/Projects/wakil/CLAUDE.md` and AGENTS.md; "
               "edited /Users/ebridges/Projects/wakil/notes.md.")
    assert unresolved_severities(summary) == {
        "/Users/ebridges/Projects/wakil/CLAUDE.md": "info", "AGENTS.md": "info",
        "/Users/ebridges/Projects/wakil/notes.md": "warning"}  # fmt: skip
