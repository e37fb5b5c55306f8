# The two README commands are `make run` and `make test`; both install what they need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP_LOG ?= $(VENV)/pip.log

.PHONY: run test test-fast lint bench install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24" 2>$(PIP_LOG) || { cat $(PIP_LOG); exit 1; }

install: $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e . 2>$(PIP_LOG) || { cat $(PIP_LOG); exit 1; }

install-dev: $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]" 2>$(PIP_LOG) || { cat $(PIP_LOG); exit 1; }

## Start the service on 127.0.0.1:8000 with the same gunicorn config as the container.
run: install
	$(BIN)/gunicorn -c gunicorn.conf.py

# schemathesis gives every operation's test the same node id, which pytest-xdist folds
# into one: the contract run goes in its own process so that every operation is tested.
CONTRACT := tests/test_contract.py::test_api_honours_the_contract

## Lint, type-check and run every test (exhaustive, schemathesis, chart, container and fault tests).
test: install-dev lint
	$(BIN)/python -m pytest -n 2 --dist loadgroup --deselect $(CONTRACT)
	$(BIN)/python -m pytest -p no:xdist $(CONTRACT)

## Everything but lint, the exhaustive walks and the container test, for a quick local loop.
test-fast: install-dev
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not exhaustive and not deploy" --deselect $(CONTRACT)
	$(BIN)/python -m pytest -p no:xdist $(CONTRACT)

lint: install-dev
	$(BIN)/ruff check service tests bench gunicorn.conf.py
	$(BIN)/mypy

## Benchmarks (a few minutes); prints one table.
bench: install-dev
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .tools
