"""Rendering to safe HTML and DOT: pure functions from (text, findings) to strings.

Trace text is untrusted. Every string from a trace goes through `text_html` (or `attribute_html`, `_dot`)
here, and the only markup in the output is our own fixed set of elements and classes. Hidden characters
(bidi overrides, tag characters: `inspector.inert`) are shown as marked code points, so a page never
displays other text than the one analysed. Pages pass the result to `st.html`; reports embed it.
Nothing here imports a UI library.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from inspector.analysis import Analysis
from inspector.anchors import AnchorStatus
from inspector.authorship import AUTHORS
from inspector.detectors.claims import CLAIM_RULES
from inspector.facts import shown_match
from inspector.inert import HIDDEN, code_point, visible
from inspector.invariants import InvariantStatus
from inspector.model import Finding, finding_id
from inspector.text import clip
from inspector.views import ConsequenceLink, GuardMark, consequence_link, consequence_links, generation_rows


@dataclass(frozen=True, slots=True)
class Highlight:
    """A span of a generation's text to mark, with the class and the tooltip that says why."""

    start: int
    end: int
    css_class: str
    why: str
    label: str | None = None
    """A word shown where the span starts ("pasted", "tool output"), for a mark that says whose text it is."""


HIGHLIGHT_LABELS: dict[str, str] = {
    "anchor-resolved": "resolved", "anchor-unresolved": "unresolved", "anchor-ambiguous": "ambiguous",
    "elision-orphaned": "orphaned", "invariant-kept": "kept", "invariant-weakened": "weakened", "claim": "claims",
    "claim-status": "status claims", "annotated": "reviews", "boilerplate": "boilerplate",
    "pasted-analysis": "harness paste",
    "author-user-paste": "pasted", "author-harness": "injected", "author-subagent": "sub-agent",
    "author-tool": "tool output",
}  # fmt: skip
"""Short names for the per-class toggles."""

HIGHLIGHT_CLASSES: dict[str, str] = {
    "anchor-resolved": "anchor that resolves from the summary alone",
    "anchor-unresolved": "anchor that resolves to nothing, or whose key decayed into prose",
    "anchor-ambiguous": "anchor that binds to more than one record",
    "elision-orphaned": "elision or anaphora with no key in its sentence",
    "invariant-kept": "invariant kept (verbatim or paraphrased)",
    "invariant-weakened": "invariant whose force was weakened",
    "claim": "completeness claim",
    "claim-status": "status claim the log contradicts or does not support",
    "annotated": "reviewer annotation",
    "boilerplate": "harness boilerplate: not analysed",
    "pasted-analysis": "a copy of the summary's analysis its harness pasted where the summary held $`: not analysed",
    "author-user-paste": "pasted into the user's message (a log, code, a document): not the user's words",
    "author-harness": "injected by the agent's harness, a wrapper or a hook: not the user's words",
    "author-subagent": "a sub-agent's report, delivered in a user record: not the user's words",
    "author-tool": "a tool's output",
}
"""Every highlight class with its legend text; pages build their toggles from this."""

FINDING_HIGHLIGHTS: dict[str, str] = {
    "anchor-set-drift": "anchor-unresolved",  # the sentence that still describes what a dropped key named
    **{rule_id: "claim-status" for rule_id in CLAIM_RULES},  # a summary saying what its log does not
}
"""Findings whose span is marked in the text, by rule, with the highlight class that marks them; the
claim rules' findings also show the log's side beside them."""

CHART_BLOCK = "ci-chart"
"""Key prefix of a block holding a heading and its chart (`chart_block_key`); STYLE gives its chart a slot."""
CHART_SLOT_PX = 120
"""Room a chart's slot holds under its heading, with a placeholder, until the chart is drawn: about the smallest
drawing the chain view makes (the chain graph; its line charts are 220 px), so the page moves little."""

CHART_DRAWN = '.vega-embed svg.marks, [data-testid="stGraphVizChart"] svg, .ci-nothing-to-chart'
"""What fills a chart's slot once it is drawn: Vega marks its element vega-embed only when it has laid the chart
out (before that the element is there, 0 px tall), Graphviz inserts its svg when its layout has run, and the
sentence saying there is nothing to chart stands in for a chart."""


def chart_block_key(title: str) -> str:
    """The key of the block for the chart headed `title` (Streamlit gives the block the class st-key-<key>)."""
    return f"{CHART_BLOCK}-" + "-".join(re.findall(r"[a-z0-9]+", title.lower()))


