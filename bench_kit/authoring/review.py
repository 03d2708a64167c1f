"""Review sampling (docs/AUTHORING.md#4-review-sampling: review >= 5% of every generated batch).

`sample_review` draws a stratified sample per batch (an item's `source`: template:<id>,
rewrite:<rule>, import:<format>, human) into a review sheet (CSV) and a self-contained HTML
page; `apply_review` reads the filled sheet, decides each batch (rejected when its failure
rate exceeds `review.max_failure_rate`), appends the verdicts to the review history next to
the items, and writes the ids of rejected batches to `review_rejected.txt` there (one id a
line) for `bench-kit split` to exclude.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.artifacts import paths
from bench_kit.artifacts.exclusions import write_exclusion_list
from bench_kit.errors import InputError
from bench_kit.io import read_jsonl, resolve_image, write_jsonl, write_text
from bench_kit.items import read_items
from bench_kit.types import Item

VERDICTS = ("fluency", "difficulty_ok", "answer_ok")
SHEET_COLUMNS = ("batch", "id", "capability", "difficulty", "task", "question", "choices",
                 "gold", "image", *VERDICTS, "comment")
HISTORY_NAME = "review_history.jsonl"
REJECTED_NAME = paths.REVIEW_REJECTED
_YES = {"y", "yes", "ok", "1", "true", "pass", "good", "✓"}
_NO = {"n", "no", "0", "false", "fail", "bad", "✗"}


class ReviewParams(BaseModel):
    """The `review:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")

    seed: int = 13
    rate: float = Field(0.05, gt=0.0, le=1.0)
    min_per_batch: int = Field(1, ge=1)
    max_failure_rate: float = Field(0.2, ge=0.0, le=1.0)
    thumbnail_px: int = Field(320, ge=0)


def review_batch(item: Item) -> str:
    """The batch an item is reviewed in: its `source` (variants join their template's)."""
    return item.source


def _rank(seed: int, item_id: str) -> str:
    return hashlib.sha256(f"{seed}:{item_id}".encode()).hexdigest()


def draw_sample(items: list[Item], rate: float, seed: int, min_per_batch: int = 1
                ) -> dict[str, list[Item]]:
    """Per batch: ceil(rate x size) items (at least `min_per_batch`), chosen by a stable hash,
    so adding items to a batch keeps the earlier picks unless they are out-ranked."""
    batches: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        batches[review_batch(item)].append(item)
    sample = {}
    for batch in sorted(batches):
        members = batches[batch]
        k = min(len(members), max(min_per_batch, math.ceil(rate * len(members))))
        chosen = sorted(members, key=lambda it: _rank(seed, it.id))[:k]
        sample[batch] = sorted(chosen, key=lambda it: it.id)
    return sample


def _gold(item: Item) -> str:
    if item.task == "checklist":
        return "; ".join(f"{c.name}: {'yes' if c.answer else 'no'}" for c in item.checks or [])
    if item.choices:
        return " | ".join(f"{a}. {item.choices.get(a, '')}" for a in item.answers)
    return " | ".join(item.answers)


def _thumbnail(root: Path, rel: str, size: int) -> str | None:
    """An inline PNG data URI of the image (None when it cannot be read)."""
    from bench_kit.io import open_image

    try:
        image = open_image(resolve_image(root, rel))
    except ValueError:
        return None
    image.thumbnail((size, size))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review sheet: {{ title }}</title>
<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.4em;vertical-align:top}th{background:#f3f3f3}
.q{max-width:28em}.gold{font-weight:bold}h2{margin-top:1.5em}</style></head><body>
<h1>Review sheet: {{ title }}</h1>
<p>{{ n_items }} items from {{ batches|length }} batches (rate {{ rate }}). Fill the columns
fluency, difficulty_ok and answer_ok of <code>{{ sheet }}</code> with yes/no, then run
<code>bench-kit author review apply {{ sheet }} --items {{ items }}</code>.</p>
{% for batch, rows in batches.items() %}<h2>{{ batch }}</h2>
<table><tr><th>id</th><th>image</th><th>question</th><th>gold</th><th>capability /
difficulty</th></tr>
{% for row in rows %}<tr><td>{{ row.id }}</td>
<td>{% for uri in row.images %}{% if uri %}<img src="{{ uri }}" alt="{{ row.id }}">{% else %}
(image missing){% endif %}{% endfor %}</td>
<td class="q">{{ row.question }}{% if row.choices %}<br><small>{{ row.choices }}</small>{% endif %}</td>
<td class="gold">{{ row.gold }}</td><td>{{ row.capability }}<br>{{ row.difficulty }}</td></tr>
{% endfor %}</table>{% endfor %}
</body></html>
"""


@dataclass
class ReviewSample:
    """What `sample_review` wrote."""

    sheet: Path
    html: Path
    batches: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Items in the sheet."""
        return sum(self.batches.values())


def sample_review(items_path: str | Path, out_dir: str | Path, params: ReviewParams,
                  rate: float | None = None) -> ReviewSample:
    """Write `review_sheet.csv` and `review_sheet.html` (images inline) into `out_dir`."""
    import jinja2

    items_path, out_dir = Path(items_path), Path(out_dir)
    rate = params.rate if rate is None else rate
    sample = draw_sample(read_items(items_path), rate, params.seed, params.min_per_batch)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SHEET_COLUMNS, lineterminator="\n")
    writer.writeheader()
    pages: dict[str, list[dict[str, Any]]] = {}
    for batch, chosen in sample.items():
        for item in chosen:
            choices = " | ".join(f"{k}. {v}" for k, v in (item.choices or {}).items())
            row = {"batch": batch, "id": item.id, "capability": item.capability,
                   "difficulty": item.difficulty, "task": item.task, "question": item.question,
                   "choices": choices, "gold": _gold(item), "image": ";".join(item.images),
                   **{v: "" for v in VERDICTS}, "comment": ""}
            writer.writerow(row)
            images = [_thumbnail(items_path.parent, rel, params.thumbnail_px)
                      for rel in item.images] if params.thumbnail_px else []
            pages.setdefault(batch, []).append({**row, "images": images})
    sheet, html = out_dir / "review_sheet.csv", out_dir / "review_sheet.html"
    write_text(sheet, buffer.getvalue())
    env = jinja2.Environment(autoescape=True)
    write_text(html, env.from_string(_HTML).render(
        title=items_path.name, batches=pages, n_items=sum(len(r) for r in pages.values()),
        rate=rate, sheet=sheet, items=items_path))
    return ReviewSample(sheet, html, {b: len(v) for b, v in sample.items()})


def _verdict(value: str, path: Path, line: int, column: str) -> bool | None:
    text = (value or "").strip().lower()
    if not text:
        return None
    if text in _YES:
        return True
    if text in _NO:
        return False
    raise InputError(f"'{value}' is not a verdict (use yes/no, y/n, 1/0 or leave it empty)",
                     path=str(path), line=line, field=column)


def read_sheet(path: str | Path) -> list[dict[str, Any]]:
    """The reviewed rows of a sheet: id, batch, the three verdicts (bool) and the comment.
    Rows with no verdict are left out; a row with only some verdicts is an error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=str(path)) from exc
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in ("id", "batch", *VERDICTS) if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"missing column(s) {missing}; write the sheet with "
                         "`bench-kit author review sample`", path=str(path), line=1)
    rows = []
    for line, row in enumerate(reader, start=2):
        verdicts = {c: _verdict(row.get(c) or "", path, line, c) for c in VERDICTS}
        filled = [v for v in verdicts.values() if v is not None]
        if not filled:
            continue
        if len(filled) < len(VERDICTS):
            empty = [c for c, v in verdicts.items() if v is None]
            raise InputError(f"verdict(s) {empty} left empty while others are filled",
                             path=str(path), line=line, field=empty[0])
        rows.append({"id": row["id"], "batch": row["batch"], **verdicts,
                     "comment": (row.get("comment") or "").strip()})
    return rows


@dataclass
class BatchDecision:
    """One batch's verdict tally and decision (accepted | rejected)."""

    batch: str
    reviewed: int
    failed: int
    decision: str

    @property
    def failure_rate(self) -> float:
        """Failed / reviewed."""
        return self.failed / self.reviewed if self.reviewed else 0.0


@dataclass
class ReviewOutcome:
    """What `apply_review` decided and wrote."""

    decisions: list[BatchDecision]
    history: Path
    rejected_path: Path
    rejected_ids: int
    already_applied: bool = False


def _sheet_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def apply_review(sheet_path: str | Path, items_path: str | Path, params: ReviewParams,
                 now: datetime | None = None) -> ReviewOutcome:
    """Record a filled sheet's verdicts and decide its batches (see the module docstring).

    Applying the same sheet twice records it once. The rejected list is rebuilt from the
    whole history: the latest decision of each batch counts.
    """
    sheet_path, items_path = Path(sheet_path), Path(items_path)
    rows = read_sheet(sheet_path)
    items = read_items(items_path)
    batch_of = {item.id: review_batch(item) for item in items}
    for row in rows:
        if row["id"] not in batch_of:
            raise InputError(f"item '{row['id']}' is not in {items_path}", path=str(sheet_path),
                             field="id")
        row["batch"] = batch_of[row["id"]]
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        tally[row["batch"]][0] += 1
        tally[row["batch"]][1] += not all(row[c] for c in VERDICTS)
    decisions = [BatchDecision(b, n, bad, "rejected" if bad / n > params.max_failure_rate
                               else "accepted") for b, (n, bad) in sorted(tally.items())]
    history = items_path.parent / HISTORY_NAME
    past = read_jsonl(history) if history.exists() else []
    sha = _sheet_sha(sheet_path)
    applied = any(r.get("sheet_sha256") == sha for r in past)
    if not applied:
        stamp = (now or datetime.now(timezone.utc)).isoformat().replace("+00:00", "Z")
        common = {"sheet": str(sheet_path), "sheet_sha256": sha, "reviewed_at": stamp}
        past += [{"kind": "verdict", **row, **common} for row in rows]
        past += [{"kind": "batch", "batch": d.batch, "decision": d.decision,
                  "reviewed": d.reviewed, "failed": d.failed,
                  "failure_rate": round(d.failure_rate, 4),
                  "max_failure_rate": params.max_failure_rate, **common} for d in decisions]
        write_jsonl(history, past)
    latest = {r["batch"]: r for r in past if r.get("kind") == "batch"}
    rejected = sorted(i for i, b in batch_of.items()
                      if b in latest and latest[b]["decision"] == "rejected")
    rejected_path = items_path.parent / REJECTED_NAME
    # one id a line, then a tab and the reason (the format `bench-kit split` reads)
    write_exclusion_list(rejected_path, (
        f"{i}\treview batch {batch_of[i]} rejected ({latest[batch_of[i]]['failed']}/"
        f"{latest[batch_of[i]]['reviewed']} failed)" for i in rejected))
    return ReviewOutcome(decisions, history, rejected_path, len(rejected), applied)
