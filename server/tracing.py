"""OpenTelemetry traces: a span for each call and each table action, exported by OTLP when configured.

A call's span (kind SERVER, named ``thousand.v1.TableService/SubmitAction``) continues the trace of the
client's W3C ``traceparent`` metadata when it sends one; inside it, a client's action is a ``table.action``
span, its commit a ``store.append`` span and the events it produced, queued to every stream, a
``table.publish`` span. The call's trace id is bound to its log context (``trace_id``), so every log line of
the call names the trace.

Tracing is off unless the operator configures an OTLP endpoint (``--otlp-endpoint``): then spans go there in
batches, from a thread of the SDK. Off, :func:`span` is a shared no-op context manager and no span is made,
though a client's ``traceparent`` still gives the call's log lines its trace id. Tests install a provider of
their own with :func:`use` (the SDK's in-memory exporter).

What spans never carry: seat tokens, cards, hands or requests; the attributes are the table's id, its game,
the seat and the action's kind, as in the log lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Final

import grpc
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagators.textmap import Getter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

SERVICE_NAME: Final = "thousand-server"
INSTRUMENTATION: Final = "thousand.server"
TRACE_METADATA: Final = ("traceparent", "tracestate")
"""The W3C Trace Context metadata a client may send with any call."""

_NO_SPAN: Final[AbstractContextManager[None]] = nullcontext()
_W3C: Final = TraceContextTextMapPropagator()


class _Tracing:
    """The process's tracing, like its logging: one provider (or none) for every server in it."""

    __slots__ = ("provider", "tracer")

    def __init__(self) -> None:
        self.provider: TracerProvider | None = None
        self.tracer: Tracer | None = None


_STATE: Final = _Tracing()


def use(provider: TracerProvider | None) -> TracerProvider | None:
    """Trace with ``provider`` from now on (None: tracing off); returns the provider used before."""
    before = _STATE.provider
    _STATE.provider = provider
    _STATE.tracer = None if provider is None else provider.get_tracer(INSTRUMENTATION)
    return before


def configure_otlp(endpoint: str, instance: str) -> TracerProvider:
    """Export spans by OTLP over gRPC to ``endpoint`` (``http://collector:4317``: plaintext; ``https://``:
    TLS), as service ``thousand-server``, instance ``instance`` (the node's id or host name)."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter  # noqa: PLC0415

    resource = Resource.create({"service.name": SERVICE_NAME, "service.instance.id": instance})
    provider = TracerProvider(resource=resource)
    exporter = OTLPSpanExporter(endpoint=endpoint, insecure=endpoint.startswith("http://"))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    use(provider)
    return provider


def shutdown() -> None:
    """Send the spans still batched and stop tracing (the server's exit)."""
    provider = use(None)
    if provider is not None:
        provider.shutdown()


def enabled() -> bool:
    return _STATE.tracer is not None


def span(name: str, attributes: Mapping[str, str | int] | None = None) -> AbstractContextManager[Any]:
    """A child span of the current one while the block runs (nothing at all when tracing is off)."""
    tracer = _STATE.tracer
    if tracer is None:
        return _NO_SPAN
    return tracer.start_as_current_span(name, attributes=attributes)


class _Metadata(Getter[Mapping[str, list[str]]]):
    """A call's invocation metadata as the propagator reads it (its keys are lower case already)."""

    def __init__(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> None:
        self.values: dict[str, list[str]] = {}
        for key, value in metadata or ():
            if key in TRACE_METADATA and isinstance(value, str):
                self.values.setdefault(key, []).append(value)

    def get(self, carrier: Mapping[str, list[str]], key: str) -> list[str] | None:
        return carrier.get(key)

    def keys(self, carrier: Mapping[str, list[str]]) -> list[str]:
        return list(carrier)


class RpcSpan:
    """One call's span, current in the call's context from its start to its end."""

    __slots__ = ("_span", "_token")

    def __init__(self, span: Span, token: object) -> None:
        self._span = span
        self._token = token

    def end(self, code: grpc.StatusCode, fault: bool) -> None:
        """The call ended with ``code``; ``fault``: the server failed (the span's status is an error)."""
        self._span.set_attribute("rpc.grpc.status_code", code.value[0])
        if fault:
            self._span.set_status(Status(StatusCode.ERROR, code.name))
        self._span.end()
        otel_context.detach(self._token)  # type: ignore[arg-type]


def start_rpc(
    service: str, method: str, metadata: Iterable[tuple[str, str | bytes]] | None, transport: str
) -> tuple[RpcSpan | None, str]:
    """The call's span (None when tracing is off) and its trace id in hex ("" when there is none: tracing
    off and no ``traceparent`` from the client)."""
    carrier = _Metadata(metadata)
    parent = _W3C.extract(carrier.values, getter=carrier) if carrier.values else None
    tracer = _STATE.tracer
    if tracer is None:
        remote = trace.get_current_span(parent).get_span_context() if parent is not None else None
        return None, trace.format_trace_id(remote.trace_id) if remote and remote.is_valid else ""
    started = tracer.start_span(
        f"{service}/{method}",
        context=parent,
        kind=SpanKind.SERVER,
        attributes={
            "rpc.system": "grpc",
            "rpc.service": service,
            "rpc.method": method,
            "thousand.transport": transport,
        },
    )
    token = otel_context.attach(trace.set_span_in_context(started))
    return RpcSpan(started, token), trace.format_trace_id(started.get_span_context().trace_id)
