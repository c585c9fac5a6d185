# `make demo` and `make test` work on a fresh clone: each builds .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck bench clean venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

# pip >= 25.1 understands dependency groups (PEP 735), hence the upgrade above.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	@for f in examples/*/*.yaml; do \
	  echo; echo "════ $$f"; \
	  $(BIN)/fracas resolve "$$f" || exit $$?; \
	done

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do $(BIN)/python "$$b" || exit $$?; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
