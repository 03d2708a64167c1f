"""A per-run budget: stop starting new model calls once the cost or request limit is reached.

The one call loop (bench_kit.models.batch) asks it before every request, for every command
that calls a model (eval run, eval judge, the paraphraser, the contamination judge; see
docs/EVAL.md). Calls already in flight finish and are kept (cached, written). Calls never
started come back as `budget exhausted (...)`: an eval run writes them as predictions with
that `error` (failed requests, never wrong answers), and every caller asks them on the
next run. A call is started only while the money spent plus an estimate for the calls in
flight (their count times the mean cost so far) stays under `max_cost`, so a run
overshoots by at most the calls in flight. `max_requests` counts model calls (identical
requests share one call), not retry attempts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

EXHAUSTED = "budget exhausted"


class BudgetParams(BaseModel):
    """`eval.budget` in params (CLI `--max-cost` / `--max-requests` override it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_cost: float | None = Field(default=None, ge=0.0)
    max_requests: int | None = Field(default=None, ge=0)

    def start(self, max_cost: float | None = None,
              max_requests: int | None = None) -> "Budget":
        """A fresh run's Budget with these limits; a limit given here (a CLI option) wins.

        >>> BudgetParams(max_requests=5).start(max_cost=1.0)
        Budget(max_cost=1.0, max_requests=5, spent=0.0, started=0, finished=0, refused=0, reason='')
        """
        return Budget(max_cost=self.max_cost if max_cost is None else max_cost,
                      max_requests=self.max_requests if max_requests is None else max_requests)


@dataclass
class Budget:
    """Live accounting of one run's calls against its limits (None = unlimited)."""

    max_cost: float | None = None
    max_requests: int | None = None
    spent: float = 0.0
    started: int = 0
    finished: int = 0
    refused: int = 0
    reason: str = field(default="")

    @property
    def in_flight(self) -> int:
        """Calls started and not yet finished."""
        return self.started - self.finished

    def try_start(self) -> bool:
        """Reserve one call; False (and `reason` set) once a limit is reached.

        >>> budget = Budget(max_requests=1)
        >>> budget.try_start(), budget.try_start(), budget.reason
        (True, False, 'budget exhausted (max_requests 1 reached)')
        """
        if self.max_requests is not None and self.started >= self.max_requests:
            self.reason = f"{EXHAUSTED} (max_requests {self.max_requests} reached)"
        elif self.max_cost is not None:
            mean = self.spent / self.finished if self.finished else 0.0
            if self.spent + self.in_flight * mean >= self.max_cost and \
                    (self.spent > 0 or self.max_cost == 0):
                self.reason = f"{EXHAUSTED} (max_cost {self.max_cost:g} USD reached)"
        if self.reason:
            self.refused += 1
            return False
        self.started += 1
        return True

    def finish(self, cost: float) -> None:
        """Record one finished call (a failed call costs 0)."""
        self.finished += 1
        self.spent += cost
