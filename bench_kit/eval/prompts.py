"""Prompt templates per task, overridable in params (`eval.prompts.<task>`), with a version.

Templates use `{name}` placeholders: `{question}` (all tasks), `{options}` (mc: one
"A. text" line per option), `{checks}` (checklist: one "1. check" line per check),
`{width}` and `{height}` (the first image's size in pixels). Other braces are left as
written, so a template may show JSON.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from bench_kit.artifacts.rotation import rotate_choices, rotated_gold  # noqa: F401 (re-export)
from bench_kit.errors import ConfigError
from bench_kit.models.config import PromptParams
from bench_kit.types import Item

PROMPT_VERSION = "default/1"
PLACEHOLDERS = ("question", "options", "checks", "width", "height")
REQUIRED = {"mc": ("question", "options"), "checklist": ("question", "checks")}

DEFAULT_TEMPLATES: dict[str, str] = {
    "mc": "{question}\n{options}\nAnswer with the option's letter from the given choices "
          "directly.",
    "yesno": "{question}\nAnswer the question using a single word: yes or no.",
    "numeric": "{question}\nAnswer with a single number.",
    "open": "{question}\nAnswer the question using a single word or phrase.",
    "grounding": "{question}\nThe image is {width}x{height} pixels. Give the bounding box as "
                 "[x1, y1, x2, y2] in pixels, where (x1, y1) is the top-left corner and "
                 "(x2, y2) the bottom-right corner.",
    "checklist": "{question}\nCheck each statement against the image:\n{checks}\nAnswer each "
                 "check on its own line as: <number>. yes|no - <one-line reason>.",
}

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def prompt_sha(text: str) -> str:
    """Short content hash of a rendered prompt (first 16 hex digits of sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _fill(template: str, values: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


@dataclass(frozen=True)
class RenderedPrompt:
    """The text sent for one item (and rotation), its hash and the choices as shown."""

    text: str
    sha: str
    choices: dict[str, str] | None


@dataclass(frozen=True)
class PromptSet:
    """The template of every task and the version label recorded with predictions."""

    templates: Mapping[str, str]
    version: str = PROMPT_VERSION

    @classmethod
    def from_params(cls, params: PromptParams, source: str = "params.yaml") -> "PromptSet":
        """Defaults with the overrides of `eval.prompts`; bad placeholders are ConfigErrors."""
        overrides = params.overrides()
        for task, template in overrides.items():
            where = f"{source}: eval.prompts.{task}"
            used = set(_PLACEHOLDER.findall(template))
            unknown = sorted(u for u in used if u not in PLACEHOLDERS)
            if unknown:
                raise ConfigError(f"{where}: unknown placeholder {{{unknown[0]}}} "
                                  f"(known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})")
            missing = [p for p in REQUIRED.get(task, ("question",)) if p not in used]
            if missing:
                raise ConfigError(f"{where}: the template must contain {{{missing[0]}}}")
        version = params.version or PROMPT_VERSION
        if overrides and not params.version:
            digest = hashlib.sha256(json.dumps(overrides, sort_keys=True).encode()).hexdigest()
            version = f"custom/{digest[:8]}"
        return cls(templates={**DEFAULT_TEMPLATES, **overrides}, version=version)

    def render(self, item: Item, rotation: int = 0,
               image_size: tuple[int, int] | None = None) -> RenderedPrompt:
        """The prompt for `item` (options rotated by `rotation` for mc).

        Raises:
            ValueError: a grounding item without an image size (callers name the item).
        """
        values = {"question": item.question.strip()}
        shown = None
        if item.task == "mc" and item.choices:
            shown = rotate_choices(item.choices, rotation)
            values["options"] = "\n".join(f"{k}. {v}" for k, v in shown.items())
        if item.task == "checklist":
            values["checks"] = "\n".join(_check_line(n, c.name, c.criteria)
                                         for n, c in enumerate(item.checks or [], start=1))
        if image_size is not None:
            values["width"], values["height"] = str(image_size[0]), str(image_size[1])
        elif item.task == "grounding":
            raise ValueError("a grounding item needs an image (its size goes in the prompt)")
        text = _fill(self.templates[item.task], values)
        return RenderedPrompt(text=text, sha=prompt_sha(text), choices=shown)


def _check_line(number: int, name: str, criteria: str | None) -> str:
    return f"{number}. {name}" + (f" ({criteria})" if criteria else "")


def check_names(item: Item) -> Sequence[str] | None:
    """The check texts of a checklist item (None for other tasks)."""
    return [c.name for c in item.checks] if item.checks else None
