"""The top-level `models:` section, and the old `eval.models` layout read with a notice."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
import yaml

from bench_kit.errors import ConfigError
from bench_kit.models.config import (
    ParamsDeprecation,
    check_runnable,
    load_model_config,
    model_names,
)

ENTRY = {"adapter": "random", "seed": 3, "enabled": False}


def test_models_are_read_from_the_top_level_section():
    params = {"models": {"r": ENTRY, "t": {"adapter": "text-only"}}, "eval": {"cache": "c"}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecation notice for the new layout
        assert model_names(params, "new.yaml") == ["r", "t"]
        config = load_model_config(params, "r", "new.yaml")
    assert config.seed == 3
    with pytest.raises(ConfigError, match=r"^new\.yaml: models\.r: model 'r' is disabled"):
        check_runnable(config, "r", "new.yaml")
    with pytest.raises(ConfigError, match=r"new\.yaml: models\.r\.colour: unknown key"):
        load_model_config({"models": {"r": {**ENTRY, "colour": 1}}}, "r", "new.yaml")


def test_the_old_eval_models_layout_reads_with_one_notice():
    params = {"eval": {"models": {"r": ENTRY, "t": {"adapter": "text-only"}}}}
    with pytest.warns(ParamsDeprecation, match=r"old\.yaml: `eval\.models` is deprecated: "
                                               r"move the block to a top-level `models:`"):
        assert model_names(params, "old.yaml") == ["r", "t"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per params file
        config = load_model_config(params, "r", "old.yaml")
    assert config.model_dump() == load_model_config({"models": {"r": ENTRY}}, "r").model_dump()
    with pytest.raises(ConfigError, match=r"old\.yaml: eval\.models\.r: model 'r' is disabled"):
        check_runnable(config, "r", "old.yaml")


def test_both_layouts_at_once_is_an_error():
    with pytest.raises(ConfigError, match=r"both `models:` and `eval\.models:` are set"):
        model_names({"models": {"r": ENTRY}, "eval": {"models": {"r": ENTRY}}}, "both.yaml")


def test_the_cli_prints_the_notice_as_one_line(tmp_path):
    # a real process: pytest would capture the warning before the CLI's hook sees it
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"eval": {"models": {"r": ENTRY, "t": {"adapter": "random"}}}}))
    result = subprocess.run([sys.executable, "-m", "bench_kit", "models", "list", "--params",
                             str(path)], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "warnings.warn" not in result.stderr
    notices = [line for line in result.stderr.splitlines() if "eval.models" in line]
    assert notices == [f"warning: {path}: `eval.models` is deprecated: move the block to a "
                       "top-level `models:` section (and `eval.models.NAME` in dvc.yaml params "
                       "to `models.NAME`)"]
    assert "r " in result.stdout and "t " in result.stdout
