"""Typed access to params.yaml: each module owns a small pydantic model for its section."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from bench_kit.errors import ConfigError

M = TypeVar("M", bound=BaseModel)
DEFAULT_PARAMS = "params.yaml"


class _StrictSafeLoader(yaml.SafeLoader):
    """yaml.SafeLoader that rejects duplicate mapping keys instead of keeping the last one."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}'", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_yaml(path: str | Path) -> Any:
    """Load a YAML file with the safe loader (no tags, no code); errors name the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text") from exc
    try:
        return yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}{where}: invalid YAML: {problem}") from exc


# What a command outside a project reads instead of params.yaml: every section takes its
# settings model's defaults; the only non-empty section lists the offline models any
# machine can run (the same entries `bench-kit init` writes), so `bench-kit eval run
# --model random|text-only|ocr` works without a project.
OFFLINE_MODELS: dict[str, dict[str, Any]] = {
    "random": {"adapter": "random", "seed": 0},
    "text-only": {"adapter": "text-only"},
    "ocr": {"adapter": "ocr"},
}


def no_project_params() -> dict[str, Any]:
    """The params a command uses when there is no params.yaml (a fresh copy)."""
    return {"models": {name: dict(cfg) for name, cfg in OFFLINE_MODELS.items()}}


DEFAULTS_NOTICE = ("no params.yaml here: using the documented defaults of every section "
                   "(bench-kit init writes a params.yaml to edit)")
_notice: dict[str, Any] = {"callback": None, "shown": False}


def on_defaults(callback: Callable[[str], None] | None) -> None:
    """Register who is told (once) that a command runs without a params.yaml (the CLI
    prints the line; the library never prints)."""
    _notice["callback"], _notice["shown"] = callback, False


def load_params(path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    """Load params.yaml as a dict (empty file = empty dict).

    Outside a project — the default `params.yaml` does not exist in the working folder —
    every section takes its documented defaults (`no_project_params`: the offline models,
    nothing else) and the `on_defaults` callback is told once. A missing file given by
    another name is an error.
    """
    if str(path) == DEFAULT_PARAMS and not Path(path).exists():
        if _notice["callback"] is not None and not _notice["shown"]:
            _notice["shown"] = True
            _notice["callback"](DEFAULTS_NOTICE)
        return no_project_params()
    data = load_yaml(path) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def section(params: dict[str, Any], dotted: str, model: type[M], *,
            source: str = DEFAULT_PARAMS, unknown: str = "unknown key") -> M:
    """Validate `params[dotted]` (e.g. "audit" or "models.ocr") against `model`.

    A missing section gives the model's defaults; a bad value raises ConfigError naming
    the full key path, e.g. `params.yaml: audit.max_words: Input should be a valid integer`;
    a key the model does not declare is reported as `unknown` (e.g. "unknown task").
    """
    node: Any = params
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            break
    try:
        return model.model_validate(node or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in (dotted, *first["loc"]))
        msg = unknown if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{source}: {loc}: {msg}") from exc