STYLE = """
.ci-text{white-space:pre-wrap;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:0.86rem;
  line-height:1.55;border:1px solid #ddd;border-radius:6px;padding:0.8rem;background:#fff;color:#111}
.ci-text mark{background:none;color:inherit;border-radius:3px;padding:0 1px}
.ci-text mark.anchor-resolved{border-bottom:2px solid #2e7d32}
.ci-text mark.anchor-unresolved{border-bottom:2px dashed #c62828;background:#ffebee}
.ci-text mark.anchor-ambiguous{border-bottom:2px dotted #ef6c00;background:#fff3e0}
.ci-text mark.elision-orphaned{background:#fff59d}
.ci-text mark.invariant-kept{background:#e8f5e9}
.ci-text mark.invariant-weakened{background:#fce4ec;outline:1px solid #ad1457}
.ci-text mark.claim{background:#ede7f6;font-style:italic}
.ci-text mark.claim-status{background:#fbe9e7;text-decoration:underline wavy #bf360c;text-underline-offset:3px}
.ci-text mark.annotated{box-shadow:inset 0 -3px 0 #6a1b9a}
.ci-text mark.boilerplate{opacity:0.45}
.ci-text mark.pasted-analysis{opacity:0.45;text-decoration:line-through}
.ci-text mark.selected{outline:3px solid #1565c0}
.ci-text mark.author-user-paste,.ci-text mark.author-harness,.ci-text mark.author-subagent,.ci-text mark.author-tool{
  color:#6b6b6b;background:#f5f5f5}
.ci-author{display:inline-block;font-family:system-ui,sans-serif;font-size:0.7rem;font-weight:600;color:#fff;
  background:#78909c;border-radius:3px;padding:0 4px;margin-right:4px;line-height:1.3}
.ci-legend span{display:inline-block;margin:0 0.8rem 0.3rem 0;font-size:0.85rem}
.ci-legend mark{padding:0 4px}
.ci-diff del{background:#ffcdd2;text-decoration:line-through;color:#7f0000}
.ci-diff ins{background:#c8e6c9;text-decoration:none;color:#003300}
.ci-findings{font-size:0.85rem;margin:0;padding-left:1.1rem}
.ci-findings li{margin-bottom:0.35rem}
.ci-sev-error{color:#b71c1c;font-weight:600}.ci-sev-warning{color:#e65100;font-weight:600}
.ci-sev-info{color:#455a64;font-weight:600}
.ci-matrix{border-collapse:collapse}.ci-matrix td,.ci-matrix th{padding:2px 6px;border:1px solid #ddd;font-size:0.8rem}
.ci-matrix td:nth-child(3){min-width:18rem}.ci-matrix td:first-child{font-size:0.72rem}
.ci-matrix-scroll{overflow-x:auto;max-width:100%}
.ci-st-verbatim,.ci-st-paraphrased{background:#c8e6c9}.ci-st-weakened{background:#ffe0b2}
.ci-st-lost{background:#ffcdd2}.ci-st-not-yet-introduced{color:#999}.ci-st-retired{color:#999;font-style:italic}
.ci-st-unknown{background:#eceff1}
.ci-error{background:#ffebee;color:#b71c1c;border-radius:6px;padding:0.6rem 0.8rem;font-size:0.9rem}
.ci-caption{color:#555;font-size:0.9rem;margin:0}
.ci-guard{border-left:4px solid #1565c0;background:#e3f2fd;color:#111;border-radius:6px;padding:0.5rem 0.8rem;
  margin:0.4rem 0;font-size:0.9rem}
.ci-guard ol{margin:0.3rem 0;padding-left:1.2rem}.ci-guard li{margin-bottom:0.35rem}
.ci-consequences{font-size:0.9rem;margin:0.2rem 0;padding-left:1.2rem}
.ci-consequences li{margin-bottom:0.45rem}.ci-then{color:#7f0000;font-size:0.85rem;margin:0.15rem 0 0}
.ci-then-kind{color:#fff;background:#b71c1c;border-radius:3px;padding:0 4px;font-weight:600;font-size:0.8rem}
.ci-hidden{background:#b71c1c;color:#fff;font-weight:600;border-radius:3px;padding:0 2px;margin:0 1px;
  font-size:0.8em;font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
""" + f"""
[class*="st-key-{CHART_BLOCK}-"] [data-testid="stSkeleton"]{{display:none}}
[class*="st-key-{CHART_BLOCK}-"]>[data-testid="stElementContainer"]:not(:has({CHART_DRAWN})){{
  min-height:{CHART_SLOT_PX}px;width:100%;position:relative;background:#f6f6f4;border-radius:6px}}
[class*="st-key-{CHART_BLOCK}-"]>[data-testid="stElementContainer"]:not(:has({CHART_DRAWN}))::after{{
  content:"Drawing the chart…";position:absolute;top:0.6rem;left:0.8rem;color:#777;font-size:0.85rem}}
"""


