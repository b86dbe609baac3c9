"""Findings where teams already look: a chain's compactions as OpenTelemetry GenAI spans, its findings as
`gen_ai.evaluation.result` events on them (docs/otel-export.md says which convention text each name follows).

One trace per analysed session. Its root span (`compaction-inspector check`) holds the findings about no
compaction (the raw turns, the whole chain). Each compaction k is the shape a GenAI instrumentation records
around one: the last inference call before it (`chat`, its input tokens the context's size then: tokens before)
and the first call on the compacted context (`chat`, `gen_ai.conversation.compacted = true`, a `compaction`
message part holding the summary, its input tokens: tokens after), which carries the findings about Sk. That
is also what `readers/otel_genai.py` reads a compaction from, so an exported file loads back as the same chain
of summaries. The turns themselves are not sent: `gen_ai.input.messages` is opt-in under the conventions (it
holds whatever the user pasted), and a dashboard needs the findings, not a second copy of the log.

Spans are built by the OpenTelemetry SDK and sent by its OTLP/HTTP exporter, or encoded by the same OTLP
encoder and written as OTLP JSON (one `ExportTraceServiceRequest` a line, as the Collector's file exporter
writes; ids in hex as OTLP/JSON specifies).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from inspector.analysis import Analysis
from inspector.config import DEFAULT_CONFIG
from inspector.model import Finding, Generation

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan, Tracer

EVALUATION_EVENT = "gen_ai.evaluation.result"
ROOT_SPAN = "compaction-inspector check"
GENERATION = "compaction_inspector.generation"
"""The generation a finding is about: the conventions have no attribute for it (docs/otel-export.md)."""
SERVICE = "compaction-inspector"
GAP = DEFAULT_CONFIG.span_gap_ns
PROVIDERS = {"claude-code": "anthropic", "anthropic-api": "anthropic", "codex": "openai", "openai-responses": "openai",
             "gemini-cli": "gcp.gemini"}  # fmt: skip
"""`gen_ai.provider.name` (required on an inference span) of the formats whose agent talks to one provider; the
others (native, opencode, LangChain, Inspect, OpenHands, OTel) may talk to any, and the log does not say which."""


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What one export sent: for the command's closing line."""

    traces: int
    compactions: int
    findings: int


class ExportError(Exception):
    """The receiver refused the spans or could not be reached: one line, naming the endpoint."""


def build_spans(analyses: Iterable[Analysis]) -> tuple[list[ReadableSpan], ExportSummary]:
    """Every analysis as one trace of finished SDK spans (nothing is sent yet)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    collected = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    provider.add_span_processor(SimpleSpanProcessor(collected))
    tracer = provider.get_tracer("inspector.otel_export")
    traces = compactions = findings = 0
    for analysis in analyses:
        traces += 1
        compactions += _trace(tracer, analysis)
        findings += len(analysis.findings)
    provider.shutdown()
    return list(collected.get_finished_spans()), ExportSummary(traces, compactions, findings)


def _trace(tracer: Tracer, analysis: Analysis) -> int:
    """One session's spans; returns its number of compactions."""
    from opentelemetry import trace as api

    trace = analysis.trace
    conversation = str(trace.extra.get("conversation") or trace.id)
    model = trace.extra.get("model")
    name = f"chat {model}" if model else "chat"  # the conventions' `{gen_ai.operation.name} {gen_ai.request.model}`
    summaries = [g for g in trace.generations if g.index >= 1]
    times = _times(trace.generations)
    indexes = {g.index for g in summaries}
    by_generation: dict[int | None, list[Finding]] = {}
    for finding in analysis.findings:  # about a summary: on its compaction; about S0 or the chain: on the root
        by_generation.setdefault(finding.generation if finding.generation in indexes else None, []).append(finding)
    root = tracer.start_span(ROOT_SPAN, start_time=times[0], attributes={
        "gen_ai.conversation.id": conversation, "compaction_inspector.verdict": analysis.verdict,
        "compaction_inspector.format": trace.format, "compaction_inspector.path": trace.path or "",
        "compaction_inspector.generations": len(trace.generations),
        "compaction_inspector.findings": len(analysis.findings),
    })  # fmt: skip
    _events(root, by_generation.get(None, ()), times[0])
    context = api.set_span_in_context(root)
    for number, generation in enumerate(summaries, start=1):
        before, compacted = times[2 * number - 1], times[2 * number]
        common = _call_attributes(conversation, model, PROVIDERS.get(trace.format))
        if generation.tokens_before is not None:
            call = tracer.start_span(name, context, kind=api.SpanKind.CLIENT, start_time=before,
                                     attributes={**common, "gen_ai.usage.input_tokens": generation.tokens_before})
            call.end(before)
        span = tracer.start_span(name, context, kind=api.SpanKind.CLIENT, start_time=compacted,
                                 attributes={**common, **_compaction_attributes(generation)})  # fmt: skip
        _events(span, by_generation.get(generation.index, ()), compacted)
        span.end(compacted + GAP)
    root.end(times[-1] + 2 * GAP)
    return len(summaries)


def _call_attributes(conversation: str, model: Any, provider: str | None) -> dict[str, Any]:
    """What every inference span of the conversation carries."""
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.conversation.id": conversation}
    if provider:
        attributes["gen_ai.provider.name"] = provider
    if model:
        attributes["gen_ai.request.model"] = str(model)
    return attributes


