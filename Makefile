# `make demo` and `make test` work on a fresh clone: each builds .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck bench fuzz clean venv chromium postgresql bytecode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

# pip >= 25.1 understands dependency groups (PEP 735), hence the upgrade above.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[web,campaign]' --group dev
	touch $(STAMP)

venv: $(STAMP)

# An editable install leaves the sources uncompiled (pip compiles a wheel's); without
# bytecode every start of `fracas` compiles them again. Stale files are only ever
# recompiled, never wrong.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q src > /dev/null

demo: $(STAMP) bytecode
	@for f in examples/*/*.yaml; do \
	  echo; echo "════ $$f"; \
	  $(BIN)/fracas resolve "$$f" || exit $$?; \
	done

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples/plugin
	$(BIN)/ruff format --check src tests benchmarks examples/plugin

typecheck: $(STAMP)
	$(BIN)/mypy

# The browser tests drive Debian's Chromium (Playwright's own browser download cannot work
# offline). Installing needs root; without it the browser tests skip and say why.
chromium:
	@test -x /usr/bin/chromium || { apt-get update -qq && apt-get install -y -qq chromium; } \
	  || echo "make: Chromium could not be installed; the browser tests will be skipped"

# The campaign store's tests start a throwaway PostgreSQL cluster (initdb/pg_ctl, loopback
# only) from Debian's server binaries. Installing needs root; without it they skip.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1 || command -v initdb > /dev/null \
	  || { apt-get update -qq && apt-get install -y -qq postgresql; } \
	  || echo "make: PostgreSQL could not be installed; its campaign tests will be skipped"

test: lint typecheck chromium postgresql bytecode
	$(BIN)/pytest

# 100,000 generated hostile scenarios; prints the count of each outcome class (docs/limits.md).
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz/fuzzer.py --cases $${FUZZ_CASES:-100000} --workers $${FUZZ_WORKERS:-2}

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do $(BIN)/python "$$b" || exit $$?; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