def style_block() -> str:
    return f"<style>{STYLE}</style>"


def text_html(text: str) -> str:
    """Trace text as HTML: escaped, and each hidden character replaced by a marked code point.

    The replacement is per character, so a caller that escapes a text piece by piece (highlight
    segments cut at character offsets) marks the same characters as one that escapes it whole.
    """
    if _PLAIN_TEXT.fullmatch(text):  # most highlight segments: a report escapes hundreds of thousands of them
        return text
    return HIDDEN.sub(_hidden_mark, html.escape(text))


_PLAIN_TEXT = re.compile("[^&<>\"'" + HIDDEN.pattern[1:] + "*")
"""Text `text_html` leaves as it is: no character HTML escapes, none hidden."""


def _hidden_mark(match: re.Match[str]) -> str:
    char = match.group()
    name = unicodedata.name(char, "unassigned")
    title = f"hidden character U+{ord(char):04X} ({name.lower()})"
    return f'<span class="ci-hidden" title="{html.escape(title)}">{code_point(char)}</span>'


def attribute_html(text: str) -> str:
    """Trace text where no markup fits (a tooltip, a page title): escaped, hidden characters spelled."""
    return html.escape(visible(text))


def highlights(analysis: Analysis, generation: int) -> list[Highlight]:
    """Every highlight of one generation: boilerplate, anchors, orphaned elisions, invariants, decay, claims
    (completeness claims, and status claims a claim rule found against the log)."""
    facts = analysis.facts.generations[generation]
    marks = [Highlight(start, end, "boilerplate", HIGHLIGHT_CLASSES["boilerplate"]) for start, end in facts.boilerplate]
    pasted = HIGHLIGHT_CLASSES["pasted-analysis"]
    marks += [Highlight(start, end, "pasted-analysis", pasted) for start, end in facts.pasted]
    for start, end, author in analysis.trace.generations[generation].extra.get(AUTHORS, ()):
        css = f"author-{author}"
        if css in HIGHLIGHT_CLASSES:
            marks.append(Highlight(start, end, css, HIGHLIGHT_CLASSES[css], HIGHLIGHT_LABELS[css]))
    for resolved in facts.anchors:
        status, referents = resolved.status, ", ".join(resolved.referents)
        why = {
            AnchorStatus.RESOLVED: f"resolves to {referents}",
            AnchorStatus.UNRESOLVED: "resolves to no source record",
            AnchorStatus.AMBIGUOUS: f"binds to {len(resolved.referents)} records: {referents}",
        }[status]
        marks.append(Highlight(resolved.anchor.start, resolved.anchor.end, f"anchor-{status.value}", why))
    for elision in facts.elisions:
        if elision.orphaned:
            marks.append(Highlight(elision.start, elision.end, "elision-orphaned", "no stable key in this sentence"))
    for track in analysis.facts.invariants:
        match, invariant = shown_match(track, facts), track.invariant
        if match.start is None or match.end is None:
            continue
        if match.status in (InvariantStatus.VERBATIM, InvariantStatus.PARAPHRASED):
            why = f"{invariant.kind.value} {match.status.value}: {invariant.text}"
            marks.append(Highlight(match.start, match.end, "invariant-kept", why))
        elif match.status is InvariantStatus.WEAKENED:
            why = f"{invariant.kind.value} weakened ({match.reason}): {invariant.text}"
            marks.append(Highlight(match.start, match.end, "invariant-weakened", why))
    for finding in analysis.findings_for(generation):
        if finding.start is None or finding.end is None:
            continue
        kind = FINDING_HIGHLIGHTS.get(finding.rule)
        if kind is not None:
            marks.append(Highlight(finding.start, finding.end, kind, finding.message))
    for claim in facts.claims:
        marks.append(Highlight(claim.start, claim.end, "claim", "completeness claim"))
    return marks


