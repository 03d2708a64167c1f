"""Freshness: how much of the benchmark is newer than a date, and which items a model could
have seen in training (docs/AUDIT_METHODS.md).

- `audit.fresh_after` (a date): the share of items with `created_at` after it is reported
  in `summary.json` under `freshness`, against the quota `audit.fresh_quota` (default 20%).
- `audit.cutoffs` ({model: training cutoff date}): per model, the items created before the
  cutoff are *exposed*. The summary counts them per model; the check
  `contamination.exposed` writes one info finding per exposed item naming the models, so a
  benchmark of N items never gets more than N rows. Freshness is a contamination risk, so it
  lives in the `contamination` family.
"""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from typing import Any, Iterator, Sequence

from pydantic import Field, field_validator

from bench_kit.audit.registry import (
    AuditContext,
    CheckParams,
    CheckSkipped,
    CheckSpec,
    check,
)
from bench_kit.types import Finding, Item


def as_utc(value: date | datetime) -> datetime:
    """A date (midnight UTC) or datetime (naive = UTC) as an aware UTC datetime."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time(0), tzinfo=timezone.utc)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def _stamp(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


class FreshnessParams(CheckParams):
    """`audit.fresh_after`, `audit.fresh_quota` and `audit.cutoffs`."""

    fresh_after: datetime | date | None = None
    fresh_quota: float = Field(0.2, ge=0.0, le=1.0)
    cutoffs: dict[str, datetime | date] = Field(default_factory=dict)

    @field_validator("cutoffs", mode="before")
    @classmethod
    def _mapping(cls, value: Any) -> Any:
        return {} if value is None else value

    def cutoff_times(self) -> dict[str, datetime]:
        """Model -> cutoff as aware UTC datetimes, sorted by model name."""
        return {model: as_utc(self.cutoffs[model]) for model in sorted(self.cutoffs)}


def freshness_summary(items: Sequence[Item], params: FreshnessParams) -> dict[str, Any] | None:
    """The `freshness` block of summary.json, or None when neither date setting is given."""
    cutoffs = params.cutoff_times()
    if params.fresh_after is None and not cutoffs:
        return None
    total = len(items)
    out: dict[str, Any] = {"items": total}
    if params.fresh_after is not None:
        after = as_utc(params.fresh_after)
        fresh = sum(1 for item in items if item.created_at > after)
        share = round(fresh / total, 4) if total else 0.0
        out.update({"fresh_after": _stamp(after), "fresh_items": fresh, "fresh_share": share,
                    "fresh_quota": params.fresh_quota,
                    "meets_quota": share >= params.fresh_quota})
    if cutoffs:
        out["exposed"] = {}
        for model, cutoff in cutoffs.items():
            exposed = sum(1 for item in items if item.created_at < cutoff)
            out["exposed"][model] = {"cutoff": _stamp(cutoff), "exposed_items": exposed,
                                     "exposed_share": round(exposed / total, 4) if total else 0.0}
    return out


@check("contamination.exposed", severity="info", params=FreshnessParams)
def exposed(ctx: AuditContext, params: FreshnessParams, spec: CheckSpec) -> Iterator[Finding]:
    """Items created before a model's training cutoff (`audit.cutoffs`): possibly seen."""
    cutoffs = params.cutoff_times()
    if not cutoffs:
        raise CheckSkipped("no audit.cutoffs in params")
    for item in sorted(ctx.items, key=lambda i: i.id):
        models = [m for m, cutoff in cutoffs.items() if item.created_at < cutoff]
        if models:
            yield spec.finding(item.id, f"created {_stamp(as_utc(item.created_at))}, before the "
                               f"training cutoff of {', '.join(models)}",
                               {"created_at": _stamp(as_utc(item.created_at)), "models": models,
                                "cutoffs": {m: _stamp(cutoffs[m]) for m in models}},
                               score=len(models) / len(cutoffs))
