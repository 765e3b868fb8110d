"""The container health probe (``python -m server.probe``) and the ``thousand-server`` process as an operator
runs it: JSON logs on stderr, metrics over HTTP, health, and a graceful exit on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry

from scripts.ports import free_port
from server import probe
from server.app import Server
from server.process_metrics import MemoryLimitCollector, memory_limit
from server.settings import Settings
from tests.live_server import live_server
from tests.server_harness import run
from tests.test_ops_metrics import Scrape, fetch
from tests.tls_files import ca_issued

ROOT = Path(__file__).resolve().parent.parent


def test_probe_default_address_follows_the_server_settings() -> None:
    assert probe.default_address({}) == "127.0.0.1:50051"
    assert probe.default_address({"THOUSAND_HOST": "0.0.0.0", "THOUSAND_PORT": "6000"}) == "127.0.0.1:6000"
    assert probe.default_address({"THOUSAND_HOST": "::"}) == "127.0.0.1:50051"
    assert probe.default_address({"THOUSAND_HOST": "10.1.2.3"}) == "10.1.2.3:50051"
    assert probe.default_address({"THOUSAND_HOST": "fd00::1", "THOUSAND_PORT": "1"}) == "[fd00::1]:1"


def test_probe_exits_0_when_serving_and_1_when_draining_or_unknown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def scenario() -> list[int]:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        address = f"127.0.0.1:{server.port}"
        codes = []
        try:
            for service in ("", "thousand.v1.TableService", "no.such.Service"):
                argv = ["--address", address, "--service", service]
                codes.append(await asyncio.to_thread(probe.main, argv, {}))
            await server.health.enter_graceful_shutdown()
            codes.append(await asyncio.to_thread(probe.main, ["--address", address], {}))
        finally:
            await server.stop(grace=0.1)
        return codes

    assert run(scenario()) == [0, 0, 1, 1]
    out, err = capsys.readouterr()
    assert "(server): SERVING" in out and "thousand.v1.TableService: SERVING" in out
    assert "no.such.Service: NOT_FOUND" in err and "(server): NOT_SERVING" in err
    unreachable = probe.main(["--address", f"127.0.0.1:{free_port()}", "--timeout", "0.5"], {})
    assert unreachable == 1
    err = capsys.readouterr().err
    assert "UNAVAILABLE" in err or "DEADLINE_EXCEEDED" in err, err


def test_the_server_process_logs_json_serves_metrics_and_drains_on_sigterm(tmp_path: Path) -> None:
    metrics_port = free_port()
    env = {**os.environ, "THOUSAND_LOG_FORMAT": "json", "THOUSAND_SHUTDOWN_GRACE": "1"}
    argv = [sys.executable, "-m", "server.app", "--port", "0", "--metrics-port", str(metrics_port)]
    argv += ["--db", str(tmp_path / "thousand.db")]
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    lines: list[dict[str, Any]] = []
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            assert line, "the server exited before serving"
            lines.append(json.loads(line))
            if lines[-1]["msg"] == "serving":
                break
        serving = lines[-1]
        assert serving["msg"] == "serving" and serving["metrics_port"] == metrics_port
        address = f"127.0.0.1:{serving['port']}"
        probed = subprocess.run(
            [
                sys.executable,
                "-m",
                "server.probe",
                "--address",
                address,
                "--service",
                "thousand.v1.TableService",
            ],
            check=False,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert probed.returncode == 0, probed.stderr
        assert "SERVING" in probed.stdout
        scraped = Scrape(fetch(f"http://127.0.0.1:{metrics_port}/metrics"))
        health = {"grpc_service": "grpc.health.v1.Health", "grpc_method": "Check", "grpc_type": "UNARY"}
        assert scraped.value("grpc_server_handled_total", grpc_code="OK", **health) == 1
        assert scraped.value("thousand_tables", status="waiting") == 0
    finally:
        process.send_signal(signal.SIGTERM)
        _, rest = process.communicate(timeout=30)
    assert process.returncode == 0
    lines += [json.loads(line) for line in rest.splitlines()]
    messages = [line["msg"] for line in lines]
    assert messages[-2:] == ["draining", "stopped"]
    # health checks are logged at debug level only: probes every few seconds would drown the log
    assert not [line for line in lines if line["msg"] == "rpc"]


def test_a_sigterm_sent_as_soon_as_the_server_says_serving_still_drains_it(tmp_path: Path) -> None:
    """A supervisor may stop a process the moment it is up: the stop must be the graceful one, not the
    signal's default (which ended the process with -15 before its handlers were installed after the start)."""
    env = {**os.environ, "THOUSAND_LOG_FORMAT": "json", "THOUSAND_SHUTDOWN_GRACE": "1"}
    argv = [sys.executable, "-m", "server.app", "--port", "0", "--db", str(tmp_path / "thousand.db")]
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if json.loads(line)["msg"] == "serving":
                process.send_signal(signal.SIGTERM)
                break
        _, rest = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, rest
    assert [json.loads(line)["msg"] for line in rest.splitlines()][-2:] == ["draining", "stopped"]


def _container_env(patch: dict[str, Any], files: dict[str, Path]) -> dict[str, str]:
    """The TLS component's container env, its /tls/ files replaced by the test's."""
    container = patch["spec"]["template"]["spec"]["containers"][0]
    env = {}
    for item in container["env"]:
        value = item["value"]
        env[item["name"]] = str(files[value]) if value in files else value
    return env


