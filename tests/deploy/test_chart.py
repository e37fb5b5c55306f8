"""Tests of the Helm chart in helm/gnau-scoring.

Three layers, cheapest guarantees first:

1. ``helm lint --strict`` with the default values and with every optional part on
   (``helm/ci-values-all-on.yaml``); lint also enforces ``values.schema.json``.
2. Every rendered manifest is validated offline with ``kubernetes-validate --strict``
   (unknown fields are errors). The one exception is the ServiceMonitor: it is a CRD
   (monitoring.coreos.com/v1) that kubernetes-validate ships no schema for, so its
   fields are checked by assertions in ``test_service_monitor_fields`` instead.
3. The rendered YAML is parsed and the properties that matter are asserted: hardening,
   probes, resources, the config checksum, HPA/PDB wiring, optional kinds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .support import (
    ALL_ON_VALUES,
    CHART_DIR,
    NAMESPACE,
    RELEASE,
    REPO_ROOT,
    Manifest,
    Rendered,
    run_helm,
)

# Kubernetes versions to validate against: the oldest we target and the client
# version of the helm we fetch. Both must be shipped by kubernetes-validate.
K8S_VERSIONS = ["1.30.0", "1.35.0"]
# Custom resources kubernetes-validate has no schema for; checked by hand below.
CRD_KINDS = {"ServiceMonitor"}
DEFAULT_KINDS = {
    "Deployment",
    "Service",
    "ServiceAccount",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    "Pod",
}
OPTIONAL_KINDS = {"ConfigMap", "Ingress", "NetworkPolicy", "ServiceMonitor"}
APP_UID = 10001
FULLNAME = f"{RELEASE}-gnau-scoring"

Render = Callable[..., Rendered]


def values_yaml() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CHART_DIR / "values.yaml").read_text())
    return data


def app_docs(rendered: Rendered) -> list[Manifest]:
    """Rendered documents except helm test hooks."""
    return [doc for doc in rendered.docs if "helm.sh/hook" not in (doc["metadata"].get("annotations") or {})]


def pod_template_labels(rendered: Rendered) -> dict[str, str]:
    labels: dict[str, str] = rendered.deployment["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def walk(node: Any) -> Iterator[tuple[str, Any]]:
    """Yield (key, value) for every mapping entry in a nested JSON-like structure."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


# --------------------------------------------------------------------------- lint


