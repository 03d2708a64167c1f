"""Reading predictions files for scoring: ours (`results/<bench>/<model>/<mode>.jsonl`)
and foreign ones (any JSONL with `id` and `response`, from another harness).

A second row for the same (id, rotation) is counted as `duplicated` and ignored (the
first row is kept), so a re-appended file is reported, never double-counted. A prediction
whose `error` starts with `unsupported:` is an item the model's adapter cannot take (e.g.
several images for a single-image model): it is counted as `unsupported`, apart from
transport errors, and like them stays out of every denominator.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from bench_kit.artifacts.rows import iter_objects, validate_row
from bench_kit.artifacts.tables import write_rows
from bench_kit.errors import InputError
from bench_kit.types import Prediction

UNSUPPORTED_PREFIX = "unsupported:"
# Foreign rows without a timestamp get this one, so scoring output stays byte-identical.
FOREIGN_CREATED_AT = "1970-01-01T00:00:00Z"


def is_unsupported(error: str | None) -> bool:
    """Whether a prediction error says the adapter cannot take the item.

    >>> is_unsupported("unsupported: 3 images for a single-image model"), is_unsupported("timeout")
    (True, False)
    """
    return error is not None and error.startswith(UNSUPPORTED_PREFIX)


@dataclass(frozen=True)
class PredictionFile:
    """One mode's predictions (first row per id and rotation) and how many rows repeated
    an (id, rotation) already read."""

    path: Path
    mode: str
    predictions: list[Prediction]
    duplicated: int = 0


def _foreign_row(row: dict[str, Any], *, model: str, mode: str, path: Path,
                 line: int) -> dict[str, Any]:
    """A foreign row completed to the Prediction contract: model, mode, rotation,
    prompt_sha and created_at filled when absent; a number response becomes text."""
    if "id" not in row:
        raise InputError("a predictions row needs 'id'", path=str(path), line=line, field="id")
    if "response" not in row and not row.get("error"):
        raise InputError("a predictions row needs 'response' (or 'error')", path=str(path),
                         line=line, field="response")
    filled = {"model": model, "mode": mode, "rotation": 0, "prompt_sha": "",
              "created_at": FOREIGN_CREATED_AT, "response": None, **row}
    if isinstance(filled["id"], (int, float)) and not isinstance(filled["id"], bool):
        filled["id"] = str(filled["id"])
    response = filled["response"]
    if isinstance(response, (int, float)) and not isinstance(response, bool):
        filled["response"] = str(response)
    return filled


def load_predictions(path: str | Path, *, model: str, mode: str,
                     foreign: bool = False) -> PredictionFile:
    """Read one mode's predictions, checking each row's model, mode and id.

    Args:
        path: the JSONL file.
        model: the model name every row must carry (filled in where a foreign row has none).
        mode: the mode every row must carry (likewise).
        foreign: accept rows with only `id` and `response` (see the module docstring).

    Raises:
        InputError: naming the file and line of a malformed row or a row of another model
            or mode.
    """
    path = Path(path)
    predictions: list[Prediction] = []
    seen: set[tuple[str, int]] = set()
    duplicated = 0
    for line, row in iter_objects(path, kind="predictions"):
        if foreign:
            row = _foreign_row(row, model=model, mode=mode, path=path, line=line)
        # Runners may add columns of their own; the contract's columns are validated.
        prediction = validate_row(Prediction, row, path=path, line=line, known_only=True)
        if prediction.model != model:
            raise InputError(f"prediction of model '{prediction.model}' in the results of "
                             f"'{model}' (wrong --model or --results?)",
                             path=str(path), line=line, field="model")
        if prediction.mode != mode:
            raise InputError(f"mode '{prediction.mode}' in the {mode} file",
                             path=str(path), line=line, field="mode")
        key = (prediction.id, prediction.rotation)
        if key in seen:
            duplicated += 1
            continue
        seen.add(key)
        predictions.append(prediction)
    return PredictionFile(path=path, mode=mode, predictions=predictions, duplicated=duplicated)


def write_predictions(path: str | Path, predictions: Iterable[Prediction | dict[str, Any]]) -> int:
    """Write one model's predictions in one mode (`results/<bench>/<model>/<mode>.jsonl`),
    each row stamped with the current `format_version`; return the row count."""
    return write_rows(path, predictions, "predictions")