def _compaction_attributes(generation: Generation) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "compaction", "id": f"S{generation.index}"}
    if generation.text is not None:  # an opaque summary (encrypted by the provider) is a part with no content
        part["content"] = generation.text
    attributes: dict[str, Any] = {
        "gen_ai.conversation.compacted": True,
        # A JSON string, as the conventions allow on spans: the SDK takes no map-valued attributes.
        "gen_ai.input.messages": orjson.dumps([{"role": "assistant", "parts": [part]}]).decode(),
        GENERATION: generation.index,
    }
    if generation.tokens_after is not None:
        attributes["gen_ai.usage.input_tokens"] = generation.tokens_after
    if generation.trigger:
        attributes["compaction_inspector.trigger"] = generation.trigger
    return attributes


def _events(span: Any, findings: Iterable[Finding], when: int) -> None:
    for finding in findings:
        attributes: dict[str, Any] = {
            "gen_ai.evaluation.name": finding.rule,
            "gen_ai.evaluation.score.label": finding.severity.value,
            "gen_ai.evaluation.explanation": explanation(finding),
        }
        if finding.generation is not None:
            attributes[GENERATION] = finding.generation
        span.add_event(EVALUATION_EVENT, attributes, timestamp=when)


def explanation(finding: Finding) -> str:
    """The finding's message, then its evidence as JSON: what a reader of the dashboard needs to judge it."""
    if not finding.evidence:
        return finding.message
    evidence = orjson.dumps(finding.evidence, default=str, option=orjson.OPT_SORT_KEYS).decode()
    return f"{finding.message}\nevidence: {evidence}"


def _times(generations: Sequence[Generation]) -> list[int]:
    """Nanosecond times, strictly increasing: the root's start, then before/after of each compaction in turn.

    A compaction's own timestamp is used where the log gives one and it keeps the order (readers order the
    calls of a conversation by their start); otherwise a millisecond after the previous time.
    """
    known = [t for t in (_nanos(g.timestamp) for g in generations) if t is not None]
    now = known[0] if known else int(datetime.now().timestamp() * 1e9)
    times = [now]
    for generation in generations:
        if generation.index < 1:
            continue
        stamp = _nanos(generation.timestamp)
        after = max(stamp if stamp is not None else 0, times[-1] + 2 * GAP)
        times += [after - GAP, after]
    return times


def _nanos(timestamp: str | None) -> int | None:
    if not timestamp:
        return None
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1e9)
    except (ValueError, OverflowError, OSError):
        return None


# -- where the spans go ---------------------------------------------------------------------------


def by_session(spans: Sequence[ReadableSpan]) -> list[list[ReadableSpan]]:
    """The spans of each session (one trace each), in export order: one request each, so a fleet is many small
    requests, none near a receiver's body limit (the SDK's exporter drops a request past 64 MB)."""
    groups: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        groups.setdefault(span.context.trace_id if span.context else 0, []).append(span)
    return list(groups.values())


def otlp_json(spans: Sequence[ReadableSpan]) -> bytes:
    """An `ExportTraceServiceRequest` per session, each an OTLP/JSON line (lowerCamelCase fields, hex ids, int64 as
    strings), as the Collector's file exporter writes them."""
    return b"".join(_request_json(group) for group in by_session(spans))


def _request_json(spans: Sequence[ReadableSpan]) -> bytes:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    return orjson.dumps(_hex_ids(request)) + b"\n"


_ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId"})


def _hex_ids(value: Any) -> Any:
    """protobuf's JSON mapping writes bytes as base64; OTLP/JSON asks for hex trace and span ids."""
    if isinstance(value, dict):
        return {k: base64.b64decode(v).hex() if k in _ID_FIELDS and isinstance(v, str) else _hex_ids(v)
                for k, v in value.items()}  # fmt: skip
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def traces_endpoint(url: str) -> str:
    """The OTLP/HTTP traces URL of a receiver: its base URL (Phoenix's `http://host:6006`, Langfuse's
    `…/api/public/otel`) gets `/v1/traces`, as the SDK does to OTEL_EXPORTER_OTLP_ENDPOINT; a full one is kept."""
    trimmed = url.rstrip("/")
    return trimmed if trimmed.endswith("/v1/traces") else f"{trimmed}/v1/traces"


def send(spans: Sequence[ReadableSpan], endpoint: str, timeout: float, headers: dict[str, str] | None = None) -> None:
    """POST the spans to an OTLP/HTTP receiver with the SDK's exporter, a request per session (headers: also
    OTEL_EXPORTER_OTLP_HEADERS, as the SDK reads it)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout, headers=headers)
    try:
        for sent, group in enumerate(by_session(spans)):
            with _quiet("opentelemetry"):  # its own log lines would say it again, with a traceback
                result = exporter.export(group)
            if result is not SpanExportResult.SUCCESS:
                before = f" after {sent} session(s) it took" if sent else ""
                raise ExportError(f"{endpoint}: the OTLP receiver did not accept the spans (not reachable, or it "
                                  f"answered with an error){before}")  # fmt: skip
    finally:
        exporter.shutdown()


@contextmanager
def _quiet(name: str) -> Iterator[None]:
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def write_file(spans: Sequence[ReadableSpan], path: Path) -> None:
    path.write_bytes(otlp_json(spans))


__all__ = ["EVALUATION_EVENT", "GENERATION", "ROOT_SPAN", "ExportError", "ExportSummary", "build_spans", "by_session",
           "explanation", "otlp_json", "send", "traces_endpoint", "write_file"]  # fmt: skip
