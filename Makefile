# macau-tables. Two set-up commands on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install warm serve test test-slow check lint types kernels kernels-baccarat \
	kernels-caribbean collect bench clean

# Python's bytecode caches are written (a machine that sets PYTHONDONTWRITEBYTECODE would have
# every test worker, every server and CLI process a test starts, compile the package and
# assertion-rewrite the tests again: seconds each, hundreds of times a run).
unexport PYTHONDONTWRITEBYTECODE

# The install does not compile every installed module's bytecode (half of its time, most of
# it for modules nothing here imports): a module's is written by the first process that imports
# it — for the tests, by `collect` below, once, not by each pytest worker at once.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -e '.[dev,bench]'
	touch $(STAMP)

# The install ends by compiling the analysis's numba kernels into numba's on-disk cache
# (python -m macau_tables.analysis.warm), so the first exact analysis on a fresh machine — the
# admin page's figures of a changed option, a PAR sheet — takes seconds, not a cold compile's.
# `make test` does not run it: the tests' own kernels (`kernels` below) are these and more.
WARM := $(VENV)/.warm-stamp
$(WARM): $(STAMP)
	$(BIN)/python -m macau_tables.analysis.warm
	touch $(WARM)

warm: $(WARM)

install: $(WARM)

# `serve` runs the table server at http://127.0.0.1:8000 on ./macau-tables.db (created, migrated
# and filled with the demonstration casino on first start, which prints one-time credentials).
# Options: make serve SERVE_ARGS='--port 8001 --database postgresql://…' (docs/server.md).
SERVE_ARGS ?=
serve: $(WARM)
	@$(BIN)/macau-tables serve $(SERVE_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check --no-cache src tests bench docs/examples
	$(BIN)/ruff format --no-cache --check src tests bench docs/examples

types: $(STAMP)
	$(BIN)/mypy

# The numba kernels the tests call, compiled into numba's cache (tests/compile_kernels.py):
# `make test` runs this beside lint and types, so pytest's workers find them compiled, by two
# processes side by side: Caribbean Stud's hand evaluator and Baccarat's kernels; Caribbean
# Stud's sweep (the warm-up's kernels, `make warm`) and simulation.
kernels: kernels-baccarat kernels-caribbean

kernels-baccarat: $(STAMP)
	$(BIN)/python -m tests.compile_kernels hands baccarat

kernels-caribbean: $(STAMP)
	$(BIN)/python -m tests.compile_kernels caribbean

# The tests collected once before the workers collect them: the modules they import get their
# bytecode written, and the test modules their assertion-rewritten bytecode, by one process.
collect: $(STAMP)
	$(BIN)/python -m pytest --collect-only -qq -m "not slow" > $(VENV)/collect.log \
		|| { cat $(VENV)/collect.log; exit 1; }

# The whole suite but the long checks (what CI runs, through .ci/run): lint, types and the
# kernels' compilation side by side, then every test on three workers: on two cores a third
# keeps both busy while a test waits on a child process, the browser or the database
# (docs/benchmarks.md).
test: $(STAMP)
	$(MAKE) --no-print-directory --output-sync=target -j4 lint types kernels collect
	$(BIN)/python -m pytest -n 3 --dist worksteal -q -m "not slow" --durations=25

test-slow: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m slow

# The edit-test loop (well under 90 s once mypy's cache is warm): lint, types and the fast
# unit tests (CHECK_TESTS: the engines and the codec, no database, server or browser).
CHECK_TESTS ?= tests/core tests/baccarat tests/caribbean tests/test_round_contract.py
check: $(STAMP)
	$(MAKE) --no-print-directory --output-sync=target -j2 lint types
	$(BIN)/python -m pytest -n 2 --dist worksteal -q -m "not slow" $(CHECK_TESTS)

# Each script prints its ratio against a reference run beside it; results: docs/benchmarks.md.
# The table service's (`-`: a missed goal is reported, the others still run): bench/startup.py
# builds its 100,000-round log once (about 20 minutes) and caches it in /tmp/macau-tables-bench.
bench: $(WARM)
	$(BIN)/python bench/evaluator.py
	$(BIN)/python bench/caribbean_exact.py
	$(BIN)/python bench/caribbean_sim.py
	$(BIN)/python bench/baccarat_exact.py
	$(BIN)/python bench/baccarat_sim.py
	-$(BIN)/python bench/service_rounds.py
	-$(BIN)/python bench/jackpot_writers.py
	-$(BIN)/python bench/startup.py
	-$(BIN)/python bench/verify.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
