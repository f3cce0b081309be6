# `make serve` and `make test` set everything up first; setup that is already
# done is skipped (stamp files track pyproject.toml, constraints.txt and
# package-lock.json).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test screenshots build offline pdf source bench report release-check setup system-deps clean

serve: setup
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(PORT) --livereload

test: setup
	$(BIN)/ruff check
	$(BIN)/mypy
	$(BIN)/pytest

# Full-page screenshots of every page, in test-artifacts/screenshots/, for a person to look at.
screenshots: setup
	SCREENSHOTS=1 $(BIN)/pytest tests/browser/test_every_page.py tests/browser/test_browser.py -k "a_page_at or a_page_390 or legible_in_dark"

# The site to publish, in site/: pages with folder URLs, and downloads/$(OFFLINE_ZIP) that every
# page's footer links, the same site built to be read from disk (hooks/offline.py).
OFFLINE_ZIP := autograd-inside-out.zip

PDF := autograd-inside-out.pdf

# The project's source, to serve and build the site from (the home page says how).
SOURCE_ZIP := autograd-inside-out-source.zip

build: setup
	OFFLINE_DOWNLOAD=downloads/$(OFFLINE_ZIP) PDF_DOWNLOAD=downloads/$(PDF) SOURCE_DOWNLOAD=downloads/$(SOURCE_ZIP) $(BIN)/mkdocs build --strict
	@$(MAKE) --no-print-directory offline pdf source

# The copy read from disk (file://): unzip it and open autograd-inside-out/index.html.
offline: setup
	rm -rf .cache/offline
	OFFLINE=1 $(BIN)/mkdocs build --strict --site-dir .cache/offline/autograd-inside-out
	mkdir -p site/downloads
	rm -f site/downloads/$(OFFLINE_ZIP)
	cd .cache/offline && ../../$(BIN)/python -m zipfile -c ../../site/downloads/$(OFFLINE_ZIP) autograd-inside-out

# The whole book as one page (print.html), printed to site/downloads/$(PDF) by the setup's Chromium.
pdf: setup
	rm -rf .cache/print
	PRINT=1 $(BIN)/mkdocs build --strict --site-dir .cache/print
	$(BIN)/python hooks/print_book.py .cache/print/print.html site/downloads/$(PDF)

# What `git archive` gives of the working tree (every tracked file, as it is now, edits included)
# in a folder autograd-inside-out-source/, zipped to $(SOURCE_OUT).
SOURCE_OUT ?= site/downloads/$(SOURCE_ZIP)
source:
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make source needs a git checkout of the project: git archive lists its files" >&2; exit 1; }
	mkdir -p $(dir $(SOURCE_OUT))
	tree=$$(git stash create) && git archive --format=zip --prefix=autograd-inside-out-source/ -o $(SOURCE_OUT) $${tree:-HEAD}

bench: setup
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --group bench -c constraints.txt
	$(BIN)/python bench/build_time.py

# Every snippet run on the newest release of torch installable here, in an environment of its own
# (never .venv), and compared with the project's (bench/release_check.py): the lines that print
# something else there go to bench/results/release_check.json, which the pages show.
RELEASE := 2.14.1
RELEASE_VENV := .cache/release-venv
release-check: setup
	test -x $(RELEASE_VENV)/bin/python || $(PYTHON) -m venv $(RELEASE_VENV)
	grep -v '^torch==' constraints.txt > $(RELEASE_VENV)/constraints.txt
	$(RELEASE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check torch==$(RELEASE) torchviz graphviz pygments \
		matplotlib numpy pyyaml -c $(RELEASE_VENV)/constraints.txt
	$(RELEASE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(RELEASE_VENV)/bin/python bench/release_check.py run $(RELEASE_VENV)/outputs.json
	$(BIN)/python bench/release_check.py compare $(RELEASE_VENV)/outputs.json bench/results/release_check.json

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