def test_a_tls_only_server_is_probed_healthy_as_the_image_and_manifests_probe_it(tmp_path: Path) -> None:
    """Issue #30, 2: with --tls-cert/--tls-key the probe speaks TLS (the CA, the server name): the image's
    HEALTHCHECK and the Kubernetes TLS component's exec probes, run as written with the container's env,
    report a TLS-only server healthy (the plaintext probe of before fails against it)."""
    ca, cert, key = ca_issued(tmp_path, "thousand.test")  # no 127.0.0.1 in it: the name must be checked
    component = ROOT / "deploy" / "k8s" / "tls"
    kustomization = yaml.safe_load((component / "kustomization.yaml").read_text())
    assert kustomization["kind"] == "Component"
    patch = yaml.safe_load((component / kustomization["patches"][0]["path"]).read_text())
    container = patch["spec"]["template"]["spec"]["containers"][0]
    mount = container["volumeMounts"][0]["mountPath"]
    files = {f"{mount}/tls.crt": cert, f"{mount}/tls.key": key, f"{mount}/ca.crt": ca}
    env = _container_env(patch, files)
    assert set(env) == {"THOUSAND_TLS_CERT", "THOUSAND_TLS_KEY", "THOUSAND_TLS_CA"}
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    healthcheck = json.loads(dockerfile.split("HEALTHCHECK", 1)[1].split("CMD", 1)[1].splitlines()[0])

    tls = ("--tls-cert", str(cert), "--tls-key", str(key))
    with live_server(tmp_path, ":memory:", *tls, ca=ca, server_name="thousand.test") as server:
        base = {**os.environ, "THOUSAND_HOST": "0.0.0.0", "THOUSAND_PORT": str(server.port), **env}
        named = {**base, "THOUSAND_TLS_SERVER_NAME": "thousand.test"}
        advertised = {**base, "THOUSAND_ADVERTISE_ADDRESS": f"thousand.test:{server.port}"}

        def probe_with(command: list[str], probe_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
            argv = [sys.executable, *command[1:]] if command[0] == "python" else command
            return subprocess.run(
                argv,
                check=False,
                cwd=tmp_path,
                env={**probe_env, "PYTHONPATH": str(ROOT)},
                capture_output=True,
                text=True,
                timeout=60,
            )

        probes = [container[name] for name in ("startupProbe", "livenessProbe", "readinessProbe")]
        assert all(probe["grpc"] is None for probe in probes)  # null: the patch removes the gRPC probe
        for command in [*(probe["exec"]["command"] for probe in probes), healthcheck]:
            for probe_env in (named, advertised):
                done = probe_with(command, probe_env)
                assert done.returncode == 0, (command, done.stderr)
                assert "SERVING" in done.stdout
        # The plaintext probe of before fails against a TLS-only server, and so does a wrong name.
        plain = probe_with([*healthcheck, "--no-tls"], named)
        assert plain.returncode == 1
        wrong = probe_with(healthcheck, {**base, "THOUSAND_TLS_SERVER_NAME": "other.test"})
        assert wrong.returncode == 1


def test_a_draining_server_waits_for_one_last_scrape_of_its_final_counts(tmp_path: Path) -> None:
    """Issue #30, 5: with --final-scrape-seconds a drained server stays up until Prometheus has scraped it
    once more (what it counted since the scrape before is not lost), then exits at once."""
    metrics_port = free_port()
    env = {**os.environ, "THOUSAND_LOG_FORMAT": "json", "THOUSAND_SHUTDOWN_GRACE": "1"}
    env["THOUSAND_FINAL_SCRAPE_SECONDS"] = "30"
    argv = [sys.executable, "-m", "server.app", "--port", "0", "--metrics-port", str(metrics_port)]
    argv += ["--db", str(tmp_path / "thousand.db")]
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)

    def until(msg: str) -> dict[str, Any]:
        assert process.stderr is not None
        for line in process.stderr:
            if json.loads(line)["msg"] == msg:
                return dict(json.loads(line))
        raise AssertionError(f"the server exited before {msg!r}")

    try:
        serving = until("serving")
        assert probe.main(["--address", f"127.0.0.1:{serving['port']}"], {}) == 0
        process.send_signal(signal.SIGTERM)
        assert until("waiting for a final scrape")["timeout_s"] == 30
        time.sleep(1)
        assert process.poll() is None  # drained, stores closed, and still there to be scraped
        scraped = Scrape(fetch(f"http://127.0.0.1:{metrics_port}/metrics"))
        health = {"grpc_service": "grpc.health.v1.Health", "grpc_method": "Check", "grpc_code": "OK"}
        assert scraped.value("grpc_server_handled_total", **health) == 1
        started = time.monotonic()
        assert until("final scrape")["scraped"] is True
        process.wait(timeout=10)
        assert time.monotonic() - started < 5
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0


def test_the_memory_limit_is_read_from_the_control_group(tmp_path: Path) -> None:
    """thousand_memory_limit_bytes: cgroup v2's memory.max or v1's memory.limit_in_bytes, none when
    unlimited (issue #30, 4: the memory alert compares the resident memory with it)."""
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.max").write_text("1073741824\n")
    assert memory_limit(v2) == 1 << 30
    (v2 / "memory.max").write_text("max\n")
    assert memory_limit(v2) is None
    v1 = tmp_path / "v1" / "memory"
    v1.mkdir(parents=True)
    (v1 / "memory.limit_in_bytes").write_text("536870912\n")
    assert memory_limit(v1.parent) == 1 << 29
    (v1 / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert memory_limit(v1.parent) is None
    assert memory_limit(tmp_path / "none") is None
    limited = CollectorRegistry()
    (v2 / "memory.max").write_text("268435456\n")
    limited.register(MemoryLimitCollector(v2))
    assert limited.get_sample_value("thousand_memory_limit_bytes") == 1 << 28