def highlight_html(
    text: str,
    marks: Sequence[Highlight],
    enabled: Iterable[str] | None = None,
    *,
    window: tuple[int, int] | None = None,
    selected: tuple[int, int] | None = None,
    targets: Mapping[int, Sequence[str]] | None = None,
) -> str:
    """Escaped text with our own `<mark>` elements; overlapping marks share a segment's class list.

    `window` renders only text[start:end] (pagination of very long generations); `selected`
    outlines one span (the finding a reviewer followed) and gives it the id `selected`; `targets`
    places empty `<a id>` elements at offsets so in-page links can jump there.
    """
    allowed = set(HIGHLIGHT_CLASSES if enabled is None else enabled)
    lo, hi = window if window is not None else (0, len(text))
    active = [m for m in marks if m.css_class in allowed and m.end > lo and m.start < hi and m.end > m.start]
    cuts = {lo, hi}
    for m in active:
        cuts.update((max(lo, m.start), min(hi, m.end)))
    if selected is not None:
        cuts.update(p for p in selected if lo <= p <= hi)
    targets = {p: ids for p, ids in (targets or {}).items() if lo <= p < hi}
    cuts.update(targets)
    points = sorted(cuts)
    # Each mark covers the segments from its start's cut to its end's: opened and closed there as the segments are
    # walked, instead of every mark tested against every segment (110 long summaries' marks took 0.8 s that way).
    index = {point: i for i, point in enumerate(points)}
    opens: dict[int, list[int]] = {}
    closes: dict[int, list[int]] = {}
    for number, m in enumerate(active):
        opens.setdefault(index[max(lo, m.start)], []).append(number)
        closes.setdefault(index[min(hi, m.end)], []).append(number)
    open_now: set[int] = set()
    out: list[str] = []
    # A run of segments under the same marks shares one opening tag (its classes and title): worked out once.
    tags: dict[tuple[bool, tuple[int, ...]], str] = {}
    for i, (start, end) in enumerate(zip(points, points[1:], strict=False)):
        if i in closes:
            open_now.difference_update(closes[i])
        if i in opens:
            open_now.update(opens[i])
        if start in targets:
            out.extend(f'<a id="{html.escape(ident)}"></a>' for ident in targets[start])
        segment = text_html(text[start:end])
        is_selected = selected is not None and selected[0] <= start and end <= selected[1]
        if not open_now and not is_selected:
            out.append(segment)
            continue
        numbers = tuple(sorted(open_now))  # in the marks' order, as their labels go
        covering = [active[number] for number in numbers]
        labels = "".join(f'<span class="ci-author">{html.escape(m.label)}</span>' for m in covering
                         if m.label and m.start == start)  # fmt: skip
        tag = tags.get((is_selected, numbers))
        if tag is None:
            classes = sorted({m.css_class for m in covering} | ({"selected"} if is_selected else set()))
            title = "; ".join(dict.fromkeys(m.why for m in covering))
            tag = tags[is_selected, numbers] = f'<mark class="{" ".join(classes)}" title="{attribute_html(title)}"'
        ident = ' id="selected"' if is_selected and start == selected[0] else ""  # type: ignore[index]
        out.append(f"{tag}{ident}>{labels}{segment}</mark>")
    return "".join(('<div class="ci-text">', *out, "</div>"))  # one copy of a long text's pieces, not two


def legend_html(enabled: Iterable[str] | None = None) -> str:
    allowed = set(HIGHLIGHT_CLASSES if enabled is None else enabled)
    items = "".join(
        f'<span><mark class="{cls}">{html.escape(label)}</mark></span>'
        for cls, label in HIGHLIGHT_CLASSES.items()
        if cls in allowed
    )
    return f'<div class="ci-legend ci-text" style="white-space:normal">{items}</div>'


def findings_html(analysis: Analysis, generation: int, links: Sequence[ConsequenceLink] | None = None) -> str:
    """The generation's findings as a list; each with a span links to its place in the text, and a loss the next
    agent paid for says what it then did, beside it. `links`: the analysis's `consequence_links`, for a page that
    lists every generation's findings and should not work them out once per generation."""
    items = []
    links = consequence_links(analysis) if links is None else links
    for finding in analysis.findings_for(generation):
        sev = finding.severity.value
        label = f'<span class="ci-sev-{sev}">{sev}</span> <code>{html.escape(finding.rule)}</code>'
        message = text_html(finding.message)
        if finding.start is not None:
            message = f'<a href="#f-{finding_id(finding)}">{message}</a>'
        if finding.rule in CLAIM_RULES:
            message += _claim_evidence_line(finding)
        link = consequence_link(links, finding) if finding.consequence is not None else None
        if link is not None:
            message += then_html(link)
        items.append(f"<li>{label}: {message}</li>")
    if not items:
        return '<p class="ci-findings">No findings in this generation.</p>'
    return f'<ol class="ci-findings">{"".join(items)}</ol>'


def then_html(link: ConsequenceLink) -> str:
    """What happened next, one line under its finding: the kind, the later record, and what was done there."""
    quote = text_html(clip(link.quote, 200))
    return (f'<p class="ci-then">then <span class="ci-then-kind">{text_html(link.kind)}</span> at record '
            f"<code>{text_html(link.record)}</code>{_position(link)}: {text_html(link.why)}: “{quote}”"
            "</p>")  # fmt: skip


