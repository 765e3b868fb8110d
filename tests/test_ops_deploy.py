"""deploy/ and docs/operations.md, parsed and cross-checked: the Dockerfile, the compose file, Prometheus's
configuration and alert rules (with promtool when it is installed), the Grafana dashboard and the Kubernetes
manifests agree with each other and with the server (its settings, ports, health services and metric names).
Docker is not needed: nothing is built or run."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import tomllib
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from server.cluster import Figures
from server.cluster_flags import node_settings
from server.cluster_metrics import ClusterCollector, StoreCollector
from server.matchmaking.metrics import QuickPlayMetrics
from server.metrics import Metrics
from server.process_metrics import MemoryLimitCollector
from server.registry import Registry
from server.service import SERVICE_NAME
from server.settings import SHUTDOWN_GRACE_SECONDS, Settings, parse_settings
from server.store_select import open_store
from server.telemetry import Telemetry

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
DOCS = ROOT / "docs" / "operations.md"
PROMTOOL = shutil.which("promtool")
SCRAPE_INTERVAL_SECONDS = 15
"""prometheus.yml's (a common one): a draining server waits longer than this for its last scrape."""
METRIC_NAME = re.compile(r"\b(?:grpc_server_\w+|thousand_\w+|process_\w+|python_\w+|up)\b")


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def load_all(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def _cluster_node_figures() -> Any:
    """What :class:`ClusterCollector` reads of a node, with nothing done yet: for the names of its families
    (a real node needs PostgreSQL; tests/test_cluster.py scrapes one)."""
    return SimpleNamespace(
        figures=Figures(),
        store=SimpleNamespace(holdings={}),
        lease_age=0.0,
        settings=SimpleNamespace(lease_seconds=5.0),
        rebalancer=SimpleNamespace(waiting=None, paused=False),
    )


@cache
def exposed() -> frozenset[str]:
    """Every sample name the server's /metrics can show (counters as _total, histograms in three parts,
    summaries in two): a server's own, its store's, a cluster node's, quick play's, and the memory limit
    when it has one."""
    metrics = Metrics()
    metrics.watch(Registry(), Telemetry())
    metrics.registry.register(StoreCollector(open_store(":memory:")))
    metrics.registry.register(ClusterCollector(_cluster_node_figures()))
    QuickPlayMetrics(metrics.registry)
    limit = Path(tempfile.mkdtemp()) / "cgroup"
    limit.mkdir()
    (limit / "memory.max").write_text("1073741824\n")
    metrics.registry.register(MemoryLimitCollector(limit))
    names = {"up"}
    for family in metrics.registry.collect():
        if family.type == "counter":
            names.add(f"{family.name}_total")
        elif family.type == "histogram":
            names |= {f"{family.name}_bucket", f"{family.name}_count", f"{family.name}_sum"}
        elif family.type == "summary":
            names |= {f"{family.name}_count", f"{family.name}_sum"}
        else:
            names.add(family.name)
    return frozenset(names)


def families() -> set[str]:
    """Our own metric families (grpc_server_* and thousand_*), as documented."""
    metrics = Metrics()
    metrics.watch(Registry(), Telemetry())
    found = set()
    for family in metrics.registry.collect():
        if family.name.startswith(("grpc_server_", "thousand_")):
            found.add(f"{family.name}_total" if family.type == "counter" else family.name)
    return found


def assert_known_metrics(expr: str, where: str) -> None:
    names = set(METRIC_NAME.findall(expr))
    assert names, f"{where}: no metric in {expr!r}"
    unknown = names - exposed()
    assert not unknown, f"{where}: {sorted(unknown)} are not metrics the server exposes"


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown document."""
    found = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def settings_from(env: dict[str, str]) -> Settings:
    return parse_settings([], env)


# ---------------------------------------------------------------- Prometheus


def alert_rules() -> list[dict[str, Any]]:
    rules = [
        rule for group in load_yaml(DEPLOY / "prometheus" / "alerts.yml")["groups"] for rule in group["rules"]
    ]
    assert rules
    return rules


def test_alert_rules_are_complete_and_use_exposed_metrics() -> None:
    doc_anchors = anchors(DOCS.read_text())
    names = [rule["alert"] for rule in alert_rules()]
    assert len(set(names)) == len(names)
    # the issue's four concerns: errors, latency, tables without progress, stream lag; and issue #30's:
    # a vanished target, the store, loop stalls, the cluster's lease and dead nodes, memory
    for needed in (
        "ThousandHighErrorRate",
        "ThousandHighLatency",
        "ThousandBotTableStuck",
        "ThousandStreamsLagging",
        "ThousandServerAbsent",
        "ThousandStoreFailing",
        "ThousandEventLoopStalled",
        "ThousandClusterLeaseStale",
        "ThousandClusterNodeDeclaredDead",
        "ThousandMemoryNearLimit",
    ):
        assert needed in names
    # no aggregation drops the target's labels: in a cluster every alert says which node
    for rule in alert_rules():
        assert not re.search(r"\bby\s*\(", rule["expr"]), f"{rule['alert']}: aggregate `without (...)`"
        assert "absent(" in rule["expr"] or "instance" in rule["annotations"]["summary"], rule["alert"]
    # a deploy's TABLE_MOVING (Unavailable) is no server error: only the store's alert covers that code
    (errors,) = [rule for rule in alert_rules() if rule["alert"] == "ThousandHighErrorRate"]
    assert "Unavailable" not in errors["expr"]
    for rule in alert_rules():
        assert re.fullmatch(r"Thousand[A-Z]\w+", rule["alert"])
        assert rule["labels"]["severity"] in ("critical", "warning", "info")
        assert re.fullmatch(r"\d+m", rule["for"])
        assert {"summary", "description", "runbook"} <= set(rule["annotations"])
        page, _, anchor = rule["annotations"]["runbook"].partition("#")
        assert page == "docs/operations.md" and anchor == rule["alert"].lower() and anchor in doc_anchors
        assert_known_metrics(rule["expr"], rule["alert"])


def test_prometheus_scrapes_the_server_with_the_rules() -> None:
    config = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")
    compose = load_yaml(DEPLOY / "compose.yaml")
    (job,) = config["scrape_configs"]
    assert job["job_name"] == "thousand"  # the alerts select up{job="thousand"}
    metrics_port = settings_from(compose["services"]["server"]["environment"]).metrics_port
    assert job["static_configs"][0]["targets"] == [f"server:{metrics_port}"]
    mounts = dict(volume.split(":")[:2] for volume in compose["services"]["prometheus"]["volumes"])
    assert mounts["./prometheus/alerts.yml"] in config["rule_files"]


@pytest.mark.skipif(
    PROMTOOL is None and not os.environ.get("CI"),
    reason="promtool is not installed (Debian package prometheus; `make test` installs it as root)",
)
def test_promtool_checks_the_rules_config_and_alert_unit_tests(tmp_path: Path) -> None:
    assert PROMTOOL is not None
    rules = DEPLOY / "prometheus" / "alerts.yml"

    def promtool(*args: str) -> str:
        done = subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    assert f"SUCCESS: {len(alert_rules())} rules found" in promtool("check", "rules", str(rules))
    assert "SUCCESS" in promtool("test", "rules", str(DEPLOY / "prometheus" / "alerts_test.yml"))
    config = (DEPLOY / "prometheus" / "prometheus.yml").read_text()
    local = tmp_path / "prometheus.yml"
    local.write_text(config.replace("/etc/prometheus/alerts.yml", str(rules)))
    assert "1 rule files found" in promtool("check", "config", str(local))


def test_the_alert_unit_tests_cover_every_alert() -> None:
    tests = load_yaml(DEPLOY / "prometheus" / "alerts_test.yml")
    tested = {
        case["alertname"] for test in tests["tests"] for case in test["alert_rule_test"] if case["exp_alerts"]
    }
    assert tested >= {rule["alert"] for rule in alert_rules()} - {"ThousandTablesIdle"}


# ---------------------------------------------------------------- Grafana


def test_dashboard_panels_query_exposed_metrics() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "thousand.json").read_text())
    assert dashboard["uid"] == "thousand-server" and dashboard["title"]
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert (
        variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    )
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    queried: set[str] = set()
    for panel in panels:
        assert panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert_known_metrics(target["expr"], panel["title"])
            queried |= set(METRIC_NAME.findall(target["expr"]))
    # every metric of the issue is on the dashboard
    for family in families():
        assert {family, f"{family}_bucket"} & queried, f"{family} is on no panel"


def test_dashboard_has_store_and_cluster_panels() -> None:
    """Issue #30, 4: the store's and the cluster's metrics are on the dashboard, each node on its own line,
    and the memory panel shows the limit the alert compares with."""
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "thousand.json").read_text())
    rows = {p["title"] for p in dashboard["panels"] if p["type"] == "row"}
    assert {"Store", "Cluster"} <= rows
    exprs = [t["expr"] for p in dashboard["panels"] if p["type"] != "row" for t in p["targets"]]
    queried = {name for expr in exprs for name in METRIC_NAME.findall(expr)}
    store_and_cluster = {n for n in exposed() if n.startswith(("thousand_store_", "thousand_cluster_"))}
    assert store_and_cluster and store_and_cluster <= queried, store_and_cluster - queried
    assert "thousand_memory_limit_bytes" in queried
    for expr in exprs:
        if re.search(r"thousand_(store|cluster)_", expr):
            assert not re.search(r"\b(sum|max|min|avg)\s*(by\s*\([^)]*\))?\s*\(", expr), expr


def test_grafana_provisioning_matches_compose() -> None:
    compose = load_yaml(DEPLOY / "compose.yaml")["services"]["grafana"]
    mounts = dict(volume.split(":")[:2] for volume in compose["volumes"])
    datasource = load_yaml(DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yaml")
    (source,) = datasource["datasources"]
    assert (
        source["type"] == "prometheus" and source["url"] == "http://prometheus:9090" and source["isDefault"]
    )
    provider = load_yaml(DEPLOY / "grafana" / "provisioning" / "dashboards" / "thousand.yaml")["providers"][0]
    assert mounts["./grafana/dashboards"] == provider["options"]["path"]
    assert mounts["./grafana/provisioning"] == "/etc/grafana/provisioning"
    home = compose["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{provider['options']['path']}/thousand.json"


# ---------------------------------------------------------------- compose and Dockerfile


def test_compose_starts_the_server_prometheus_and_grafana() -> None:
    compose = load_yaml(DEPLOY / "compose.yaml")
    services = compose["services"]
    assert set(services) == {"server", "prometheus", "grafana"}
    server = services["server"]
    context = (DEPLOY / server["build"]["context"]).resolve()
    assert context == ROOT and (context / server["build"]["dockerfile"]).is_file()
    settings = settings_from(server["environment"])
    assert settings.host == "0.0.0.0" and settings.metrics_port > 0
    assert server["ports"] == [f"{settings.port}:{settings.port}", f"{settings.web_port}:{settings.web_port}"]
    data = next(v.split(":")[1] for v in server["volumes"])
    assert Path(settings.db).parent == Path(data)
    assert (
        int(server["stop_grace_period"].rstrip("s")) > settings.shutdown_grace + settings.final_scrape_seconds
    )
    assert settings.final_scrape_seconds > SCRAPE_INTERVAL_SECONDS
    for name, service in services.items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name}: {source}"
            else:
                assert source in compose["volumes"], f"{name}: {source}"
        if name != "server":
            assert all(str(port).startswith("127.0.0.1:") for port in service["ports"])


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", (DEPLOY / "Dockerfile").read_text())
    steps = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            instruction, _, arguments = line.strip().partition(" ")
            steps.append((instruction.upper(), arguments.strip()))
    return steps


def test_dockerfile_is_multi_stage_non_root_with_a_health_probe() -> None:
    steps = dockerfile()
    stages = [args for instruction, args in steps if instruction == "FROM"]
    assert len(stages) == 3 and stages[0].endswith(" AS web") and stages[1].endswith(" AS build")
    final = steps[max(i for i, (instruction, _) in enumerate(steps) if instruction == "FROM") :]
    (user,) = [args for instruction, args in final if instruction == "USER"]
    uid = int(user.split(":")[0])
    assert uid >= 1000
    assert any(i == "COPY" and args.startswith("--from=build ") for i, args in final)
    (web_files,) = [args.split()[-1] for i, args in final if i == "COPY" and args.startswith("--from=web ")]
    (healthcheck,) = [args for instruction, args in final if instruction == "HEALTHCHECK"]
    command = json.loads(healthcheck.split(" CMD ", 1)[1])
    assert command[:3] == ["python", "-m", "server.probe"] and SERVICE_NAME in command
    env = dict(pair.split("=", 1) for i, args in final if i == "ENV" for pair in shlex.split(args))
    settings = settings_from(env)
    assert settings.host == "0.0.0.0" and settings.log_format == "json"
    assert settings.db.startswith("/data/")
    assert settings.web_port > 0 and settings.web_root == web_files
    starts = [i for i, (instruction, _) in enumerate(steps) if instruction == "FROM"]
    web_stage = steps[starts[0] : starts[1]]
    assert ("RUN", "npm ci") in web_stage and any(
        a.startswith("npm run build") for i, a in web_stage if i == "RUN"
    )
    (exposed_ports,) = [args for instruction, args in final if instruction == "EXPOSE"]
    expected = sorted([settings.port, settings.web_port, settings.metrics_port])
    assert sorted(map(int, exposed_ports.split())) == expected
    (entrypoint,) = [args for instruction, args in final if instruction == "ENTRYPOINT"]
    script = json.loads(entrypoint)[0]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"][script] == "server.app:main"


def test_dockerignore_lets_in_every_package_the_image_installs() -> None:
    rules = [
        line
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line and line[0] != "#"
    ]
    assert rules[0] == "*"
    allowed = {rule[1:] for rule in rules if rule.startswith("!")}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {
        pattern.rstrip("*") for pattern in project["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    assert packages <= allowed
    assert {"pyproject.toml", project["project"]["readme"], "setup.py"} <= allowed
    backend = project["build-system"]
    for directory in backend["backend-path"]:  # the in-tree build backend, and what it and setup.py import
        module = f"{directory}/{backend['build-backend']}.py"
        assert {module, f"{directory}/__init__.py", f"{directory}/compiled_engine.py"} <= allowed


# ---------------------------------------------------------------- Kubernetes


def manifests() -> dict[str, dict[str, Any]]:
    """The kustomization's resources and the optional ServiceMonitor, by kind/name."""
    kustomization = load_yaml(DEPLOY / "k8s" / "kustomization.yaml")
    found = {}
    for resource in [*kustomization["resources"], "servicemonitor.yaml"]:
        for doc in load_all(DEPLOY / "k8s" / resource):
            found[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return found


def test_kubernetes_statefulset_probes_volume_grace_and_resources() -> None:
    objects = manifests()
    statefulset = objects["StatefulSet/thousand"]
    spec = statefulset["spec"]
    assert spec["replicas"] == 1
    assert f"Service/{spec['serviceName']}" in objects
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    settings = settings_from(env)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": settings.port, "web": settings.web_port, "metrics": settings.metrics_port}
    assert settings.host == "0.0.0.0" and settings.log_format == "json"
    # the store lives on the claimed volume
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    (claim,) = spec["volumeClaimTemplates"]
    assert Path(settings.db).parent == Path(mounts[claim["metadata"]["name"]])
    # gRPC probes: liveness on the whole server, readiness on the game service
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["grpc"]["port"] == settings.port
    assert container["readinessProbe"]["grpc"]["service"] == SERVICE_NAME
    assert container["livenessProbe"]["grpc"].get("service", "") == ""
    liveness = container["livenessProbe"]
    assert (
        liveness["periodSeconds"] * liveness["failureThreshold"] > settings.shutdown_grace
    )  # no kill mid-drain
    # the kubelet waits longer than the server's drain
    assert settings.shutdown_grace >= SHUTDOWN_GRACE_SECONDS
    assert pod["terminationGracePeriodSeconds"] >= settings.shutdown_grace + settings.final_scrape_seconds + 5
    assert settings.final_scrape_seconds > SCRAPE_INTERVAL_SECONDS
    assert {"cpu", "memory"} <= set(container["resources"]["requests"])
    assert "memory" in container["resources"]["limits"]
    # non-root, as the image
    uid = int(next(args for i, args in reversed(dockerfile()) if i == "USER").split(":")[0])
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] == uid
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    # scraping by annotations
    annotations = spec["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == settings.metrics_port
    kustomization = load_yaml(DEPLOY / "k8s" / "kustomization.yaml")
    assert container["image"] in {image["name"] for image in kustomization["images"]}


def test_kubernetes_services_budget_and_monitor_select_the_pod() -> None:
    objects = manifests()
    template = objects["StatefulSet/thousand"]["spec"]["template"]
    labels: dict[str, str] = template["metadata"]["labels"]
    port_names = {p["name"] for p in template["spec"]["containers"][0]["ports"]}

    def selects(selector: dict[str, str]) -> bool:
        return selector.items() <= labels.items()

    for name in ("Service/thousand", "Service/thousand-headless"):
        service = objects[name]["spec"]
        assert selects(service["selector"])
        assert {p["targetPort"] for p in service["ports"]} <= port_names
    assert objects["Service/thousand-headless"]["spec"]["clusterIP"] == "None"
    budget = objects["PodDisruptionBudget/thousand"]["spec"]
    assert selects(budget["selector"]["matchLabels"]) and budget["minAvailable"] == 1
    monitor = objects["ServiceMonitor/thousand"]["spec"]
    service_labels = objects["Service/thousand"]["metadata"]["labels"]
    assert monitor["selector"]["matchLabels"].items() <= service_labels.items()
    assert [e["port"] for e in monitor["endpoints"]] == ["metrics"]
    assert "metrics" in {p["name"] for p in objects["Service/thousand"]["spec"]["ports"]}


# ---------------------------------------------------------------- the operator's guide


def test_the_guide_documents_flags_environment_metrics_and_alerts() -> None:
    guide = DOCS.read_text()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parse_settings(["--help"], {})
    for flag in set(re.findall(r"--[a-z][a-z-]+", out.getvalue())) - {"--help"}:
        assert f"`{flag}" in guide, flag
    for variable in set(re.findall(r"THOUSAND_[A-Z_]+", (ROOT / "server" / "app.py").read_text())):
        assert f"`{variable}`" in guide, variable
    for family in families():
        assert f"`{family}`" in guide, family
    for rule in alert_rules():
        assert f"### {rule['alert']}" in guide
    assert "`x-request-id`" in guide and "`python -m server.probe`" in guide


# ---------------------------------------------------------------- a cluster: Kubernetes and compose


def cluster_manifests() -> dict[str, dict[str, Any]]:
    kustomization = load_yaml(DEPLOY / "k8s" / "cluster" / "kustomization.yaml")
    found = {}
    for resource in kustomization["resources"]:
        for doc in load_all(DEPLOY / "k8s" / "cluster" / resource):
            found[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return found


def expanded(env: list[dict[str, Any]], pod: dict[str, str]) -> dict[str, str]:
    """A container's environment as the kubelet gives it to a pod: fieldRefs from ``pod``, $(VAR) expanded;
    a secret's value stands as SECRET:name/key."""
    values: dict[str, str] = {}
    for entry in env:
        if "value" in entry:
            values[entry["name"]] = re.sub(r"\$\((\w+)\)", lambda m: values[m.group(1)], entry["value"])
        elif "fieldRef" in entry["valueFrom"]:
            values[entry["name"]] = pod[entry["valueFrom"]["fieldRef"]["fieldPath"]]
        else:
            ref = entry["valueFrom"]["secretKeyRef"]
            values[entry["name"]] = f"SECRET:{ref['name']}/{ref['key']}"
    return values


def test_kubernetes_cluster_nodes_share_the_database_and_each_is_reachable() -> None:
    objects = cluster_manifests()
    statefulset = objects["StatefulSet/thousand"]
    spec = statefulset["spec"]
    assert spec["replicas"] >= 2 and "volumeClaimTemplates" not in spec  # the tables live in PostgreSQL
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    headless = objects[f"Service/{spec['serviceName']}"]
    assert headless["spec"]["clusterIP"] == "None" and headless["spec"]["publishNotReadyAddresses"]
    names = {f"thousand-{i}" for i in range(spec["replicas"])}
    advertised = set()
    for name in names:
        env = expanded(container["env"], {"metadata.name": name, "metadata.namespace": "games"})
        # every node names the database by the operator's secret: the URL of the primary
        assert env.pop("THOUSAND_DB") == "SECRET:thousand-db-app/uri"
        settings = settings_from({**env, "THOUSAND_DB": "postgresql://thousand@db:5432/thousand"})
        assert settings.node_id == name
        host, _, port = settings.advertise_address.rpartition(":")
        assert host == f"{name}.{headless['metadata']['name']}.games.svc.cluster.local"
        assert int(port) == settings.port
        assert 0.5 <= settings.lease_seconds <= 30
        advertised.add(settings.advertise_address)
        # issue #30, 6: the web port is set, declared and exposed on the name each node advertises it on
        web = node_settings(
            settings.node_id,
            settings.advertise_address,
            settings.host,
            settings.port,
            web_port=settings.web_port,
            lease_seconds=settings.lease_seconds,
            placement=settings.placement,
            finished_kept_seconds=settings.table_idle_seconds,
        ).web_endpoint
        assert web == f"{host}:{settings.web_port}" and settings.web_port
        declared = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert declared["web"] == settings.web_port
        exposed_ports = {p["name"]: p for p in headless["spec"]["ports"]}
        assert (
            exposed_ports["web"]["port"] == settings.web_port and exposed_ports["web"]["targetPort"] == "web"
        )
    assert len(advertised) == len(names)
    # readiness is the game service (which needs the database and the lease); liveness the process
    assert container["readinessProbe"]["grpc"]["service"] == SERVICE_NAME
    assert container["livenessProbe"]["grpc"].get("service", "") == ""
    assert pod["terminationGracePeriodSeconds"] >= settings.shutdown_grace + settings.final_scrape_seconds + 5
    assert settings.final_scrape_seconds > SCRAPE_INTERVAL_SECONDS
    # one node at a time may be drained; the client service spreads over every node
    budget = objects["PodDisruptionBudget/thousand"]["spec"]
    assert budget["maxUnavailable"] == 1
    labels = spec["template"]["metadata"]["labels"]
    for service in ("Service/thousand", "Service/thousand-headless"):
        assert objects[service]["spec"]["selector"].items() <= labels.items()
    assert budget["selector"]["matchLabels"].items() <= labels.items()


def test_kubernetes_cluster_postgres_has_a_synchronous_standby() -> None:
    database = cluster_manifests()["Cluster/thousand-db"]
    assert database["apiVersion"].startswith("postgresql.cnpg.io/")
    spec = database["spec"]
    assert spec["instances"] >= 2
    assert spec["postgresql"]["synchronous"]["number"] >= 1  # a commit is on two machines before its ack
    assert spec["bootstrap"]["initdb"]["database"] == "thousand"
    # CloudNativePG names the application secret <cluster>-app; the nodes read its uri
    statefulset = cluster_manifests()["StatefulSet/thousand"]
    (container,) = statefulset["spec"]["template"]["spec"]["containers"]
    (db,) = [e for e in container["env"] if e["name"] == "THOUSAND_DB"]
    assert db["valueFrom"]["secretKeyRef"] == {"name": f"{database['metadata']['name']}-app", "key": "uri"}


def test_compose_cluster_runs_two_nodes_on_one_postgres() -> None:
    compose = load_yaml(DEPLOY / "compose.cluster.yaml")
    services = compose["services"]
    assert set(services) == {"postgres", "node-a", "node-b"}
    postgres = services["postgres"]
    nodes = [services["node-a"], services["node-b"]]
    ids, addresses, web_ports = set(), set(), set()
    for node in nodes:
        env = {k: str(v) for k, v in node["environment"].items()}
        url = env["THOUSAND_DB"].replace("${POSTGRES_PASSWORD:-thousand}", "thousand")
        settings = settings_from({**env, "THOUSAND_DB": url})
        assert settings.db.startswith("postgresql://") and "@postgres:5432/" in settings.db
        assert settings.db.rsplit("/", 1)[1] == postgres["environment"]["POSTGRES_DB"]
        # What a client on the host reaches: the gRPC port, and the web port the node advertises beside it.
        assert node["ports"] == [
            f"{settings.port}:{settings.port}",
            f"{settings.web_port}:{settings.web_port}",
        ]
        assert settings.advertise_address == f"localhost:{settings.port}"
        web_ports.add(settings.web_port)
        assert node["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert int(node["stop_grace_period"].rstrip("s")) > settings.shutdown_grace
        ids.add(settings.node_id)
        addresses.add(settings.advertise_address)
    assert len(ids) == len(addresses) == len(web_ports) == 2
    assert "pg_isready" in postgres["healthcheck"]["test"]
