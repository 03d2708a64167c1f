"""Long-form checklist tables (DSG / TIFA style): one row per (prompt or image, check).

Rows sharing a prompt id (and, when present, the text-to-image model whose image they
judge) become one `checklist` item whose checks keep their question ids and dependencies
in `meta`. A table without an answer column is a prompt-only checklist, as text-to-image
evaluations ship them: every check expects "yes" and the item has no image until one is
attached. Answer values that are not answers (`unanswerable`, `unsuitable`, empty,
repeated tokens) are row problems, never golds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from bench_kit.errors import param
from bench_kit.exchange.cells import RowError
from bench_kit.exchange.checkcells import parse_bool
from bench_kit.exchange.imagefiles import ImageStore
from bench_kit.exchange.rows import (
    CHECKLIST_QUESTION,
    IMPORTERS,
    BadRow,
    ImportOptions,
    non_answer_reason,
)
from bench_kit.exchange.tabular import iter_table, store_local_images

GROUP_COLUMNS = ("item_id", "prompt_id", "id")
PROMPT_COLUMNS = ("text", "prompt", "caption")
CHECK_COLUMNS = ("question_natural_language", "question", "check", "statement")
ANSWER_COLUMNS = ("answer", "label", "gold")
QID_COLUMNS = ("proposition_id", "question_id")
DEPENDENCY_COLUMNS = ("dependency", "dependency_id", "dependencies")
IMAGE_COLUMNS = ("image", "image_path", "file_name")
MODEL_COLUMNS = ("t2i_model", "model")
# DSG/TIFA annotations that belong to one check, not to its prompt
PER_CHECK_COLUMNS = ("keywords", "tuple", "category_broad", "category_detailed")


def _column(header: list[str], names: tuple[str, ...], mapped: str | None,
            required: str | None = None) -> str | None:
    if mapped:
        if mapped not in header:
            raise RowError(required or "column", f"{param('column_map')}: no column '{mapped}'")
        return mapped
    found = next((n for n in names if n in header), None)
    if found is None and required:
        raise RowError(required, f"no {required} column (looked for {', '.join(names)}; use "
                                 f"{param('column_map', f'{required}=COLUMN')})")
    return found


def _required_column(header: list[str], names: tuple[str, ...], mapped: str | None,
                     required: str) -> str:
    found = _column(header, names, mapped, required)
    assert found is not None  # _column raises when a required column is missing
    return found


def _dependencies(text: str) -> list[str]:
    parts = [p.strip() for p in str(text).replace(";", ",").split(",")]
    return [p for p in parts if p and p != "0"]


@dataclass(frozen=True)
class _Columns:
    """The columns of a checklist table, found by name (or `column_map`)."""

    group: str
    check: str
    answer: str | None
    image: str | None
    prompt: str | None
    qid: str | None
    dependency: str | None
    model: str | None

    @property
    def used(self) -> set[str]:
        """The columns read into an item's fields (the others are kept in meta)."""
        return {c for c in (self.group, self.check, self.answer, self.image, self.prompt,
                            self.qid, self.dependency, self.model) if c}


def _find_columns(header: list[str], opts: ImportOptions, path: Path) -> _Columns:
    """The table's columns (InputError naming line 1 when a required one is missing)."""
    from bench_kit.errors import InputError

    cmap = opts.column_map
    try:
        group = _required_column(header, GROUP_COLUMNS, cmap.get("id"), "id")
        check = _required_column(header, CHECK_COLUMNS, cmap.get("question"), "question")
        answer = _column(header, ANSWER_COLUMNS, cmap.get("answer"))
        image = _column(header, IMAGE_COLUMNS, cmap.get("image"))
    except RowError as exc:
        raise InputError(exc.reason, path=str(path), line=1, field=exc.field) from exc
    return _Columns(group, check, answer, image, _column(header, PROMPT_COLUMNS, None),
                    _column(header, QID_COLUMNS, None),
                    _column(header, DEPENDENCY_COLUMNS, None),
                    _column(header, MODEL_COLUMNS, None))


def _say_columns(cols: _Columns, header: list[str], opts: ImportOptions) -> None:
    """Record which column became which field, and what is kept in meta."""
    named = {"id": cols.group, "check": cols.check, "answer": cols.answer, "image": cols.image,
             "prompt (meta.prompt)": cols.prompt, "check id": cols.qid,
             "dependency": cols.dependency, "t2i model": cols.model}
    opts.decisions.append("columns: " + ", ".join(f"{k}<-{v}" for k, v in named.items() if v)
                          + ("" if cols.answer else "; no answer column: every check expects yes"))
    used = cols.used
    per_check = [c for c in header if c not in used and c in PER_CHECK_COLUMNS]
    per_prompt = [c for c in header if c not in used and c not in PER_CHECK_COLUMNS]
    if per_check:
        opts.decisions.append(f"kept per check in meta.check_source: {', '.join(per_check)}")
    if per_prompt:
        opts.decisions.append(f"kept in meta: {', '.join(per_prompt)}")


