# `make serve` and `make test` set everything up first; setup that is already
# done is skipped (stamp files track pyproject.toml, constraints.txt and
# package-lock.json).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test build bench report setup system-deps clean

serve: setup
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(PORT) --livereload

test: setup
	$(BIN)/pytest

build: setup
	$(BIN)/mkdocs build --strict

bench: setup
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --group bench -c constraints.txt
	$(BIN)/python bench/build_time.py

report: setup
	$(BIN)/python bench/quality_report.py

setup: $(VENV)/.installed node_modules/.installed system-deps

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check pip==26.3
	$(BIN)/python -m pip install --quiet --group site --group test -c constraints.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation --editable .
	touch $@

node_modules/.installed: package-lock.json $(VENV)/.installed
	$(BIN)/npm ci --no-audit --no-fund --loglevel=error
	touch $@

system-deps: $(VENV)/.installed
	@$(BIN)/python -m snippet_engine.system_tools --browser

clean:
	rm -rf site .cache
