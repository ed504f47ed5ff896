PYTHON ?= python3
VENV ?= .venv
PY = $(VENV)/bin/python
# The PyTorch build to install. The default is the CPU wheel; see README "PyTorch builds".
TORCH ?= torch==2.13.0

.PHONY: install test lint demo bench clean

install: $(VENV)/.installed

# Re-runs whenever pyproject.toml changes; the stamp marks a finished install.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install "$(TORCH)"
	$(PY) -m pip install -e '.[dev]'
	touch $@

lint: install
	$(VENV)/bin/ruff check .

test: lint
	$(PY) -m pytest

demo: install
	$(VENV)/bin/pyanitsa tournament configs/tournaments/demo.yaml --overwrite

bench: install
	$(PY) benchmarks/run.py
	$(PY) benchmarks/envs_bench.py
	$(PY) benchmarks/rollouts_bench.py
	$(PY) benchmarks/tournament_bench.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
