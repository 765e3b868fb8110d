# Every target sets the project up first: a fresh clone needs nothing but Python 3.11.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run web web-typecheck oidc demo test lint typecheck unit system bench proto proto-release breaking clean lock

# Debian packages that tests drive for real (installed when missing and running as root, as CI does):
# promtool, openssl (the TLS tests' certificates), and the Chromium the web client's browser tests drive (never a browser download).
SYSTEM_PACKAGES := promtool=prometheus /usr/bin/chromium=chromium openssl=openssl

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# requirements.lock: the exact versions of every package, for development and the image (deploy/Dockerfile)
# alike; `make lock` writes it anew from pyproject.toml's ranges (scripts/lock.py).
LOCK := requirements.lock

# The rl extra (bots/envs: OpenSpiel, PettingZoo, Gymnasium, numpy) too: tests/test_envs.py runs their checks.
$(STAMP): $(BIN)/python pyproject.toml $(LOCK)
	$(BIN)/python -m pip install --quiet -c $(LOCK) -e '.[dev,rl]'
	touch $(STAMP)

## lock: write requirements.lock anew (after changing the dependencies in pyproject.toml, or to update them)
lock: $(BIN)/python
	$(BIN)/python scripts/lock.py

## run: build the web client, start the server: gRPC on 127.0.0.1:50051, the web client and the API for
## browsers (Connect, gRPC-Web) on http://127.0.0.1:8080/ (settings: thousand-server --help)
run: $(STAMP) web
	$(BIN)/thousand-server --host 127.0.0.1 --port 50051 --web-port 8080

# The web client (clients/web): npm packages exactly as its package-lock.json pins them, built by esbuild into
# clients/web/dist (which the web port serves at /) and its tests into clients/web/build. Node and npm come
# from Debian when missing (scripts/system-packages.sh).
WEB      := clients/web
WEB_DEPS := $(WEB)/node_modules/.installed
WEB_SOURCES = $(shell find $(WEB)/src $(WEB)/test $(WEB)/bench $(WEB)/build.mjs $(WEB)/catalogues.mjs $(WEB)/favicon.mjs $(WEB)/tsconfig.json clients/i18n/messages clients/i18n/glossary -type f 2>/dev/null)

## web: build the web client into clients/web/dist and its tests into clients/web/build (npm ci, esbuild)
web: $(WEB)/dist/index.html

$(WEB_DEPS): $(WEB)/package.json $(WEB)/package-lock.json
	scripts/system-packages.sh node=nodejs npm=npm
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB)/dist/index.html: $(WEB_DEPS) $(WEB_SOURCES)
	cd $(WEB) && npm run --silent build
	touch $@

web-typecheck: $(WEB_DEPS)
	cd $(WEB) && node_modules/.bin/tsc -p . && node_modules/.bin/tsc -p test

# The OpenID provider the identity tests start (tests/oidc: npm oidc-provider, exactly as its lock file pins it).
OIDC      := tests/oidc
OIDC_DEPS := $(OIDC)/node_modules/.installed

## oidc: install the test OpenID provider (npm ci in tests/oidc)
oidc: $(OIDC_DEPS)

$(OIDC_DEPS): $(OIDC)/package.json $(OIDC)/package-lock.json
	scripts/system-packages.sh node=nodejs npm=npm
	cd $(OIDC) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## demo: play one seeded game between simple built-in players and print it deal by deal
demo: $(STAMP)
	$(BIN)/thousand-selfplay --seed 1

## test: ruff, mypy --strict and the whole pytest suite
test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/buf lint proto

typecheck: $(STAMP) web-typecheck
	$(BIN)/mypy

# The suite in TEST_WORKERS processes (pytest-xdist), each test file whole in one of them (--dist loadfile: a
# file's module fixtures, its server or browser, start once). Much of the suite waits on servers, browsers and
# clocks, so two processes on two cores take 27 min where one took 48 (a clean clone's run, 1,681 tests).
TEST_WORKERS ?= 2

unit: $(STAMP) system web oidc
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

system:
	scripts/system-packages.sh $(SYSTEM_PACKAGES)

## bench: the engine (with OpenSpiel as reference), server (against a bare gRPC echo), capacity and soak benchmarks
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -c $(LOCK) -e '.[dev,bench]'
	$(BIN)/python bench/engine.py --game thousand --seconds 10 --engine compiled
	$(BIN)/python bench/engine.py --game thousand --seconds 10 --engine python
	$(BIN)/python bench/search.py --decisions 300 --strategies ismcts,expert
	$(BIN)/python bench/envs.py --seconds 5
	$(BIN)/python bench/server.py --seconds 20 --tables 100 --fanout
	$(BIN)/python bench/capacity.py --tables 2000
	$(BIN)/python bench/soak.py --seconds 60 --tables 50 --table-idle-seconds 10
	$(BIN)/python bench/ratings.py --updates 300
	$(BIN)/python bench/quickplay.py --waiting 1000

## proto: regenerate the committed Python package thousand/ (messages, gRPC stubs, typed .pyi) and the web
## client's TypeScript (clients/web/src/gen) from proto/
proto: $(STAMP) $(WEB_DEPS)
	$(BIN)/python scripts/gen_proto.py
	$(BIN)/python scripts/gen_proto_web.py

## proto-release: record the contract as released (tests/test_proto.py checks breaking changes against it)
proto-release: $(STAMP)
	$(BIN)/buf build proto -o proto/released/thousand_v1.binpb

## breaking: compare the contract in the working tree with the main branch's
breaking: $(STAMP)
	$(BIN)/buf breaking proto --against '.git#branch=main,subdir=proto'

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
