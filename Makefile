PYTHON ?= python3
VENV ?= .venv
PY = $(VENV)/bin/python
# The PyTorch build to install. The default is the CPU wheel; see README "PyTorch builds".
TORCH ?= torch==2.13.0

.PHONY: install install-demo system-deps test test-slow lint demo bench clean

# Two installs, each marked by a stamp when it finishes, redone when pyproject.toml changes:
# what the demo runs (pyanitsa and its core dependencies only: the shipped policy plays from
# numpy, so no torch and no `rl` extra), and everything (torch, the `dev` extra: the RL
# libraries, Ray and the test tools), which serves the demo as well.
install: $(VENV)/.installed

install-demo: $(VENV)/.installed-demo

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install "$(TORCH)"
	$(PY) -m pip install -e '.[dev]'
	touch $@

$(VENV)/.installed-demo: pyproject.toml
	set -e; if [ $(VENV)/.installed -nt pyproject.toml ]; then touch $@; exit 0; fi; \
	test -x $(PY) || $(PYTHON) -m venv $(VENV); \
	$(PY) -m pip install --upgrade pip; \
	$(PY) -m pip install -e .; \
	touch $@

lint: install
	$(VENV)/bin/ruff check .

# One pytest process a core (pytest-xdist); with `--dist worksteal` a worker that runs out takes
# tests queued for the other, so neither core waits on the other at the end (a fixed split left
# one idle for minutes). The suite's
# budget is eight minutes on a fresh clone, install included; the fifteen slowest tests are
# named after the run, since that is where the time goes. On a fresh clone each worker would
# compile the same numba kernels for itself: tests/warm_kernels.py compiles them first, half a
# core each, so the workers load them (a few seconds when the cache is already full).
# bubblewrap (bwrap) gives `cmd:` bots the strict sandbox (docs/bots.md, "The sandbox"). Installed
# with apt when missing; without apt (or as a user apt refuses) one line says so, and since a
# `cmd:` bot's default level is strict, the suite's `cmd:` tests then fail with one line naming
# what is missing (a run can say `sandbox: basic` instead; the suite asks for strict).
system-deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && \
	     { apt-get install -y -qq bubblewrap >/dev/null 2>&1 || \
	       { apt-get update -qq >/dev/null 2>&1 && \
	         apt-get install -y -qq bubblewrap >/dev/null 2>&1; }; }; \
	  then echo "system-deps: installed bubblewrap"; \
	  else echo "system-deps: cannot install bubblewrap (no apt, or not root): cmd: bots need sandbox: basic here"; fi; }

test: lint system-deps
	$(PY) tests/warm_kernels.py
	$(PY) -m pytest -n 2 --dist worksteal --durations=15

# The tests marked slow (long or exhaustive runs that a quicker test in `make test` covers in
# part: each marker says which), deselected by default.
test-slow: install
	$(PY) -m pytest -n 2 -m slow --durations=15

demo: install-demo
	$(VENV)/bin/pyanitsa tournament configs/tournaments/demo.yaml --overwrite

bench: install
	$(PY) benchmarks/run.py
	$(PY) benchmarks/envs_bench.py
	$(PY) benchmarks/rollouts_bench.py
	$(PY) benchmarks/tournament_bench.py
	$(PY) benchmarks/sandbox_bench.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
