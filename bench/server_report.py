"""The server benchmark's figures: each side's totals, the JSON result and the printed report.

The game side is compared with the bare echo (``throughput_ratio``, ``p99_ratio``) and, with ``--fanout``,
with the fan-out floor (``fanout_throughput_ratio``); CPU time per process says which one was the
bottleneck.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench import procs
from bench.server_shared import PLAYERS


@dataclass(slots=True)
class Side:
    """One side's totals over its measured slices."""

    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    replaced: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds per process name during the slices."""
    rates: list[float] = field(default_factory=list)
    messages: int = 0

    def per_second(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0

    def cpu_percent(self, name: str) -> float:
        return 100 * self.cpu.get(name, 0.0) / self.seconds if self.seconds else 0.0


def summarize(
    args: argparse.Namespace,
    game: Side,
    echo: Side,
    *,
    rounds: int,
    load: tuple[float, float],
) -> dict[str, Any]:
    actions_per_s = game.per_second()
    echo_per_s = echo.per_second()
    p50, p99 = procs.percentile(game.latencies_ms, 0.5), procs.percentile(game.latencies_ms, 0.99)
    echo_p50, echo_p99 = procs.percentile(echo.latencies_ms, 0.5), procs.percentile(echo.latencies_ms, 0.99)
    game_client_cpu = sum(v for k, v in game.cpu.items() if k.startswith("client"))
    echo_client_cpu = sum(v for k, v in echo.cpu.items() if k.startswith("client"))
    actions = len(game.latencies_ms)
    calls = len(echo.latencies_ms)
    return {
        "tables": args.tables,
        "clients": args.clients,
        "connections": args.connections,
        "policy": args.policy,
        "submit": args.submit,
        "engine": args.engine,
        "batch_events": args.batch_events,
        "db": args.db,
        "rounds": rounds,
        "seconds": round(game.seconds, 3),
        "actions": actions,
        "actions_per_s": round(actions_per_s, 1),
        "p50_ms": round(p50, 3),
        "p90_ms": round(procs.percentile(game.latencies_ms, 0.9), 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(max(game.latencies_ms, default=0.0), 3),
        "echo_calls": calls,
        "echo_calls_per_s": round(echo_per_s, 1),
        "echo_p50_ms": round(echo_p50, 3),
        "echo_p99_ms": round(echo_p99, 3),
        "throughput_ratio": round(actions_per_s / echo_per_s, 4) if echo_per_s else 0.0,
        "p99_ratio": round(p99 / echo_p99, 3) if echo_p99 else 0.0,
        "server_cpu_percent": round(game.cpu_percent("server"), 1),
        "client_cpu_percent": round(100 * game_client_cpu / game.seconds, 1) if game.seconds else 0.0,
        "echo_server_cpu_percent": round(echo.cpu_percent("echo"), 1),
        "echo_client_cpu_percent": round(100 * echo_client_cpu / echo.seconds, 1) if echo.seconds else 0.0,
        "server_cpu_ms_per_action": round(1000 * game.cpu.get("server", 0.0) / max(actions, 1), 4),
        "echo_server_cpu_ms_per_call": round(1000 * echo.cpu.get("echo", 0.0) / max(calls, 1), 4),
        "stream_messages_per_action": round(game.messages / max(actions, 1), 2),
        "tables_replaced": game.replaced,
        "errors": sum(game.errors.values()) + sum(echo.errors.values()),
        "load_before": round(load[0], 2),
        "load_after": round(load[1], 2),
    }


def report(result: dict[str, Any], game: Side, echo: Side, out: Callable[[str], None]) -> None:
    out("")
    out(f"Game server, {game.seconds:.2f} s measured ({result['tables']} tables, one action in flight each):")
    out(f"  actions          {result['actions']:>10}   {result['actions_per_s']:>10,.1f} /s")
    out(
        f"  latency ms       p50 {result['p50_ms']:.2f}  p90 {result['p90_ms']:.2f}"
        f"  p99 {result['p99_ms']:.2f}  max {result['max_ms']:.2f}"
        "  (submit until every seat's stream has the events)"
    )
    out(
        f"  CPU              server {result['server_cpu_percent']:.0f}%"
        f"  ({result['server_cpu_ms_per_action']:.3f} ms per action),"
        f" client(s) {result['client_cpu_percent']:.0f}%"
    )
    out(
        f"  stream messages  {result['stream_messages_per_action']:>10.2f} per action (all seats);"
        f"  tables replaced (game over) {game.replaced}"
    )
    out(f"  actions/s by round {_spread(game.rates)}")
    out(f"Bare gRPC echo, {echo.seconds:.2f} s measured (the same number of unary calls in flight):")
    out(f"  calls            {result['echo_calls']:>10}   {result['echo_calls_per_s']:>10,.1f} /s")
    out(f"  latency ms       p50 {result['echo_p50_ms']:.2f}  p99 {result['echo_p99_ms']:.2f}")
    out(
        f"  CPU              echo server {result['echo_server_cpu_percent']:.0f}%"
        f"  ({result['echo_server_cpu_ms_per_call']:.3f} ms per call),"
        f" client(s) {result['echo_client_cpu_percent']:.0f}%"
    )
    out(f"  calls/s by round {_spread(echo.rates)}")
    out(
        f"throughput ratio (actions/s over echo calls/s) {result['throughput_ratio']:.3f};"
        f" p99 ratio {result['p99_ratio']:.2f}; load average {result['load_before']:.2f} before,"
        f" {result['load_after']:.2f} after"
    )
    errors = game.errors + echo.errors
    if errors:
        out(f"ERRORS: {dict(errors)}")


def summarize_fanout(args: argparse.Namespace, fanout: Side, game: Side) -> dict[str, Any]:
    acts = len(fanout.latencies_ms)
    per_s = fanout.per_second()
    return {
        "fanout_messages_per_act": (
            PLAYERS if args.submit == "play" else round(PLAYERS * args.fanout_messages, 2)
        ),
        "fanout_message_bytes": args.fanout_bytes,
        "fanout_acts": acts,
        "fanout_acts_per_s": round(per_s, 1),
        "fanout_p50_ms": round(procs.percentile(fanout.latencies_ms, 0.5), 3),
        "fanout_p99_ms": round(procs.percentile(fanout.latencies_ms, 0.99), 3),
        "fanout_server_cpu_percent": round(fanout.cpu_percent("echo"), 1),
        "fanout_client_cpu_percent": round(
            100 * sum(v for k, v in fanout.cpu.items() if k.startswith("client")) / max(fanout.seconds, 1e-9),
            1,
        ),
        "fanout_server_cpu_ms_per_act": round(1000 * fanout.cpu.get("echo", 0.0) / max(acts, 1), 4),
        "fanout_throughput_ratio": round(game.per_second() / per_s, 4) if per_s else 0.0,
    }


def report_fanout(result: dict[str, Any], fanout: Side, out: Callable[[str], None]) -> None:
    shape = "one message on a bidirectional stream" if result["submit"] == "play" else "one unary call"
    out(
        f"Bare gRPC fan-out, {fanout.seconds:.2f} s measured (an act: {shape} and"
        f" {result['fanout_messages_per_act']:g} stream messages of {result['fanout_message_bytes']} bytes):"
    )
    out(f"  acts             {result['fanout_acts']:>10}   {result['fanout_acts_per_s']:>10,.1f} /s")
    out(f"  latency ms       p50 {result['fanout_p50_ms']:.2f}  p99 {result['fanout_p99_ms']:.2f}")
    out(
        f"  CPU              server {result['fanout_server_cpu_percent']:.0f}%"
        f"  ({result['fanout_server_cpu_ms_per_act']:.3f} ms per act),"
        f" client(s) {result['fanout_client_cpu_percent']:.0f}%"
    )
    out(f"  acts/s by round {_spread(fanout.rates)}")
    out(f"fan-out throughput ratio (actions/s over fan-out acts/s) {result['fanout_throughput_ratio']:.3f}")


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"min {min(values):,.0f}  max {max(values):,.0f}  ({len(values)} slices)"