def consequences_html(links: Sequence[ConsequenceLink]) -> str:
    """The chain view's list of consequences: each a link from the summary that lost the item to the later record."""
    if not links:
        return '<p class="ci-caption">No loss in this chain was followed by a consequence in the log.</p>'
    items = "".join(
        f'<li><b>S{link.generation}</b> lost “{text_html(link.lost)}” → record <code>{text_html(link.record)}</code>'
        f'{_position(link)}: <span class="ci-then-kind">{text_html(link.kind)}</span> {text_html(link.why)}'
        f'<br><span class="ci-caption">“{text_html(clip(link.quote, 200))}” · <code>{text_html(link.rule)}</code>'
        "</span></li>"
        for link in links
    )
    return f'<ol class="ci-consequences">{items}</ol>'


def real_consequence_html(session: str | None, link: ConsequenceLink | None) -> str:
    """The guided story's "what happened next" from a real session, quoted with its provenance (file, summary,
    record); without one, that the sample's own plan above is the example."""
    if session is None or link is None:
        return ('<div class="ci-guard"><p class="ci-caption">No real session is at hand (../shared/real_traces/'
                "labelled/ is absent), so the sample's plan above is the example: in a session log, the inspector "
                "reads what the agent did next and links it to the summary that lost the rule.</p></div>")  # fmt: skip
    return (f'<div class="ci-guard ci-real-consequence"><p class="ci-caption"><b>In a real session</b> '
            f"(<code>{text_html(session)}</code>), S{link.generation} lost “{text_html(link.lost)}”; at record "
            f"<code>{text_html(link.record)}</code>{_position(link)}, working from that summary: "
            f'<span class="ci-then-kind">{text_html(link.kind)}</span> {text_html(link.why)}.</p>'
            f"{_evidence_text(link.quote)}</div>")  # fmt: skip


def _position(link: ConsequenceLink) -> str:
    return f" (#{link.position} in the log)" if link.position is not None else ""


def guard_html(mark: GuardMark) -> str:
    """What the guard gave back at this summary, for the top of its generation view: each item in the words
    the agent read, with the rule that found it and the record it came from, then the exact text printed."""
    latest = mark.latest
    runs = f" (the last of {len(mark.injections)} runs here)" if len(mark.injections) > 1 else ""
    head = (f'<p class="ci-caption"><b>{text_html(mark.label)}</b>: source refresh performed by the guard at '
            f"{text_html(latest.created_at)}{runs}; the agent resumed with these in its context.</p>")  # fmt: skip
    items = []
    for item in mark.items:
        where = f" · record <code>{text_html(item.source_key)}</code>" if item.source_key else ""
        when = f" · said {text_html(item.said_at)}" if item.said_at else ""
        items.append(f"<li><code>{text_html(item.rule)}</code> · {text_html(item.kind)}{where}{when}<br>"
                     f"{text_html(clip(item.text, EVIDENCE_CHARS))}</li>")  # fmt: skip
    listed = f'<ol>{"".join(items)}</ol>' if items else '<p class="ci-caption">Nothing was given back.</p>'
    printed = (f'<details><summary>What the agent read</summary><div class="ci-text">{text_html(latest.text)}</div>'
               "</details>")  # fmt: skip
    return f'<div class="ci-guard">{head}{listed}{printed}</div>'


def guard_list_html(mark: GuardMark) -> str:
    """The list the guard gave the compactor before it wrote this summary, for the chain view: each item in the
    words the compactor read, with the record it came from, then the exact text printed."""
    latest = mark.latest
    runs = f" (the last of {len(mark.injections)} runs)" if len(mark.injections) > 1 else ""
    head = (f'<p class="ci-caption"><b>{text_html(mark.label)}</b>, at {text_html(latest.created_at)}{runs}, '
            "in its PreCompact hook:</p>")  # fmt: skip
    items = []
    for item in mark.items:
        where = f" · record <code>{text_html(item.source_key)}</code>" if item.source_key else ""
        items.append(f"<li>{text_html(item.kind)}{where}<br>{text_html(clip(item.text, EVIDENCE_CHARS))}</li>")
    printed = (f'<details><summary>What the compactor read</summary><div class="ci-text">{text_html(latest.text)}'
               "</div></details>")  # fmt: skip
    return f'<div class="ci-guard-list">{head}<ol>{"".join(items)}</ol>{printed}</div>'


