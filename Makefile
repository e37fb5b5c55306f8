# The two README commands are `make run` and `make test`; both install what they need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP_LOG ?= $(VENV)/pip.log

.PHONY: run test test-fast lint lint-contract spec chart-docs bench docs install install-dev clean

# Node tools (package.json, exact versions locked in package-lock.json; .npmrc runs no
# install scripts): the OpenAPI linters and the TypeScript client test. `npm ci` installs
# exactly the locked tree, again whenever the lock changes.
NPM_STAMP := node_modules/.package-lock.json
NPM_LOG ?= npm-ci.log
NODE_ENV := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24" 2>$(PIP_LOG) || { cat $(PIP_LOG); exit 1; }

# The package is installed (editable) only when the dependencies changed: a stamp in the
# virtualenv, newer than pyproject.toml and constraints.txt, says it is up to date (so a
# second `make run` starts at once). The dev install covers the runtime one: it stamps both.
INSTALL_STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

$(INSTALL_STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e . 2>$(PIP_LOG) || { cat $(PIP_LOG); exit 1; }
	@touch $@

$(DEV_STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]" 2>$(PIP_LOG) || { cat $(PIP_LOG); exit 1; }
	@touch $(INSTALL_STAMP) $@

install: $(INSTALL_STAMP)

install-dev: $(DEV_STAMP) $(NPM_STAMP)

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund >$(NPM_LOG) 2>&1 || { cat $(NPM_LOG); exit 1; }

## Receipts work out of the box under `make run`: a development key is made on first use in
## the git-ignored .dev/ (the service logs that it signs with a development key). Set
## GNAU_RECEIPT_KEY_FILE to sign with your own key, or to nothing to run without one. Only
## `make run` makes a key: `gnau serve` and the image never do.
DEV_RECEIPT_KEY := .dev/receipt-key.pem
GNAU_RECEIPT_KEY_FILE ?= $(DEV_RECEIPT_KEY)

## Start the service on 127.0.0.1:8000 with the same gunicorn config as the container.
run: install
	@if [ "$(GNAU_RECEIPT_KEY_FILE)" = "$(DEV_RECEIPT_KEY)" ] && [ ! -e "$(DEV_RECEIPT_KEY)" ]; then $(BIN)/python -m service.receipts $(DEV_RECEIPT_KEY); fi
	GNAU_RECEIPT_KEY_FILE="$(GNAU_RECEIPT_KEY_FILE)" $(BIN)/gunicorn -c gunicorn.conf.py

# schemathesis gives every operation's test the same node id, which pytest-xdist folds
# into one: the contract run goes in its own process so that every operation is tested.
CONTRACT := tests/api/test_contract.py::test_api_honours_the_contract
# The fault tests that load a real gunicorn to its limits (a 10,000-hand batch loop, pipelined
# custom rules) and assert that nothing waits past the compute lane's 10 s: in their own
# process, after the others, so that the other pytest worker (a container build, say) does
# not take half of a two-CPU machine from the server under test.
LOADED := tests/live/test_probes.py

## The docs site (mkdocs.yml): built strictly by both test targets (a broken link or anchor
## fails), served by `make docs` on DOCS_ADDR (8002: the service takes 8000, its probes 8001).
DOCS_ADDR ?= 127.0.0.1:8002
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs

## Lint, type-check and run every test (exhaustive, schemathesis, chart, container and fault tests).
test: install-dev lint
	$(MKDOCS) build --strict
	$(BIN)/python -m pytest -n 2 --dist loadgroup --deselect $(CONTRACT) --ignore $(LOADED)
	$(BIN)/python -m pytest -n 0 $(LOADED)
	$(BIN)/python -m pytest -p no:xdist $(CONTRACT)

## The quick local loop, for a plain machine (Python 3.11, no root, no apt; Node and npm
## optional), in a few minutes: the docs build, the unit, API and chart tests and the
## contract run, leaving out lint, the exhaustive walks, the container test and the slow
## tests (real gunicorn servers, browsers, Node, the gnau command, brute-force odds). A test
## whose outside tool is missing (helm, openssl, ...) is skipped, nothing is installed with
## apt, and the run ends with a list of what it skipped and left out, and why
## (tests/tools.py). `make test` runs everything, installs those tools and fails without them.
NPM := $(shell command -v npm 2>/dev/null)

test-fast: $(DEV_STAMP) $(if $(NPM),$(NPM_STAMP))
	$(MKDOCS) build --strict
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not exhaustive and not deploy and not slow" --skip-missing-tools --deselect $(CONTRACT)
	$(BIN)/python -m pytest -p no:xdist $(CONTRACT)

lint: install-dev lint-contract
	$(BIN)/ruff check service tests bench gunicorn.conf.py
	$(BIN)/mypy

## The contract under other tools' linters: Redocly (recommended; redocly.yaml and
## .redocly.lint-ignore.yaml say what is off and why) and Spectral (spectral:oas,
## .spectral.yaml); any error or warning fails.
lint-contract: $(NPM_STAMP)
	$(NODE_ENV) node_modules/.bin/redocly lint openapi.yaml --max-problems 1000
	$(NODE_ENV) node_modules/.bin/spectral lint openapi.yaml --fail-severity=hint

## openapi.yaml's vocabularies (categories, label keys, knobs, payout keys, bet types, cards,
## built-in profiles, languages), written between its `# BEGIN generated` and `# END generated`
## markers from the declarations they restate (tests/api/vocabularies.py); the rest of the
## file is written by hand. A test fails when they are stale.
spec: $(DEV_STAMP)
	$(BIN)/python -m tests.api.vocabularies

## The chart's values table (docs/chart-values.md) and values.schema.json's descriptions,
## generated from the `## @param` comments of helm/gnau-scoring/values.yaml
## (readme-generator-for-helm; tests/deploy/chart_docs.py). A test fails when they are stale.
chart-docs: $(DEV_STAMP) $(NPM_STAMP)
	$(BIN)/python -m tests.deploy.chart_docs

## Benchmarks (a few minutes); prints one table.
bench: install-dev
	$(BIN)/python -m bench

## Serve the docs as a site with search on http://$(DOCS_ADDR), rebuilt on every save.
docs: install-dev
	$(MKDOCS) serve --dev-addr $(DOCS_ADDR)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .tools node_modules clients/ts/build clients/ts/generated site $(NPM_LOG)
