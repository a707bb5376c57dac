# Two commands do everything: `make run` (the main job) and `make test` (the test suite).
# Both create .venv on first use: `make run` with the package and the `eval` extra only (no
# torch), `make test` with every extra (`.[test]`). Each has its own stamp file; the full
# install stamps both, so `make test` then `make run` installs nothing more, and `make run`
# then `make test` adds what the tests need.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SOURCES := $(shell find mcpgym servers envs synth tasks rewards baselines external -type f \( -name '*.py' -o -name '*.jsonl' -o -name '*.pth' \) 2>/dev/null)

.PHONY: run test test-all bench tasks docs clean

RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

run: $(RUN_STAMP)
	$(BIN)/mcpgym run --env mcp/zendesk-v0 --agent oracle

test: $(TEST_STAMP)
	$(BIN)/pytest -q

test-all: $(TEST_STAMP)
	$(BIN)/pytest -q -m "not gpu"

# The speed tables of the kernel, the env, evaluation and the HTTP server, each against a
# baseline measured in the same run (a few minutes on 2 cores).
bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/bench_kernel.py
	$(BIN)/python benchmarks/bench_env.py
	$(BIN)/python benchmarks/bench_eval.py
	$(BIN)/python benchmarks/bench_http.py

# Regenerate the shipped synthesized task set (tasks/data/synth), the same bytes every time.
tasks: $(TEST_STAMP)
	$(BIN)/mcpgym synth --servers zendesk,crm,calendar,email,finance,flights,chat,docs,files,projects,code,retail,payments,shipping,hr,expenses,hotels,telecom,todo,social \
		--n 10000 --seed 0 --out tasks/data/synth/workspace.jsonl --quiet

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip setuptools wheel

# A regular (not editable) install: it puts mcpgym.pth in site-packages, which registers
# the env ids in every interpreter of this venv.
# torch is installed first, pinned, when the venv has none: where a CPU wheel of that version is
# on hand (pip's find-links) it is taken, so the trainer's tests never pull a CUDA build.
# Set TORCH to another requirement (e.g. TORCH="torch>=2.5") to choose yours.
TORCH ?= torch==2.13.0

# BFCL's multi-turn backends, tasks and checker (docs/bfcl.md): the package's declared
# dependencies are heavy and unused here, so it is installed without them.
BFCL ?= bfcl-eval==2026.3.23 mpmath

$(RUN_STAMP): $(BIN)/python pyproject.toml setup.py $(SOURCES)
	$(BIN)/pip install -q ".[eval]"
	touch $@

$(TEST_STAMP): $(BIN)/python pyproject.toml setup.py $(SOURCES)
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q ".[test]"
	$(BIN)/pip install -q --no-deps $(BFCL)
	touch $@ $(RUN_STAMP)

# The API reference of every module, from the docstrings (pdoc), in site/api/index.html.
docs: $(TEST_STAMP)
	$(BIN)/python docs/build_api.py site/api

clean:
	rm -rf $(VENV) build site *.egg-info