@pytest.mark.parametrize("values", [None, ALL_ON_VALUES], ids=["default", "all-on"])
def test_helm_lint_strict(helm: Path, values: Path | None) -> None:
    args = ["lint", "--strict", str(CHART_DIR)]
    if values is not None:
        args += ["--values", str(values)]
    proc = run_helm(helm, *args, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 chart(s) failed" in proc.stdout
    assert "[WARNING]" not in proc.stdout
    assert "[ERROR]" not in proc.stdout


@pytest.mark.parametrize("values", [None, ALL_ON_VALUES], ids=["default", "all-on"])
def test_notes_render(helm: Path, values: Path | None) -> None:
    """NOTES.txt is only rendered by install/upgrade; a client-side dry run needs no cluster."""
    args = ["install", RELEASE, str(CHART_DIR), "--namespace", NAMESPACE, "--dry-run=client"]
    if values is not None:
        args += ["--values", str(values)]
    proc = run_helm(helm, *args)
    notes = proc.stdout.split("NOTES:", 1)[1]
    assert f"deployment/{FULLNAME}" in notes
    assert "<no value>" not in notes


# --------------------------------------------------------------- offline validation


@pytest.mark.parametrize("k8s_version", K8S_VERSIONS)
def test_manifests_validate_strictly(any_render: Rendered, k8s_version: str, tmp_path: Path) -> None:
    """kubernetes-validate --strict passes every non-CRD document, with no warnings."""
    docs = [doc for doc in any_render.docs if doc["kind"] not in CRD_KINDS]
    manifest_file = tmp_path / "manifests.yaml"
    manifest_file.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    proc = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "-k", k8s_version, str(manifest_file)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "WARN" not in output, output
    assert "ERROR" not in output, output
    assert output.count(" passed for resource ") == len(docs), output


def test_only_crds_lack_a_schema(all_on_render: Rendered) -> None:
    """The validation above skips exactly the CRD kinds, and those have no built-in schema."""
    import kubernetes_validate

    skipped = set()
    for doc in all_on_render.docs:
        try:
            kubernetes_validate.validate(doc, K8S_VERSIONS[0], strict=True)
        except kubernetes_validate.SchemaNotFoundError:
            skipped.add(doc["kind"])
    assert skipped == CRD_KINDS


def test_strict_validation_catches_unknown_fields(default_render: Rendered) -> None:
    """Guard against a validator that silently accepts anything."""
    import kubernetes_validate

    deployment = json.loads(json.dumps(default_render.deployment))
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContex"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSIONS[0], strict=True)


# ------------------------------------------------------------------ kinds on / off


def test_default_render_has_only_core_kinds(default_render: Rendered) -> None:
    assert default_render.kinds() == DEFAULT_KINDS


def test_all_on_render_has_every_kind(all_on_render: Rendered) -> None:
    assert all_on_render.kinds() == DEFAULT_KINDS | OPTIONAL_KINDS


@pytest.mark.parametrize(
    ("switch", "kind"),
    [
        ("serviceMonitor.enabled=true", "ServiceMonitor"),
        ("networkPolicy.enabled=true", "NetworkPolicy"),
        ("ingress.enabled=true", "Ingress"),
    ],
)
def test_optional_kind_appears_only_when_switched_on(render: Render, switch: str, kind: str) -> None:
    rendered = render("--set", switch)
    assert rendered.kinds() == DEFAULT_KINDS | {kind}


def test_configmap_appears_only_with_profiles(render: Render, default_render: Rendered) -> None:
    assert "ConfigMap" not in default_render.kinds()
    rendered = render("--set-json", 'profiles={"p1":{"extends":"standard","description":"P one"}}')
    assert rendered.kinds() == DEFAULT_KINDS | {"ConfigMap"}


def test_hpa_and_pdb_can_be_switched_off(render: Render) -> None:
    rendered = render(
        "--set",
        "autoscaling.enabled=false",
        "--set",
        "podDisruptionBudget.enabled=false",
        "--set",
        "replicaCount=3",
    )
    assert rendered.kinds() == DEFAULT_KINDS - {"HorizontalPodAutoscaler", "PodDisruptionBudget"}
    assert rendered.deployment["spec"]["replicas"] == 3


# ------------------------------------------------------------------------ security


def test_pod_security_context(any_render: Rendered) -> None:
    ctx = any_render.pod_spec["securityContext"]
    assert ctx["runAsNonRoot"] is True
    assert ctx["runAsUser"] == APP_UID
    assert ctx["runAsGroup"] == APP_UID
    assert ctx["seccompProfile"] == {"type": "RuntimeDefault"}


def test_container_security_context(any_render: Rendered) -> None:
    ctx = any_render.container["securityContext"]
    assert ctx["runAsNonRoot"] is True
    assert ctx["runAsUser"] == APP_UID
    assert ctx["runAsGroup"] == APP_UID
    assert ctx["readOnlyRootFilesystem"] is True
    assert ctx["allowPrivilegeEscalation"] is False
    assert ctx.get("privileged", False) is False
    assert ctx["capabilities"] == {"drop": ["ALL"]}
    assert ctx["seccompProfile"] == {"type": "RuntimeDefault"}


def test_helm_test_pod_is_hardened_too(any_render: Rendered) -> None:
    (pod,) = any_render.all_of("Pod")
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    assert pod["spec"]["automountServiceAccountToken"] is False
    ctx = pod["spec"]["containers"][0]["securityContext"]
    assert ctx["readOnlyRootFilesystem"] is True
    assert ctx["capabilities"] == {"drop": ["ALL"]}
    # Must not be mistaken for an app pod by the Service, HPA or PDB.
    service_selector = any_render.one("Service")["spec"]["selector"]
    assert not selects(service_selector, pod["metadata"]["labels"])


def test_service_account_token_not_automounted(any_render: Rendered) -> None:
    account = any_render.one("ServiceAccount")
    assert account["automountServiceAccountToken"] is False
    assert any_render.pod_spec["automountServiceAccountToken"] is False
    assert any_render.pod_spec["serviceAccountName"] == account["metadata"]["name"]


def test_pod_spec_hygiene(any_render: Rendered) -> None:
    spec = any_render.pod_spec
    assert spec["enableServiceLinks"] is False
    assert not {"hostNetwork", "hostPID", "hostIPC"} & set(spec)
    image = any_render.container["image"]
    assert not image.endswith(":latest")
    assert re.search(r"(:[\w.-]+|@sha256:[0-9a-f]{64})$", image.rsplit("/", 1)[-1]), image


def test_writable_tmp_is_an_empty_dir(any_render: Rendered) -> None:
    mounts = {m["mountPath"]: m for m in any_render.container["volumeMounts"]}
    volumes = {v["name"]: v for v in any_render.pod_spec["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]["name"]]
    assert volumes[mounts["/tmp"]["name"]]["emptyDir"].get("sizeLimit")


# ------------------------------------------------------------- probes, env, limits


def test_probes(any_render: Rendered) -> None:
    container = any_render.container
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": 8000, "probes": 8001}
    assert any_render.env()["GNAU_PROBE_BIND"] == "0.0.0.0:8001"
    expected_paths = {"startupProbe": "/healthz", "readinessProbe": "/readyz", "livenessProbe": "/healthz"}
    for probe_name, path in expected_paths.items():
        probe = container[probe_name]
        assert probe["httpGet"]["path"] == path, probe_name
        port = probe["httpGet"]["port"]
        # The master's probe listener: no client's request can queue a probe there.
        assert ports.get(port, port) == 8001, probe_name
        assert probe["periodSeconds"] > 0
        assert probe["failureThreshold"] > 0

    # Liveness must be more patient than readiness, or a slow pod is killed, not just unlisted.
    def patience(probe: Manifest) -> int:
        return int(probe["periodSeconds"] * probe["failureThreshold"])

    assert patience(container["livenessProbe"]) > patience(container["readinessProbe"])


def test_resources_requests_and_limits(any_render: Rendered) -> None:
    resources = any_render.container["resources"]
    for section in ("requests", "limits"):
        assert resources[section].get("cpu"), section
        assert resources[section].get("memory"), section


def test_gunicorn_env_comes_from_values(default_render: Rendered, all_on_render: Rendered) -> None:
    defaults = values_yaml()["gunicorn"]
    env = default_render.env()
    assert env["GNAU_BIND"] == "0.0.0.0:8000"
    assert env["GNAU_WORKERS"] == str(defaults["workers"])
    assert env["GNAU_WORKER_CONNECTIONS"] == str(defaults["workerConnections"])
    assert env["GNAU_GRACEFUL_TIMEOUT"] == str(defaults["gracefulTimeout"])
    assert env["GNAU_DRAIN_SECONDS"] == str(defaults["drainSeconds"])
    ci_values = yaml.safe_load(ALL_ON_VALUES.read_text())["gunicorn"]
    env = all_on_render.env()
    assert env["GNAU_WORKERS"] == str(ci_values["workers"])
    assert env["GNAU_WORKER_CONNECTIONS"] == str(ci_values["workerConnections"])
    assert env["GNAU_LOG_LEVEL"] == ci_values["logLevel"]
    assert env["EXTRA_SETTING"] == "on"


def test_cors_is_off_by_default_and_on_from_values(default_render: Rendered, all_on_render: Rendered) -> None:
    assert "GNAU_CORS_ORIGINS" not in default_render.env()
    assert all_on_render.env()["GNAU_CORS_ORIGINS"] == "https://game.example,http://localhost:3000"


def test_receipts_are_off_by_default_and_mounted_from_an_existing_secret(default_render: Rendered,
                                                                         all_on_render: Rendered) -> None:
    """``receipts.existingSecret`` (docs/deals-and-receipts.md): the Secret's
    ``receipt-key.pem`` signs, its other ``*.pem`` entries publish older keys; read-only,
    not readable by others; the chart never renders the Secret itself."""
    assert not {"GNAU_RECEIPT_KEY_FILE", "GNAU_RECEIPT_PUBLIC_KEYS"} & set(default_render.env())
    assert all(v["name"] != "receipt-keys" for v in default_render.pod_spec["volumes"])
    env = all_on_render.env()
    assert env["GNAU_RECEIPT_KEY_FILE"] == "/etc/gnau-receipts/receipt-key.pem"
    assert env["GNAU_RECEIPT_PUBLIC_KEYS"] == "/etc/gnau-receipts"
    [volume] = [v for v in all_on_render.pod_spec["volumes"] if v["name"] == "receipt-keys"]
    assert volume["secret"] == {"secretName": "gnau-receipts", "defaultMode": 0o440}
    [mount] = [m for m in all_on_render.container["volumeMounts"] if m["name"] == "receipt-keys"]
    assert mount == {"name": "receipt-keys", "mountPath": "/etc/gnau-receipts", "readOnly": True}
    assert "Secret" not in all_on_render.kinds()


def test_env_values_are_strings(any_render: Rendered) -> None:
    for item in any_render.container["env"]:
        assert isinstance(item.get("value"), str), item


def test_shutdown_fits_in_grace_period(any_render: Rendered) -> None:
    pre_stop = any_render.container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "/bin/sleep"
    sleep_seconds = int(pre_stop[1])
    drain = int(any_render.env()["GNAU_DRAIN_SECONDS"])
    graceful = int(any_render.env()["GNAU_GRACEFUL_TIMEOUT"])
    assert any_render.pod_spec["terminationGracePeriodSeconds"] > sleep_seconds + drain + graceful


@pytest.mark.parametrize(
    "args",
    [
        ["--set", "terminationGracePeriodSeconds=25"],
        # 5 + 3 + 20 = 28 fits in the default 30; a longer drain does not.
        ["--set", "gunicorn.drainSeconds=5"],
    ],
)
def test_shutdown_budget_is_enforced(helm: Path, args: list[str]) -> None:
    proc = run_helm(helm, "template", RELEASE, str(CHART_DIR), *args, check=False)
    assert proc.returncode != 0
    assert "must be greater than preStopSleepSeconds + gunicorn.drainSeconds + gunicorn.gracefulTimeout" in proc.stderr


def test_longer_drain_renders_with_room_for_it(render: Callable[..., Rendered]) -> None:
    rendered = render("--set", "gunicorn.drainSeconds=5", "--set", "terminationGracePeriodSeconds=31")
    assert rendered.env()["GNAU_DRAIN_SECONDS"] == "5"
    assert rendered.pod_spec["terminationGracePeriodSeconds"] == 31


def test_rolling_update_keeps_capacity(any_render: Rendered) -> None:
    strategy = any_render.deployment["spec"]["strategy"]
    assert strategy["type"] == "RollingUpdate"
    assert strategy["rollingUpdate"]["maxUnavailable"] == 0


# ---------------------------------------------------------- profiles and checksum


def test_profiles_configmap_is_mounted(all_on_render: Rendered) -> None:
    configmap = all_on_render.one("ConfigMap")
    profiles = yaml.safe_load(configmap["data"]["profiles.yaml"])
    expected = yaml.safe_load(ALL_ON_VALUES.read_text())["profiles"]
    assert profiles == {"profiles": expected}
    assert profiles["profiles"]["house-aces"]["rules"] == {"double_ox_order": "ace_high"}

    volumes = {v["name"]: v for v in all_on_render.pod_spec["volumes"]}
    (volume,) = [v for v in volumes.values() if "configMap" in v]
    assert volume["configMap"]["name"] == configmap["metadata"]["name"]
    (mount,) = [m for m in all_on_render.container["volumeMounts"] if m["name"] == volume["name"]]
    assert mount["readOnly"] is True
    key_path = volume["configMap"]["items"][0]["path"]
    assert all_on_render.env()["PROFILES_FILE"] == f"{mount['mountPath']}/{key_path}"


def test_no_profiles_file_without_profiles(default_render: Rendered) -> None:
    assert "PROFILES_FILE" not in default_render.env()
    assert all("configMap" not in v for v in default_render.pod_spec["volumes"])


def test_rendered_profiles_are_accepted_by_the_service(all_on_render: Rendered, tmp_path: Path) -> None:
    """Contract: the file the chart mounts is one the app's own loader accepts."""
    from service.profiles import load_profiles_file

    profiles_file = tmp_path / "profiles.yaml"
    profiles_file.write_text(all_on_render.one("ConfigMap")["data"]["profiles.yaml"])
    loaded = load_profiles_file(profiles_file)
    assert [profile.name for profile in loaded] == ["house-aces"]


def checksum(rendered: Rendered) -> str:
    value: str = rendered.deployment["spec"]["template"]["metadata"]["annotations"]["checksum/config"]
    return value


def test_config_checksum_annotation(any_render: Rendered) -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", checksum(any_render))


def test_config_checksum_tracks_profiles(render: Render) -> None:
    def with_order(order: str) -> Rendered:
        profiles = {
            "house": {"extends": "standard", "description": "House", "rules": {"double_ox_order": order}}
        }
        return render("--set-json", f"profiles={json.dumps(profiles)}")

    one, same, other = with_order("ace_high"), with_order("ace_high"), with_order("king_high")
    assert checksum(one) == checksum(same)
    assert checksum(one) != checksum(other)
    assert checksum(one) != checksum(render())
    # Values that do not reach the ConfigMap must not roll the pods.
    assert checksum(render("--set", "gunicorn.workers=5")) == checksum(render())


# ------------------------------------------------------------------ HPA, PDB, svc


def test_hpa_targets_the_deployment(any_render: Rendered) -> None:
    hpa = any_render.one("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert target == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": any_render.deployment["metadata"]["name"],
    }
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    assert any(m["resource"]["name"] == "cpu" for m in hpa["spec"]["metrics"])
    # The HPA owns the replica count: the Deployment must not fight it on every upgrade.
    assert "replicas" not in any_render.deployment["spec"]


def test_pdb_targets_the_deployment_pods(any_render: Rendered) -> None:
    pdb = any_render.one("PodDisruptionBudget")
    assert pdb["apiVersion"] == "policy/v1"
    selector = pdb["spec"]["selector"]["matchLabels"]
    assert selector == any_render.deployment["spec"]["selector"]["matchLabels"]
    assert selects(selector, pod_template_labels(any_render))
    assert ("minAvailable" in pdb["spec"]) != ("maxUnavailable" in pdb["spec"])
    # With the HPA's minimum, a voluntary eviction can always proceed.
    min_replicas = any_render.one("HorizontalPodAutoscaler")["spec"]["minReplicas"]
    if "minAvailable" in pdb["spec"]:
        assert pdb["spec"]["minAvailable"] < min_replicas
    else:
        assert pdb["spec"]["maxUnavailable"] >= 1


def test_service_selects_the_pods(any_render: Rendered) -> None:
    service = any_render.one("Service")
    assert selects(service["spec"]["selector"], pod_template_labels(any_render))
    (port,) = service["spec"]["ports"]
    assert port["name"] == "http"
    assert port["targetPort"] == "http"


def test_standard_labels_everywhere(any_render: Rendered) -> None:
    for doc in app_docs(any_render):
        labels = doc["metadata"]["labels"]
        for key in (
            "app.kubernetes.io/name",
            "app.kubernetes.io/instance",
            "app.kubernetes.io/version",
            "app.kubernetes.io/managed-by",
            "helm.sh/chart",
        ):
            assert labels.get(key), f"{doc['kind']} lacks label {key}"
        assert labels["app.kubernetes.io/instance"] == RELEASE
        assert labels["app.kubernetes.io/version"] == "1.2.0"


def test_namespaced_resources_land_in_release_namespace(any_render: Rendered) -> None:
    for doc in any_render.docs:
        assert doc["metadata"]["namespace"] == NAMESPACE, doc["kind"]


# ----------------------------------------------------------- optional resources


def test_service_monitor_fields(all_on_render: Rendered) -> None:
    """The ServiceMonitor is a CRD kubernetes-validate cannot check: assert its shape here."""
    monitor = all_on_render.one("ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor) == {"apiVersion", "kind", "metadata", "spec"}
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    spec = monitor["spec"]
    assert set(spec) <= {"jobLabel", "selector", "namespaceSelector", "endpoints"}
    service = all_on_render.one("Service")
    assert selects(spec["selector"]["matchLabels"], service["metadata"]["labels"])
    assert spec["namespaceSelector"] == {"matchNames": [NAMESPACE]}
    (endpoint,) = spec["endpoints"]
    # Field names from the ServiceMonitor CRD's Endpoint type that this chart may emit.
    assert set(endpoint) <= {
        "port",
        "path",
        "scheme",
        "interval",
        "scrapeTimeout",
        "honorLabels",
        "relabelings",
        "metricRelabelings",
    }
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    assert endpoint["scheme"] == "http"
    assert endpoint["interval"] == "15s"
    assert endpoint["scrapeTimeout"] == "5s"
    for relabel in endpoint["metricRelabelings"]:
        assert relabel["action"] in {
            "replace",
            "keep",
            "drop",
            "keepequal",
            "dropequal",
            "hashmod",
            "labelmap",
            "labeldrop",
            "labelkeep",
            "lowercase",
            "uppercase",
        }


def test_ingress_routes_to_the_service(all_on_render: Rendered) -> None:
    ingress = all_on_render.one("Ingress")
    service = all_on_render.one("Service")
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"][0]["hosts"] == ["gnau.example.com"]
    paths = [path for rule in ingress["spec"]["rules"] for path in rule["http"]["paths"]]
    assert {p["path"] for p in paths} == {"/v1", "/openapi.yaml"}
    for path in paths:
        backend = path["backend"]["service"]
        assert backend["name"] == service["metadata"]["name"]
        assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}


def test_default_ingress_keeps_metrics_internal(render: Render) -> None:
    ingress = render("--set", "ingress.enabled=true").one("Ingress")
    paths = {p["path"] for rule in ingress["spec"]["rules"] for p in rule["http"]["paths"]}
    assert paths == {"/v1"}


def test_network_policy(all_on_render: Rendered, render: Render) -> None:
    policy = all_on_render.one("NetworkPolicy")
    assert selects(policy["spec"]["podSelector"]["matchLabels"], pod_template_labels(all_on_render))
    assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    first = policy["spec"]["ingress"][0]
    assert first["ports"] == [{"port": 8000, "protocol": "TCP"}]
    assert {"podSelector": {"matchLabels": {f"{FULLNAME}-client": "true"}}} in first["from"]
    # Egress: DNS only.
    (egress,) = policy["spec"]["egress"]
    assert {p["port"] for p in egress["ports"]} == {53}
    # allowExternal (the default) opens the port to any source.
    open_policy = render("--set", "networkPolicy.enabled=true").one("NetworkPolicy")
    assert "from" not in open_policy["spec"]["ingress"][0]


# ------------------------------------------------------------------------ schema


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--set", "replicaCount=two"], "replicaCount"),
        (["--set", "nosuchkey=1"], "nosuchkey"),
        (["--set", "gunicorn.workers=0"], "workers"),
        (["--set", "gunicorn.logLevel=chatty"], "logLevel"),
        (["--set", "gunicorn.drainSeconds=-1"], "drainSeconds"),
        (["--set", "image.pullPolicy=Sometimes"], "pullPolicy"),
        (["--set-json", 'profiles={"Bad Name":{}}'], "Bad Name"),
        (["--set-json", 'profiles={"p":{"extend":"standard","description":"x"}}'], "extend"),
        (["--set-json", 'profiles={"p":{"extends":"standard"}}'], "description"),
        (["--set-json", 'profiles={"p":{"extends":"standard","description":" "}}'], "description"),
        (["--set", "podDisruptionBudget.maxUnavailable=lots"], "maxUnavailable"),
    ],
)
def test_schema_rejects_bad_values(helm: Path, args: list[str], field: str) -> None:
    proc = run_helm(helm, "template", RELEASE, str(CHART_DIR), *args, check=False)
    assert proc.returncode != 0, f"{args} was accepted"
    assert "schema" in proc.stderr
    assert field in proc.stderr


def test_schema_is_self_contained_and_strict() -> None:
    schema = json.loads((CHART_DIR / "values.schema.json").read_text())
    refs = [value for key, value in walk(schema) if key == "$ref"]
    assert all(ref.startswith("#") for ref in refs), refs
    assert schema["additionalProperties"] is False
    # Every default value is described by the schema, and the schema invents no keys.
    assert set(values_yaml()) <= set(schema["properties"])
    assert set(schema["properties"]) - set(values_yaml()) <= {"global"}


def test_chart_metadata() -> None:
    chart = yaml.safe_load((CHART_DIR / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2"
    assert chart["appVersion"] == "1.2.0"
    assert chart["type"] == "application"
    assert (REPO_ROOT / "helm" / "gnau-scoring" / ".helmignore").is_file()
