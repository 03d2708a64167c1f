"""Each number once: modes that answered identically shown as one, columns that say
nothing hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # inputs imports model_audit, which imports this module
    from bench_kit.report.inputs import ModelRun


def _answers(run: ModelRun, mode: str) -> dict:
    return {i: (s.extracted, s.hit, s.score, s.parse, s.error)
            for i, s in run.scores.get(mode, {}).items()}


def shown_modes(run: ModelRun) -> list[tuple[str, str]]:
    """(mode, label) per distinct set of answers: a mode whose every answer equals an earlier
    mode's (a blind baseline in no_image and blank_image) is shown once, labelled with both
    (`no_image = blank_image`)."""
    groups: list[tuple[str, list[str], dict]] = []
    for mode in run.modes:
        answers = _answers(run, mode)
        for _first, names, seen in groups:
            if answers == seen:
                names.append(mode)
                break
        else:
            groups.append((mode, [mode], answers))
    return [(first, " = ".join(names)) for first, names, _ in groups]


def sees_image(run: ModelRun) -> bool:
    """Whether the model looks at the image: it ran the image mode and answered there
    unlike in every blind mode (a blind baseline gives the same answers with the image)."""
    return any(label == "image" for _, label in shown_modes(run))


def is_empty(value: object) -> bool:
    """A cell that says nothing: None, 0 or 0.0."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and value == 0)


def visible_columns(rows: list[dict], columns: list[dict]) -> list[dict]:
    """The columns with something to say: a column marked `optional` is dropped when every
    row's value is empty, or equals its `same_as` key in every row (score mean = accuracy)."""
    out = []
    for col in columns:
        if col.get("optional") and rows:
            key, twin = col["key"], col.get("same_as")
            if all(is_empty(r.get(key)) for r in rows):
                continue
            if twin and all(r.get(key) == r.get(twin) for r in rows):
                continue
        out.append(col)
    return out


def run_labels(runs: list[ModelRun]) -> dict[str, str | None]:
    """`model/mode` -> how a per-run table shows it: `prior/no_image = blank_image` for the
    first of identical modes, None for the others (left out), itself otherwise."""
    out: dict[str, str | None] = {}
    for run in runs:
        for mode, label in shown_modes(run):
            names = label.split(" = ")
            out[f"{run.model}/{mode}"] = f"{run.model}/{label}"
            out.update({f"{run.model}/{other}": None for other in names[1:]})
    return out


def merge_runs(rows: list[dict], labels: dict[str, str | None]) -> list[dict]:
    """Rows keyed by `run` (`model/mode`) with identical modes shown once."""
    return [{**row, "run": labels.get(row["run"], row["run"])} for row in rows
            if labels.get(row["run"], row["run"]) is not None]