def _claim_evidence_line(finding: Finding) -> str:
    """The log's side of a claim finding, one line under it: the record a reviewer opens, or that there is none."""
    if finding.source is None:
        return f'<p class="ci-caption">log: {text_html(_lacks(finding))}</p>'
    quote = text_html(clip(finding.source.quote, 200))
    return f'<p class="ci-caption">log, record <code>{text_html(finding.source.key)}</code>: “{quote}”</p>'


def _lacks(finding: Finding) -> str:
    """What the log lacks for a claim with no record to show: the rule's reason (`why`), else that much."""
    why = finding.evidence.get("why")
    return f"no record supports it: {why}" if isinstance(why, str) and why else "no record supports it"


def finding_targets(analysis: Analysis, generation: int) -> dict[int, list[str]]:
    """Offsets of each finding's span, keyed for `highlight_html(targets=…)`: `#f-<id>` lands there."""
    targets: dict[int, list[str]] = {}
    for finding in analysis.findings_for(generation):
        if finding.start is not None:
            targets.setdefault(finding.start, []).append(f"f-{finding_id(finding)}")
    return targets


# --- diff ----------------------------------------------------------------------------------

_BLOCK = re.compile(r"[^\n]*?(?:\n|(?<=[.!?])\s+|$)")
_TOKEN = re.compile(r"\w+\s*|[^\w\s]+\s*|\s+")  # a word keeps its trailing space: spaces never anchor


def _blocks(text: str) -> list[str]:
    """Lines and sentences with their trailing separators, so ''.join(blocks) == text."""
    return [b for b in _BLOCK.findall(text) if b]


@dataclass(frozen=True, slots=True)
class DiffOp:
    tag: str
    """equal, delete or insert."""
    text: str


_TOKEN_PAIR_LIMIT = 4_000_000
"""Above this many token pairs a changed region is shown as whole blocks: word alignment would stall."""


def _regions(a: Sequence[str], b: Sequence[str]) -> Iterator[tuple[str, str, str]]:
    """Align two unit lists; yield ('equal', text, text) or ('changed', old, new) regions in order.

    Indel opcodes have no substitutions, so a changed region arrives as adjacent deletes and inserts;
    they are gathered so that each region reads as 'old, then new'.
    """
    old: list[str] = []
    new: list[str] = []
    for tag, a0, a1, b0, b1 in Indel.opcodes(a, b).as_list():
        if tag == "equal":
            if old or new:
                yield "changed", "".join(old), "".join(new)
                old, new = [], []
            same = "".join(a[a0:a1])
            yield "equal", same, same
        else:
            old.extend(a[a0:a1])
            new.extend(b[b0:b1])
    if old or new:
        yield "changed", "".join(old), "".join(new)


def word_diff(parent: str, child: str) -> list[DiffOp]:
    """Two-level diff: blocks (lines, sentences) first, then words inside changed regions.

    Token-level opcodes are quadratic on long inputs; aligning blocks first keeps a 50,000-word pair
    interactive while the edit script stays word-precise where text changed.
    """
    ops: list[DiffOp] = []
    for tag, old, new in _regions(_blocks(parent), _blocks(child)):
        ops.extend([DiffOp("equal", old)] if tag == "equal" else _token_diff(old, new))
    return _merge(ops)


def _token_diff(old: str, new: str) -> list[DiffOp]:
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    if not a or not b or len(a) * len(b) > _TOKEN_PAIR_LIMIT:
        return [DiffOp("delete", old), DiffOp("insert", new)]
    ops: list[DiffOp] = []
    for tag, removed, added in _regions(a, b):
        if tag == "equal":
            ops.append(DiffOp("equal", removed))
        else:
            ops.extend([DiffOp("delete", removed), DiffOp("insert", added)])
    return ops


def _merge(ops: list[DiffOp]) -> list[DiffOp]:
    merged: list[DiffOp] = []
    for op in ops:
        if not op.text:
            continue
        if merged and merged[-1].tag == op.tag:
            merged[-1] = DiffOp(op.tag, merged[-1].text + op.text)
        else:
            merged.append(op)
    return merged


def paginate_diff(ops: Sequence[DiffOp], size: int) -> list[list[DiffOp]]:
    """Split an edit script into parts of about `size` characters, cutting inside long operations."""
    parts: list[list[DiffOp]] = [[]]
    room = size
    for op in ops:
        text = op.text
        while text:
            if room == 0:
                parts.append([])
                room = size
            piece, text = text[:room], text[room:]
            parts[-1].append(DiffOp(op.tag, piece))
            room -= len(piece)
    return parts


def diff_html(ops: Sequence[DiffOp]) -> str:
    parts = []
    for op in ops:
        text = text_html(op.text)
        parts.append(text if op.tag == "equal" else f"<{op.tag[:3]}>{text}</{op.tag[:3]}>")
    return f'<div class="ci-text ci-diff">{"".join(parts)}</div>'


