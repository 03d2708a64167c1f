"""`bench-kit models list`: configured models and whether their key is present."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from bench_kit.cli import cli

SECRET = "sk-models-SENTINEL-0c4d"
MODELS = {"local": {"adapter": "random"},
          "claude": {"adapter": "anthropic", "model": "claude-x",
                     "base_url": "https://api.anthropic.com/v1", "api_key_env": "BK_M_SET"},
          "gem": {"adapter": "gemini", "model": "gemini-x", "api_key_env": "BK_M_UNSET",
                  "enabled": False},
          "broken": {"adapter": "openai", "colour": "red"}}


@pytest.fixture
def params(tmp_path, monkeypatch):
    monkeypatch.setenv("BK_M_SET", SECRET)
    monkeypatch.delenv("BK_M_UNSET", raising=False)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"eval": {"models": MODELS}}, sort_keys=False))
    return path


def test_json_lists_every_model_with_key_presence_never_the_key(params) -> None:
    result = CliRunner().invoke(cli, ["models", "list", "--format", "json", "--params",
                                      str(params)])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert list(rows) == ["local", "claude", "gem", "broken"]
    assert (rows["local"]["key"], rows["claude"]["key"], rows["gem"]["key"]) == \
        ("not needed", "present", "missing")
    assert (rows["claude"]["adapter"], rows["gem"]["enabled"]) == ("anthropic", False)
    assert "broken.colour: unknown key" in rows["broken"]["problem"]
    assert SECRET not in result.output


def test_table_has_a_header_and_one_line_per_model(params) -> None:
    result = CliRunner().invoke(cli, ["models", "list", "--params", str(params)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "adapter", "model", "enabled", "api_key_env", "key"]
    assert lines[2].split() == ["claude", "anthropic", "claude-x", "yes", "BK_M_SET", "present"]
    assert lines[3].split() == ["gem", "gemini", "gemini-x", "no", "BK_M_UNSET", "missing"]
    assert lines[5].startswith("  problem: ") and SECRET not in result.output


def test_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["models", "list", "--help"])
    assert "Example:" in result.output and "bench-kit models list" in result.output
