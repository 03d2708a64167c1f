"""Reading an items file for audit: every item that validates is audited, every problem of
the others becomes a finding.

An auditor's first job is to report every defect of a dirty file, so `audit data` does not
stop at the first bad row the way `read_items` does. The file is run through the validator
(`bench_kit.validate.validate_items_file`: per-line pydantic parse, the pandera table
checks, task rules, image files); each line with a problem is turned into findings of
`label.gold_not_in_choices`, `label.empty_answers`, `schema.image` or `schema.invalid_item`
(the problems of one line and kind in one finding, with the line and field). Only a row
that cannot be read as an item (`blocks_audit`) is left out of the other checks: table-level
problems (`variant_of`, a group's split or image set, a missing image file) are findings on
an item that still gets every content check. Only a file that cannot
be read at all (missing, not a file) stops the audit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_kit.audit.registry import AuditContext, CheckSpec, NoParams, check
from bench_kit.errors import Problem
from bench_kit.types import Item


@dataclass
class Intake:
    """The items that validated, and the problems of the lines that did not."""

    items: list[Item]
    problems: list[Problem] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)  # item id -> line
    rows: int = 0

    @property
    def invalid_lines(self) -> int:
        """How many lines had at least one problem."""
        return len({p.line for p in self.problems if p.line is not None})


# Problems that leave the row readable: a reference to the project's settings (taxonomy,
# metric names) and the table-level rules (`variant_of`, a group's split). They are reported
# on the item, and the item still gets every content check — its text, labels and image are
# what the audit is about.
NON_BLOCKING_FIELDS = frozenset({"capability", "layer", "metric", "variant_of", "split"})


def blocks_audit(problem: Problem) -> bool:
    """True when a validation problem leaves the row out of the content checks.

    Only a row that cannot be read as an item is left out: bad JSON, a field of the wrong
    type, a duplicate id (two items cannot share findings). A missing image file is not a
    reason either: the item's text is still audited, the image checks skip the file.
    """
    if problem.field in NON_BLOCKING_FIELDS:
        return False
    field = (problem.field or "").split("[", 1)[0]
    return not (field == "image" and problem.reason.endswith("not found"))


def read_for_audit(path: str | Path, *, root: str | Path | None = None,
                   params_path: str | Path | None = None) -> Intake:
    """Validate `path` and keep the items without problems (see the module docstring).

    `params_path` gives the taxonomy (None: ./params.yaml when it exists, as `validate`).

    Raises:
        InputError: the file cannot be read at all.
    """
    from bench_kit.validate import validate_items_file

    # Images are only checked for existence here: the audit decodes each one once anyway
    # (AuditContext.images), and a file that does not decode is reported by schema.image.
    report = validate_items_file(path, root=root, params_path=params_path, decode_images=False)
    bad_lines = {p.line for p in report.problems if p.line is not None and blocks_audit(p)}
    items: list[Item] = []
    lines: dict[str, int] = {}
    # A column missing from the whole table is already reported on every line without it.
    problems = [p for p in report.problems if p.kind not in ("empty_file", "missing_column")]
    for line, row in iter_jsonl_lenient(path):
        if line in bad_lines:
            continue
        try:
            item = Item.model_validate(row)
        except ValueError as exc:  # the validator is stricter; kept as a guard
            problems.append(Problem(line, row.get("id") if isinstance(row, dict) else None,
                                    None, str(exc).splitlines()[0], str(path)))
            continue
        items.append(item)
        lines[item.id] = line
    return Intake(items=items, problems=problems, lines=lines, rows=report.items)


def iter_jsonl_lenient(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line, parsed object) for each line that parses (`bench_kit.io.iter_jsonl` stops at
    a bad line instead); lines that do not parse were reported by the validator."""
    import json

    from bench_kit.io import open_binary, parse_json_line

    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
                if text.strip():
                    yield number, parse_json_line(text.rstrip("\r\n"))
            except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError):
                continue


def problem_check(problem: Problem) -> str:
    """The check a validation problem is reported under."""
    reason = problem.reason
    if problem.field == "answers" and "not among the choices" in reason:
        return "label.gold_not_in_choices"
    if problem.field == "answers" and reason in ("must not be empty", "missing required field"):
        return "label.empty_answers"
    if problem.field and problem.field.split("[", 1)[0] == "image":
        return "schema.image"
    return "schema.invalid_item"


def problem_item_id(problem: Problem) -> str:
    """The finding id of a problem: the item's id, or `line:N` when the row has none."""
    if problem.id:
        return problem.id
    return f"line:{problem.line}" if problem.line is not None else "(file)"


def problem_findings(ctx: AuditContext, spec: CheckSpec, message: str) -> Iterator[Any]:
    """One finding per line for the validation problems reported under check `spec`."""
    name = spec.name
    grouped: dict[tuple[int | None, str], list[Problem]] = {}
    for problem in ctx.invalid:
        if problem_check(problem) == name:
            grouped.setdefault((problem.line, problem_item_id(problem)), []).append(problem)
    seen: set[str] = set()
    for (line, ident), problems in sorted(grouped.items(), key=lambda kv: (kv[0][0] or 0)):
        if ident in seen or (ident in ctx.by_id and ctx.item_lines.get(ident) != line):
            # a duplicate id: name the line too
            ident = f"{ident}@line:{line}"
        seen.add(ident)
        first = problems[0]
        yield spec.finding(
            ident, f"line {line}: {message}: " + "; ".join(
                f"{p.field or '-'}: {p.reason}" for p in problems),
            {"line": line, "field": first.field, "reason": first.reason,
             "problems": [p.to_dict() for p in problems],
             "excluded_from_audit": any(blocks_audit(p) for p in problems)})


@check("label.empty_answers", severity="error")
def empty_answers(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Any]:
    """An item with no gold answer (it cannot be scored; left out of the other checks)."""
    yield from problem_findings(ctx, spec, "no gold answer")


@check("schema.invalid_item", severity="error")
def invalid_item(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Any]:
    """A line that breaks the item contract (docs/ITEMS.md); left out of the other checks."""
    yield from problem_findings(ctx, spec, "breaks the item contract")


@check("schema.image", severity="error")
def image_problem(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Any]:
    """An image file that is missing or cannot be decoded (left out of the image checks)."""
    reported = set()
    for finding in problem_findings(ctx, spec, "image problem"):
        reported.add(finding.id)
        yield finding
    if not any(item.images for item in ctx.items):
        return
    ctx.images  # noqa: B018 — decodes each image once (shared with the image checks)
    for ident in sorted(set(ctx.image_problems) - reported):
        problems = ctx.image_problems[ident]
        line = ctx.item_lines.get(ident)
        yield spec.finding(
            ident, f"line {line}: image problem: " + "; ".join(
                f"{image}: {reason}" for image, reason in problems),
            {"line": line, "field": "image", "reason": problems[0][1],
             "images": [image for image, _ in problems], "excluded_from_audit": False})


@check("schema.group_images", severity="warn")
def group_images(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Any]:
    """An item whose image set differs from its group's first item (a warning, docs/ITEMS.md)."""
    from bench_kit.schemas import group_image_conflicts
    from bench_kit.validate import group_image_message

    rows = [{"group": item.group, "image": item.image, "meta": item.meta} for item in ctx.items]
    for position, first in group_image_conflicts(rows):
        item, head = ctx.items[position], ctx.items[first]
        line = ctx.item_lines.get(item.id)
        yield spec.finding(item.id, f"line {line}: " + group_image_message(
            item.group, ctx.item_lines.get(head.id, 0)),
            {"line": line, "field": "image", "group": item.group, "first_item": head.id})