def _row_problem(row: dict[str, Any], cols: _Columns) -> BadRow | None:
    """Why a row cannot be a check (a non-answer, an empty check text or group id)."""
    prompt_id = row[cols.group].strip()
    check_text = row[cols.check].strip()
    answer = row[cols.answer] if cols.answer else "yes"
    reason = non_answer_reason(answer) or ("empty check text" if not check_text else None)
    if reason is None:
        try:
            parse_bool(answer, "answer")
        except RowError as exc:
            reason = exc.reason
    if not prompt_id:
        reason = f"empty {cols.group}"
    if not reason:
        return None
    field = "question" if not check_text else (cols.group if not prompt_id
                                               else cols.answer or "answer")
    return BadRow(field, reason, {"id": prompt_id, **row})


def _new_group(row: dict[str, Any], cols: _Columns, line: int, model: str,
               image: str) -> dict[str, Any]:
    """The checklist item a row's prompt (and model) starts, without checks yet."""
    prompt_id = row[cols.group].strip()
    meta: dict[str, Any] = {"prompt_id": prompt_id, "question_ids": [], "dependencies": {}}
    if cols.prompt:
        meta["prompt"] = row[cols.prompt]
    if model:
        meta["t2i_model"] = model
    used = cols.used
    meta.update({k: v for k, v in row.items() if k not in used and k not in PER_CHECK_COLUMNS})
    return {"line": line, "id": prompt_id + (f":{model}" if model else ""),
            "question": CHECKLIST_QUESTION, "task": "checklist", "checks": [], "meta": meta,
            "group": f"prompt:{prompt_id}", "_image": image}


def _add_check(group: dict[str, Any], row: dict[str, Any], cols: _Columns) -> None:
    """Add a row's check to its item: text and answer, id, annotations and dependencies."""
    qid = row[cols.qid].strip() if cols.qid else str(len(group["checks"]) + 1)
    answer = row[cols.answer] if cols.answer else "yes"
    group["checks"].append({"name": row[cols.check].strip(), "answer": answer})
    group["meta"]["question_ids"].append(qid)
    used = cols.used
    check_fields = {k: row[k] for k in PER_CHECK_COLUMNS if k in row and k not in used}
    if check_fields:
        group["meta"].setdefault("check_source", {})[qid] = check_fields
    deps = _dependencies(row[cols.dependency]) if cols.dependency else []
    if deps:
        group["meta"]["dependencies"][qid] = deps


def _checklist_rows(path: Path, opts: ImportOptions, store: ImageStore
                    ) -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
    """Bad rows as they come, then one item per (prompt, model or image), its image stored."""
    rows = list(iter_table(path, ",", opts.max_image_bytes))
    good = [row for _, row in rows if not isinstance(row, BadRow)]
    header = list(good[0]) if good else []
    cols = _find_columns(header, opts, path)
    _say_columns(cols, header, opts)
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for line, row in rows:
        if isinstance(row, BadRow):
            yield line, row
            continue
        problem = _row_problem(row, cols)
        if problem is not None:
            yield line, problem
            continue
        model = row[cols.model].strip() if cols.model else ""
        image = row[cols.image].strip() if cols.image else ""
        key = (row[cols.group].strip(), model or image)
        if key not in groups:
            groups[key] = _new_group(row, cols, line, model, image)
        _add_check(groups[key], row, cols)
    yield from _with_images(groups.values(), path, opts, store)


def _with_images(groups: Iterable[dict[str, Any]], path: Path, opts: ImportOptions,
                 store: ImageStore) -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
    """Each item with its image stored (a missing or unreadable image: a bad row)."""
    for group in groups:
        line = group.pop("line")
        image = group.pop("_image")
        if image:
            try:
                group["image"] = store_local_images(image, path.parent, store, opts.image_root)
            except RowError as exc:
                yield line, BadRow(exc.field, exc.reason, group)
                continue
        yield line, group


@IMPORTERS.register("checklist-csv")
def read_checklist_csv(path: Path, opts: ImportOptions, store: ImageStore):
    """Long-form checklist CSV (DSG/TIFA): rows grouped into one checklist per prompt/image.

    Recognised columns: item_id/prompt_id/id (the group), text/prompt (the prompt, kept in
    meta), question_natural_language/question (the check), answer (yes/no; absent = every
    check expects yes), proposition_id/question_id and dependency (kept in meta),
    t2i_model (one item per prompt and model, sharing the prompt's group), image.
    """
    yield from _checklist_rows(path, opts, store)
