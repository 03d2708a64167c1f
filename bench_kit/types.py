"""The data contracts of docs/ITEMS.md as frozen pydantic types.

`bench_kit.schemas` holds the pandera twins of these types; a test keeps their columns equal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# The layout version stamped on files that cross a stage (per kind: bench_kit.artifacts.versions).
FORMAT_VERSION = 1
TASKS = ("mc", "yesno", "open", "numeric", "grounding", "checklist")
LAYERS = ("perception", "understanding", "reasoning", "alignment")
DIFFICULTIES = ("easy", "medium", "hard")
MODES = ("image", "no_image", "blank_image")
PARSES = ("ok", "lenient", "judge", "failed")
SEVERITIES = ("info", "warn", "error")
SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}  # higher = more severe
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
LETTERS = "ABCDEFGHIJ"
CHECK_PATTERN = r"^[a-z_]+\.[a-z0-9_]+$"

Task = Literal["mc", "yesno", "open", "numeric", "grounding", "checklist"]
Layer = Literal["perception", "understanding", "reasoning", "alignment"]
Difficulty = Literal["easy", "medium", "hard"]
Mode = Literal["image", "no_image", "blank_image"]
Parse = Literal["ok", "lenient", "judge", "failed"]
Severity = Literal["info", "warn", "error"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Check(_Frozen):
    """One yes/no check of a `checklist` item."""

    name: str = Field(min_length=1)
    answer: bool
    criteria: str | None = None


def task_rule_violations(task: str, answers: list[str], choices: dict[str, str] | None,
                         checks: list[Any] | None) -> list[tuple[str, str]]:
    """Every cross-field rule of docs/ITEMS.md#fields an item breaks, as (field, reason) pairs.

    >>> task_rule_violations("mc", ["C"], {"A": "red", "B": "blue"}, None)
    [('answers', "gold ['C'] not among the choices ['A', 'B']")]
    """
    broken: list[tuple[str, str]] = []
    if task == "checklist":
        if not checks:
            broken.append(("checks", "a checklist item needs at least one check"))
    elif not answers:
        broken.append(("answers", "must not be empty"))
    if task == "mc":
        if not choices or not 2 <= len(choices) <= 10:
            broken.append(("choices", "an mc item needs 2-10 options"))
        if choices:
            bad_keys = [k for k in choices if k not in LETTERS]
            if bad_keys:
                broken.append(("choices", f"option keys must be letters A-J, got {bad_keys}"))
            missing = [a for a in answers if a not in choices]
            if missing:
                broken.append(("answers", f"gold {missing} not among the choices "
                                          f"{sorted(choices)}"))
    if task == "yesno":
        bad = [a for a in answers if a not in ("yes", "no")]
        if bad:
            broken.append(("answers", f"yesno answers must be 'yes' or 'no', got {bad}"))
    return broken


class Item(BaseModel):
    """One benchmark question (docs/ITEMS.md#fields). Extra columns are kept, never dropped."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str = Field(pattern=ID_PATTERN)
    image: str | list[str] | None = None
    question: str = Field(min_length=1)
    task: Task
    choices: dict[str, str] | None = None
    answers: list[str] = Field(default_factory=list)
    checks: list[Check] | None = None
    metric: str | None = None
    tolerance: float | None = None
    capability: str = Field(min_length=1)
    layer: Layer
    difficulty: Difficulty
    variant: str = "v0"
    variant_of: str | None = None
    variant_kind: str = "original"
    source: str = "human"
    group: str | None = None
    created_at: datetime
    rubric: str | None = None
    note: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("question")
    @classmethod
    def _question_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("created_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("must carry a timezone (ISO-8601 UTC, e.g. 2026-01-31T00:00:00Z)")
        return value

    @model_validator(mode="after")
    def _task_rules(self) -> "Item":
        broken = task_rule_violations(self.task, self.answers, self.choices, self.checks)
        if broken:
            field, reason = broken[0]
            raise ValueError(f"{field}: {reason}")
        return self

    @property
    def images(self) -> list[str]:
        """The image paths as a list (empty for text-only items)."""
        if self.image is None:
            return []
        return [self.image] if isinstance(self.image, str) else list(self.image)


class Prediction(_Frozen):
    """One model call's outcome (docs/ITEMS.md#predictions). `error` set = failed request, not a wrong answer."""

    id: str
    model: str
    mode: Mode
    rotation: int = 0
    prompt_sha: str
    response: str | None
    error: str | None = None
    latency_s: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    cached: bool = False
    truncated: bool = False
    created_at: datetime
    # The input protocol actually used: prompt version, images sent (hash, size, MIME),
    # and what a pipeline model read (e.g. `ocr_text`). None in files from other tools.
    protocol: dict[str, Any] | None = None


class Score(_Frozen):
    """One item's score for one model and mode (docs/ITEMS.md#scores)."""

    id: str
    model: str
    mode: Mode
    metric: str
    extracted: str | None
    parse: Parse
    score: float = Field(ge=0.0, le=1.0)
    hit: bool
    error: str | None = None


class Finding(_Frozen):
    """One audit finding for one item and check (docs/ITEMS.md#findings)."""

    id: str
    check: str = Field(pattern=CHECK_PATTERN)
    severity: Severity
    score: float = Field(ge=0.0, le=1.0)
    message: str
    evidence: dict[str, Any] = Field(default_factory=dict)


# Variant kinds as robustness tables show them: deixis split by whether the image marks
# the referent (see docs/AUTHORING.md).
MARKED_DEIXIS = "deixis (marked region)"
OTHER_DEIXIS = "deixis (other)"


def robustness_kind(item: "Item") -> str:
    """The item's variant kind as robustness tables show it: deixis split into
    "marked-region" deixis (the referent marked on the image, `meta.visual_prompt`; see
    docs/AUTHORING.md) and the other deixis (mc options, the whole image)."""
    if item.variant_kind != "deixis":
        return item.variant_kind
    return MARKED_DEIXIS if isinstance((item.meta or {}).get("visual_prompt"), dict) \
        else OTHER_DEIXIS
