"""Typed access to params.yaml: each module owns a small pydantic model for its section."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

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
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        return yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}{where}: invalid YAML: {problem}") from None


def load_params(path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    """Load params.yaml as a dict (empty file = empty dict)."""
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
        raise ConfigError(f"{source}: {loc}: {msg}") from None