# --- chain graph ---------------------------------------------------------------------------


def _dot(text: str) -> str:
    """Escape a string for a double-quoted DOT label; hidden characters are spelled (then escaped with the rest)."""
    text = visible(text)
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("<", "‹").replace(">", "›")


def _tokens(n: int) -> str:
    return f"{n / 1000:.0f}k" if n >= 10_000 else f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def token_change(before: int | None, after: int | None) -> str:
    """'168k→9.8k' for a node; what the log did not record is left out rather than drawn as '?'."""
    if before is not None and after is not None:
        return f"{_tokens(before)}→{_tokens(after)}"
    if before is not None:
        return f"from {_tokens(before)} tokens"
    if after is not None:
        return f"to {_tokens(after)} tokens"
    return ""


CHAIN_NODE_PX = 230
"""Drawn width of one node of the chain: sized by its generations, a two-generation chain stays two modest
boxes instead of being stretched to fill the page."""


def chain_width(generations: int) -> int:
    """Pixels for the chain graph (the page caps it at its own width): one node per generation in a row; a
    refreshed S′ₖ and an event sit below or beside a generation's node, not in a column of their own."""
    return CHAIN_NODE_PX * generations


def chain_dot(
    analysis: Analysis, branch: tuple[int, int, int] | None = None, guard: Mapping[int, GuardMark] | None = None
) -> str:
    """S₀ → … → Sₙ as a Graphviz digraph; events (micro-compactions) hang off the generation they follow.

    `branch` = (k, corrections, records read) draws the refreshed state S′ₖ beside Sₖ. `guard`
    (`views.guard_marks`) says on a node what the guard gave back after that compaction.
    """
    lines = [
        "digraph chain {",
        '  rankdir=LR; nodesep=0.2; ranksep=0.3;',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=16, margin="0.15,0.08"];',
    ]
    for row in generation_rows(analysis):
        k = row["generation"]
        density = "-" if row["anchor_density"] is None else f"{row['anchor_density']:.2f}"
        label = [
            f"S{k}" + (" refreshed" if row["refreshed"] else "") + ("" if row["text_available"] else " (no text)"),
            f"{row['trigger'] or row['kind']} {token_change(row['tokens_before'], row['tokens_after'])}".strip(),
            f"density {density}",
            f"{row['unresolved_anchors']} unresolved",
            f"{row['invariants_lost']} lost",
        ]
        color = "#ffcdd2" if row["errors"] else "#fff3e0" if row["warnings"] else "#e8f5e9"
        extra = ', peripheries=2' if row["refreshed"] else ""
        if guard and k in guard:  # a refresh that was performed, not simulated: drawn as a refreshed node is
            label.append(guard[k].label)
            extra = ', peripheries=2'
        if row["collapsed"]:  # the next agent starts from a fraction of the session: the node says so on its face
            label.append("collapsed")
            extra += ', color="#b71c1c", penwidth=3, fontcolor="#b71c1c"'
        lines.append(f'  S{k} [label="{_dot(chr(10).join(label))}", fillcolor="{color}"{extra}];')
    generations = analysis.facts.generations
    for g in generations:
        if g.generation.parent is not None:
            lines.append(f"  S{g.generation.parent} -> S{g.generation.index};")
    if branch is not None:
        k, corrections, records = branch
        label = f"S′{k} refreshed\n{records} records re-read\n{corrections} corrections\ndebt reset to 0"
        lines.append(f'  R{k} [label="{_dot(label)}", fillcolor="#e3f2fd", peripheries=2];')
        lines.append(f'  S{k} -> R{k} [style=dashed, label="refresh"]; {{rank=same; S{k}; R{k}}}')
    for n, link in enumerate(consequence_links(analysis)):  # the later record, hung off the summary that lost it
        label = f"record {clip(link.record, 14)}" + (f"\n#{link.position} in the log" if link.position else "")
        lines.append(f'  C{n} [label="{_dot(label)}", shape=note, fillcolor="#ffebee", color="#b71c1c", '
                     f'fontcolor="#7f0000", fontsize=12];')  # fmt: skip
        lines.append(f'  S{link.generation} -> C{n} [color="#b71c1c", fontcolor="#b71c1c", style=bold, '
                     f'label="{_dot(link.kind)}"]; {{rank=same; S{link.generation}; C{n}}}')  # fmt: skip
    for n, event in enumerate(analysis.trace.events):
        lines.append(
            f'  E{n} [label="{_dot(event.kind)}", shape=note, fillcolor="#eceff1", fontsize=10];'
            f'  S{event.after_generation} -> E{n} [style=dashed, arrowhead=none];'
        )
    lines.append("}")
    return "\n".join(lines)


