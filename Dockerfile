# syntax=docker/dockerfile:1
#
# gnau-scoring image: two stages on the same pinned slim base.
#   builder - creates /opt/venv and installs the service with its pinned dependencies
#   runtime - copies only the venv and the gunicorn config; runs as uid/gid 10001
#
# The runtime stage works with a read-only root filesystem: the only writable path it
# needs is /tmp (gunicorn's PROMETHEUS_MULTIPROC_DIR default lives there). Kubernetes
# mounts an emptyDir there; with plain Docker use: docker run --read-only --tmpfs /tmp ...
# gunicorn's worker heartbeat files go to /dev/shm (worker_tmp_dir in gunicorn.conf.py).
#
# PYTHON_IMAGE is the base of both stages. Production builds use the default, the pinned
# official slim image. The CI test (tests/deploy/test_container.py) cannot reach that
# image's registry and passes a local stand-in of the same Debian release instead
# (Debian's python3.11, built with mmdebstrap); the stand-in is never tagged as the
# official name.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_INPUT=1 \
    PYTHONUNBUFFERED=1

RUN python -m venv /opt/venv
ENV PATH="/opt/venv/bin:${PATH}"

WORKDIR /src
# openapi.yaml: service/openapi.yaml links to it; the package ships the contract it serves
# (GET /openapi.yaml) and signs receipts under (its info.version).
COPY constraints.txt pyproject.toml README.md openapi.yaml ./
COPY service ./service
# Bytecode is compiled here (pip's default) so the read-only runtime never needs to write it.
RUN pip install --no-cache-dir -c constraints.txt .


FROM ${PYTHON_IMAGE} AS runtime

LABEL org.opencontainers.image.title="gnau-scoring" \
      org.opencontainers.image.description="Stateless REST API that scores hands of the card game Gnau" \
      org.opencontainers.image.version="1.2.0"

RUN groupadd --system --gid 10001 gnau \
 && useradd --system --uid 10001 --gid 10001 --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin gnau

ENV PATH="/opt/venv/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GNAU_BIND=0.0.0.0:8000 \
    GNAU_PROBE_BIND=0.0.0.0:8001

COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
COPY gunicorn.conf.py /app/gunicorn.conf.py

USER 10001:10001
EXPOSE 8000 8001

# For plain Docker / compose; Kubernetes ignores this and uses the chart's probes. Both ask
# the master's probe listener (8001), which no client's request can hold up.
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8001/healthz', timeout=2)"]

CMD ["gunicorn", "-c", "/app/gunicorn.conf.py"]
