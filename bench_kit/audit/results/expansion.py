"""Two-round answer expansion: wrong-by-the-metric answers that mean the gold.

Round one (`answer_candidates` + `write_review_sheet`): for open items, every distinct
answer the models gave in the image run that the metric scored wrong is compared with the
golds by sentence-embedding cosine similarity; those at or above the threshold go into a
review sheet. Round two (`accept_answers`): rows a reviewer marked accepted are added to
the item's `answers` in a *source* items file, with provenance in `meta.answer_provenance`.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from pydantic import ValidationError

from bench_kit.audit.results.inputs import ScoreTable, read_csv_rows
from bench_kit.errors import InputError
from bench_kit.io import iter_jsonl, write_jsonl, write_text
from bench_kit.items import pydantic_problem
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Item

SHEET_COLUMNS = ("id", "question", "gold", "candidate", "similarity", "models", "accept")
ACCEPT_WORDS = frozenset({"y", "yes", "1", "true", "x", "accept", "accepted"})
# Tasks whose gold is free text; letters, yes/no, numbers and boxes have no paraphrases.
EXPANDABLE_TASKS = ("open",)

Encoder = Callable[[Sequence[str]], Any]


def answer_candidates(table: ScoreTable, threshold: float, *,
                      encode: Encoder | None = None, mode: str = "image") -> list[dict]:
    """Candidate golds: wrong answers of open items with cosine similarity ≥ `threshold`
    to a gold. `encode` maps texts to unit vectors (default: `bench_kit.embed.encode`)."""
    proposals: dict[tuple[str, str], set[str]] = defaultdict(set)
    for model in table.models:
        for item_id, score in table.run(model, mode).items():
            item = table.by_id[item_id]
            if item.task not in EXPANDABLE_TASKS or score.hit or not score.extracted:
                continue
            golds = {normalize_for_audit(g) for g in item.answers}
            if normalize_for_audit(score.extracted) in golds:
                continue
            proposals[(item_id, score.extracted)].add(model)
    if not proposals:
        return []
    if encode is None:
        from bench_kit.embed import encode as default_encode

        encode = default_encode
    texts = sorted({answer for _, answer in proposals}
                   | {g for item_id, _ in proposals for g in table.by_id[item_id].answers})
    vectors = dict(zip(texts, encode(texts)))
    order = {item.id: n for n, item in enumerate(table.items)}
    rows: list[dict[str, Any]] = []
    for (item_id, answer), models in proposals.items():
        item = table.by_id[item_id]
        sims = [(float(vectors[answer] @ vectors[gold]), gold) for gold in item.answers]
        similarity, gold = max(sims, key=lambda pair: (pair[0], pair[1]))
        if similarity >= threshold:
            rows.append({"id": item_id, "question": item.question, "gold": gold,
                         "candidate": answer, "similarity": round(similarity, 4),
                         "models": ";".join(sorted(models)), "accept": ""})
    rows.sort(key=lambda r: (order[r["id"]], -r["similarity"], r["candidate"]))
    return rows


def write_review_sheet(path: str | Path, rows: Sequence[dict]) -> None:
    """Write the candidates as a CSV review sheet (reviewers fill the `accept` column)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SHEET_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, buffer.getvalue())


def read_accepted(sheet: str | Path) -> list[dict]:
    """The rows of a review sheet marked accepted (`accept` = yes / y / 1 / true / x)."""
    accepted = []
    for line, row in read_csv_rows(sheet, ("id", "candidate", "accept"),
                                   " (is this a review sheet?)"):
        if row.get("accept", "").lower() not in ACCEPT_WORDS:
            continue
        if not row.get("candidate"):
            raise InputError("accepted row without a candidate", path=str(sheet), line=line,
                             field="candidate")
        accepted.append({**row, "_line": line})
    return accepted


@dataclass(frozen=True)
class AcceptResult:
    """What `accept_answers` changed."""

    accepted: int
    added: int
    already_present: int
    items_changed: list[str]


def _provenance(row: dict, sheet: Path) -> dict:
    similarity = row.get("similarity")
    try:
        similarity = float(similarity) if similarity not in (None, "") else None
    except ValueError:
        similarity = None
    models = [m for m in (row.get("models") or "").split(";") if m]
    return {"answer": row["candidate"].strip(), "source": "answer_expansion",
            "sheet": sheet.name, "similarity": similarity, "models": models}


def accept_answers(sheet: str | Path, items_path: str | Path) -> AcceptResult:
    """Add the accepted candidates of a review sheet to the items file's `answers`.

    The items file is rewritten atomically with every other field kept as it was; each
    added answer gets an entry in `meta.answer_provenance`. Accepting twice adds nothing.

    Raises:
        InputError: an accepted row names an id not in the items file, or an item whose
            task takes no free-text gold; the file is then left unchanged.
    """
    sheet, items_path = Path(sheet), Path(items_path)
    accepted = read_accepted(sheet)
    rows = [row for _, row in iter_jsonl(items_path)]
    index = {row.get("id"): n for n, row in enumerate(rows) if isinstance(row, dict)}
    added = present = 0
    changed: list[str] = []
    for entry in accepted:
        item_id = (entry.get("id") or "").strip()
        if item_id not in index:
            raise InputError(f"id '{item_id}' is not in {items_path}", path=str(sheet),
                             line=entry["_line"], field="id")
        row = rows[index[item_id]]
        if row.get("task") not in EXPANDABLE_TASKS:
            raise InputError(f"item '{item_id}' is a {row.get('task')} item; only "
                             f"{', '.join(EXPANDABLE_TASKS)} items take new answers",
                             path=str(sheet), line=entry["_line"], field="id")
        answer = entry["candidate"].strip()
        answers = list(row.get("answers") or [])
        if normalize_for_audit(answer) in {normalize_for_audit(a) for a in answers}:
            present += 1
            continue
        meta = dict(row.get("meta") or {})
        meta["answer_provenance"] = [*meta.get("answer_provenance", []),
                                     _provenance(entry, sheet)]
        rows[index[item_id]] = {**row, "answers": [*answers, answer], "meta": meta}
        try:
            Item.model_validate(rows[index[item_id]])
        except ValidationError as exc:
            field, reason = pydantic_problem(exc)
            raise InputError(f"item '{item_id}' would become invalid: {reason}",
                             path=str(sheet), line=entry["_line"], field=field) from exc
        added += 1
        if item_id not in changed:
            changed.append(item_id)
    if added:
        write_jsonl(items_path, rows)
    return AcceptResult(accepted=len(accepted), added=added, already_present=present,
                        items_changed=changed)
