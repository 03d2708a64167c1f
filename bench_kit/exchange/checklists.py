"""Long-form checklist tables (DSG / TIFA style): one row per (prompt or image, check).

Rows sharing a prompt id (and, when present, the text-to-image model whose image they
judge) become one `checklist` item whose checks keep their question ids and dependencies
in `meta`. A table without an answer column is a prompt-only checklist, as text-to-image
evaluations ship them: every check expects "yes" and the item has no image until one is
attached. Answer values that are not answers (`unanswerable`, `unsuitable`, empty,
repeated tokens) are row problems, never golds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

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
            raise RowError(required or "column", f"--map: no column '{mapped}'")
        return mapped
    found = next((n for n in names if n in header), None)
    if found is None and required:
        raise RowError(required, f"no {required} column (looked for {', '.join(names)}; use "
                                 f"--map {required}=COLUMN)")
    return found


def _required_column(header: list[str], names: tuple[str, ...], mapped: str | None,
                     required: str) -> str:
    found = _column(header, names, mapped, required)
    assert found is not None  # _column raises when a required column is missing
    return found


def _dependencies(text: str) -> list[str]:
    parts = [p.strip() for p in str(text).replace(";", ",").split(",")]
    return [p for p in parts if p and p != "0"]


def _checklist_rows(path: Path, opts: ImportOptions, store: ImageStore
                    ) -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
    from bench_kit.errors import InputError

    rows = list(iter_table(path, ",", opts.max_image_bytes))
    good = [row for _, row in rows if not isinstance(row, BadRow)]
    header = list(good[0]) if good else []
    cmap = opts.column_map
    try:
        group_col = _required_column(header, GROUP_COLUMNS, cmap.get("id"), "id")
        check_col = _required_column(header, CHECK_COLUMNS, cmap.get("question"), "question")
        answer_col = _column(header, ANSWER_COLUMNS, cmap.get("answer"))
        image_col = _column(header, IMAGE_COLUMNS, cmap.get("image"))
    except RowError as exc:
        raise InputError(exc.reason, path=str(path), line=1, field=exc.field) from exc
    prompt_col = _column(header, PROMPT_COLUMNS, None)
    qid_col = _column(header, QID_COLUMNS, None)
    dep_col = _column(header, DEPENDENCY_COLUMNS, None)
    model_col = _column(header, MODEL_COLUMNS, None)
    used = {c for c in (group_col, check_col, answer_col, image_col, prompt_col, qid_col,
                        dep_col, model_col) if c}
    named = {"id": group_col, "check": check_col, "answer": answer_col, "image": image_col,
             "prompt (meta.prompt)": prompt_col, "check id": qid_col, "dependency": dep_col,
             "t2i model": model_col}
    opts.decisions.append("columns: " + ", ".join(f"{k}<-{v}" for k, v in named.items() if v)
                          + ("" if answer_col else "; no answer column: every check expects yes"))
    per_check = [c for c in header if c not in used and c in PER_CHECK_COLUMNS]
    per_prompt = [c for c in header if c not in used and c not in PER_CHECK_COLUMNS]
    if per_check:
        opts.decisions.append(f"kept per check in meta.check_source: {', '.join(per_check)}")
    if per_prompt:
        opts.decisions.append(f"kept in meta: {', '.join(per_prompt)}")
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for line, row in rows:
        if isinstance(row, BadRow):
            yield line, row
            continue
        prompt_id = row[group_col].strip()
        model = row[model_col].strip() if model_col else ""
        image = row[image_col].strip() if image_col else ""
        key = (prompt_id, model or image)
        check_text = row[check_col].strip()
        answer = row[answer_col] if answer_col else "yes"
        reason = non_answer_reason(answer) or ("empty check text" if not check_text else None)
        if reason is None:
            try:
                parse_bool(answer, "answer")
            except RowError as exc:
                reason = exc.reason
        if not prompt_id:
            reason = f"empty {group_col}"
        if reason:
            field = "question" if not check_text else (group_col if not prompt_id
                                                       else answer_col or "answer")
            yield line, BadRow(field, reason, {"id": prompt_id, **row})
            continue
        group = groups.get(key)
        if group is None:
            item_id = prompt_id + (f":{model}" if model else "")
            meta: dict[str, Any] = {"prompt_id": prompt_id, "question_ids": [],
                                    "dependencies": {}}
            if prompt_col:
                meta["prompt"] = row[prompt_col]
            if model:
                meta["t2i_model"] = model
            meta.update({k: v for k, v in row.items() if k not in used
                         and k not in PER_CHECK_COLUMNS})
            group = groups[key] = {"line": line, "id": item_id, "question": CHECKLIST_QUESTION,
                                   "task": "checklist", "checks": [], "meta": meta,
                                   "group": f"prompt:{prompt_id}", "_image": image}
        qid = row[qid_col].strip() if qid_col else str(len(group["checks"]) + 1)
        group["checks"].append({"name": check_text, "answer": answer})
        group["meta"]["question_ids"].append(qid)
        check_fields = {k: row[k] for k in PER_CHECK_COLUMNS if k in row and k not in used}
        if check_fields:
            group["meta"].setdefault("check_source", {})[qid] = check_fields
        deps = _dependencies(row[dep_col]) if dep_col else []
        if deps:
            group["meta"]["dependencies"][qid] = deps
    for group in groups.values():
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
