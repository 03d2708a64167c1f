"""Loading items files into `Item` objects (fail-fast; `bench-kit validate` lists every problem)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bench_kit.artifacts.rows import iter_models, iter_objects, pydantic_problem
from bench_kit.errors import InputError
from bench_kit.types import Item

# The typed row reader lives in bench_kit.artifacts.rows; kept importable from here.
__all__ = ["ItemLimits", "default_root", "iter_models", "pydantic_problem", "read_items"]


class ItemLimits(BaseModel):
    """params.yaml `validate`: the longest text an item may hold, in characters. A longer
    question, option or gold answer is a validation problem (it would cost every stage
    after it, and be sent whole to every model)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_question_chars: int = Field(20_000, ge=1)
    max_option_chars: int = Field(2_000, ge=1)
    max_answer_chars: int = Field(2_000, ge=1)

    def problems(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        """(field, reason) for each text of `row` over its limit."""
        found: list[tuple[str, str]] = []

        def check(name: str, value: Any, limit: int, key: str) -> None:
            if isinstance(value, str) and len(value) > limit:
                found.append((name, f"{len(value):,} characters, more than validate.{key} "
                                    f"({limit:,})"))

        check("question", row.get("question"), self.max_question_chars, "max_question_chars")
        choices, answers = row.get("choices"), row.get("answers")
        for key, value in choices.items() if isinstance(choices, dict) else ():
            check(f"choices.{key}", value, self.max_option_chars, "max_option_chars")
        for number, value in enumerate(answers) if isinstance(answers, list) else ():
            check(f"answers[{number}]", value, self.max_answer_chars, "max_answer_chars")
        return found


def read_items(path: str | Path, limits: ItemLimits | None = None) -> list[Item]:
    """Read an items JSONL file; the first bad row (or, with `limits`, the first text over
    its limit) raises InputError naming line, id and field."""
    items: list[Item] = []
    seen: dict[str, int] = {}
    for line, row in iter_objects(path):
        oversized = limits.problems(row) if limits is not None else []
        if oversized:
            field, reason = oversized[0]
            ident = row.get("id")
            reason = f"(id {ident}) {reason}" if isinstance(ident, str) else reason
            raise InputError(reason, path=str(path), line=line, field=field)
        try:
            item = Item.model_validate(row)
        except ValidationError as exc:
            field, reason = pydantic_problem(exc)
            ident = row.get("id")
            reason = f"(id {ident}) {reason}" if isinstance(ident, str) else reason
            raise InputError(reason, path=str(path), line=line, field=field) from exc
        if item.id in seen:
            raise InputError(f"duplicate id '{item.id}' (first on line {seen[item.id]})",
                             path=str(path), line=line, field="id")
        seen[item.id] = line
        items.append(item)
    return items


def default_root(items_path: str | Path) -> Path:
    """The benchmark root that image paths are relative to: the items file's folder, or its
    parent when the file sits in a `splits/` folder (split files keep their source's paths)."""
    folder = Path(items_path).resolve().parent
    return folder.parent if folder.name == "splits" else folder