def matrix_html(rows: Sequence[dict], generations: int) -> str:
    """The invariants × generations status matrix as an escaped HTML table."""
    head = "".join(f"<th>S{k}</th>" for k in range(generations))
    body = []
    for row in rows:
        text = clip(row["text"], 90)
        statuses = [html.escape(row[f"S{k}"]) for k in range(generations)]
        cells = "".join(f'<td class="ci-st-{status}">{status}</td>' for status in statuses)
        body.append(
            f'<tr><td><code>{text_html(row["id"])}</code></td><td>{text_html(row["kind"])}</td>'
            f"<td>{text_html(text)}</td>{cells}</tr>"
        )
    return (
        # A long chain's status columns scroll into view rather than being cut at the page's edge.
        f'<div class="ci-matrix-scroll"><table class="ci-matrix"><thead><tr><th>id</th><th>kind</th>'
        f'<th>invariant</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
    )


# --- evidence --------------------------------------------------------------------------------

EVIDENCE_CHARS = 1_000
"""A quote or excerpt longer than this is clipped: one sentence of a log without punctuation can be a megabyte."""

_LOSS_RULES = frozenset({"invariant-lost", "user-statement-lost"})
"""Rules whose finding says something is missing from the summary (so no excerpt means: it says nothing)."""


def is_about_loss(finding: Finding) -> bool:
    """A finding about something the summary dropped: a loss rule, or a log quote with no span to point at."""
    return finding.rule in _LOSS_RULES or (finding.source is not None and finding.start is None)


def evidence_html(finding: Finding) -> str:
    """The log's quote and the summary's sentence side by side: what a reviewer compares to judge a finding.

    A missing side is said plainly rather than left blank, so "nothing" reads as a fact, not a glitch.
    """
    if finding.source is not None:
        log_title = f"What the log says (record <code>{text_html(finding.source.key)}</code>)"
        log_body = _evidence_text(finding.source.quote)
    elif finding.rule in CLAIM_RULES:  # what the log lacks is no one record: the rule says what was looked for
        log_title, log_body = "What the log says", _evidence_note(_lacks(finding))
    else:
        log_title, log_body = "What the log says", _evidence_note("no source record")
    summary_title = "What the summary says" + (f" (S{finding.generation})" if finding.generation is not None else "")
    if finding.excerpt is not None:
        summary_body = _evidence_text(finding.excerpt)
    elif finding.generation is None:
        summary_body = _evidence_note("this finding is not about a summary")
    elif is_about_loss(finding):
        summary_body = _evidence_note("the summary says nothing about it")
    else:
        summary_body = _evidence_note("this finding points at no sentence of the summary")
    columns = "".join(
        f'<div><p class="ci-caption"><strong>{title}</strong></p>{body}</div>'
        for title, body in ((log_title, log_body), (summary_title, summary_body))
    )
    then = finding.consequence
    if then is not None:  # the loss's later end, under both: what the agent working from this summary then did
        columns += (f'<div style="grid-column:1 / span 2"><p class="ci-caption"><strong>What happened next (record '
                    f'<code>{text_html(then.key)}</code>)</strong>: <span class="ci-then-kind">{text_html(then.kind)}'
                    f"</span> {text_html(then.why)}</p>{_evidence_text(then.quote)}</div>")  # fmt: skip
    return f'<div class="ci-evidence" style="display:grid;grid-template-columns:1fr 1fr;gap:0.8rem">{columns}</div>'


def _evidence_text(text: str) -> str:
    return f'<div class="ci-text ci-quote">{text_html(clip(text, EVIDENCE_CHARS))}</div>'


def _evidence_note(note: str) -> str:
    return f'<p class="ci-caption"><em>{text_html(clip(note, EVIDENCE_CHARS))}</em></p>'


__all__ = ["CHART_BLOCK", "CHART_DRAWN", "CHART_SLOT_PX", "DiffOp", "HIGHLIGHT_CLASSES", "HIGHLIGHT_LABELS",
           "Highlight", "STYLE", "attribute_html", "chain_dot", "chain_width", "chart_block_key", "consequences_html",
           "diff_html", "evidence_html", "finding_targets", "findings_html", "guard_html", "guard_list_html",
           "highlight_html",
           "highlights", "legend_html", "matrix_html", "paginate_diff", "real_consequence_html", "style_block",
           "text_html", "then_html", "token_change", "word_diff"]  # fmt: skip
