"""The row of a rejects file (`generate_rejects.jsonl`, `variant_rejects.jsonl`): one type
for every stage that refuses an item or a variant, so every row has the same columns."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

RejectStage = Literal["skip", "answerability", "gate", "audit"]


@dataclass(frozen=True)
class RejectRow:
    """An item or variant that was not kept, and why.

    `stage` is where it was refused: `skip` (the variant kind cannot apply; nothing was
    drafted), `answerability` (the round-trip oracle), `gate` (the paraphrase gate's
    similarity and edit ratio), `audit` (a blocking audit finding, listed in `findings`).
    `original` and `original_choices` are the v0 item's question and options when the row
    is a variant; fields that do not apply to a stage are None.
    """

    id: str
    variant_of: str | None
    variant_kind: str | None
    stage: RejectStage
    reason: str
    question: str | None = None
    choices: dict[str, str] | None = None
    original: str | None = None
    original_choices: dict[str, str] | None = None
    similarity: float | None = None
    edit_ratio: float | None = None
    findings: list[dict[str, Any]] | None = None

    def as_row(self) -> dict[str, Any]:
        """The JSON-ready row (every field, None where it does not apply)."""
        return asdict(self)
