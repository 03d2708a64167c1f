"""The LLM judge: any configured model grades responses against a rubric, per dimension.

Judge calls share the call cache with model runs but live in their own key space
(`"space": "judge"`), are costed separately (each verdict row carries its cost; the run's
total is in `JudgeRun.cost`), and every row records the judge, its served model and the
judge prompt version. A reply that does not parse is `parse="failed"` and counted; a
failed judge call is `error` (not judged, retried on the next run); a prediction that
failed is passed through as `error` without a judge call. Calls go through the one
model-call loop (bench_kit.models.batch): cached, at most `concurrency` in flight, and
bounded by the budget (`eval.budget`, or `--max-cost`/`--max-requests`); responses the
budget leaves unjudged get `error: budget exhausted (...)` and are judged on the next run.
Verdicts become score rows with `bench-kit eval score --judgements` (bench_kit.scoring.judged).

Library entry points: `judge_responses` (many predictions, one judge) and `judge_item`
(one response); `judge_results` is the file-level call behind `bench-kit eval judge`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.artifacts.rows import iter_objects
from bench_kit.artifacts.writer_lock import locks_beside, one_writer
from bench_kit.errors import ConfigError, InputError, param
from bench_kit.eval.judge_rubric import (
    JUDGE_PROMPT_VERSION,
    find_rubric,
    judge_prompt,
    parse_verdicts,
    rubric_sha,
)
from bench_kit.io import write_json, write_jsonl
from bench_kit.items import read_items
from bench_kit.models.adapters import Adapter, ModelRequest, build_adapter
from bench_kit.models.batch import Call, Outcome, run_calls
from bench_kit.models.budget import Budget
from bench_kit.models.cache import CallCache, CallRecord, cache_key
from bench_kit.models.config import (
    ModelConfig,
    budget_params,
    cache_path,
    check_runnable,
    load_model_config,
)
from bench_kit.params import load_params, section
from bench_kit.types import MODES, Item

Progress = Callable[[int, int], None]


class JudgeSettings(BaseModel):
    """`judge:` in params: the default judge model and rubrics per capability (a key covers
    its dotted sub-capabilities)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    rubrics: dict[str, str] = Field(default_factory=dict)


class JudgeVerdict(BaseModel):
    """One judged response. `parse` is None when nothing was judged (`error` says why);
    `score` is the share of dimensions passed and `hit` whether all passed."""

    model_config = ConfigDict(frozen=True)

    id: str
    model: str
    mode: str
    rotation: int = 0
    judge: str
    judge_model: str | None
    prompt_version: str = JUDGE_PROMPT_VERSION
    rubric_sha: str
    dimensions: list[str]
    parse: Literal["ok", "failed"] | None
    verdicts: dict[str, bool] | None = None
    reasons: dict[str, str] | None = None
    score: float | None = None
    hit: bool | None = None
    reply: str | None = None
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    created_at: datetime | None = None


@dataclass
class JudgeRun:
    """Verdicts of one judging run with its counts (`skipped`: no rubric applies)."""

    judge: str
    judge_model: str | None
    verdicts: list[JudgeVerdict] = field(default_factory=list)
    skipped: int = 0
    called: int = 0
    from_cache: int = 0
    budget_skipped: int = 0
    stopped: str = ""

    @property
    def cost(self) -> float:
        """USD spent on judge calls recorded in these verdicts (cached ones included)."""
        return round(sum(v.cost for v in self.verdicts), 10)

    def metrics(self) -> dict[str, Any]:
        """Counts, pass rate and the judge's identity, for a metrics file."""
        ok = [v for v in self.verdicts if v.parse == "ok"]
        return {"judge": self.judge, "judge_model": self.judge_model,
                "prompt_version": JUDGE_PROMPT_VERSION, "judged": len(ok),
                "parse_failed": sum(v.parse == "failed" for v in self.verdicts),
                "errors": sum(v.error is not None for v in self.verdicts),
                "skipped_no_rubric": self.skipped, "budget_skipped": self.budget_skipped,
                "pass_rate": round(sum(bool(v.hit) for v in ok) / len(ok), 6) if ok else None,
                "cost": self.cost}

    def log_line(self) -> str:
        """The one line the CLI prints at the end."""
        m = self.metrics()
        return (f"judge {self.judge}: {len(self.verdicts)} responses: {m['judged']} judged, "
                f"{m['parse_failed']} unparseable, {m['errors']} errors, {self.skipped} "
                f"without rubric; {self.from_cache} from cache, {self.called} called"
                + (f" ({self.budget_skipped} not asked: {self.stopped})"
                   if self.budget_skipped else "") + f", cost {m['cost']:g} USD")


@dataclass(frozen=True)
class _Task:
    item: Item
    row: Mapping[str, Any]
    mode: str
    rubric: str
    prompt: str
    dimensions: list[str]
    key: str


def _key(adapter: Adapter, config: ModelConfig, prompt: str) -> str:
    return cache_key({"space": "judge", "prompt_version": JUDGE_PROMPT_VERSION,
                      "adapter": config.adapter, "identity": adapter.identity(),
                      "prompt": prompt, "max_tokens": config.max_tokens,
                      "temperature": config.temperature})


def _verdict(task: _Task, judge: str, config: ModelConfig, model: str,
             outcome: CallRecord | str | None) -> JudgeVerdict:
    base = {"id": task.item.id, "model": model, "mode": task.mode,
            "rotation": int(task.row.get("rotation") or 0), "judge": judge,
            "judge_model": config.model, "rubric_sha": rubric_sha(task.rubric),
            "dimensions": task.dimensions}
    if not isinstance(outcome, CallRecord):
        return JudgeVerdict(**base, parse=None, error=outcome)
    parsed = parse_verdicts(outcome.response, task.dimensions)
    spent = {"reply": outcome.response, "tokens_in": outcome.tokens_in,
             "tokens_out": outcome.tokens_out, "cost": outcome.cost,
             "created_at": outcome.created_at}
    if parsed is None:
        return JudgeVerdict(**base, parse="failed", **spent)
    passed = {name: ok for name, (ok, _) in parsed.items()}
    return JudgeVerdict(**base, parse="ok", verdicts=passed,
                        reasons={name: why for name, (_, why) in parsed.items()},
                        score=round(sum(passed.values()) / len(passed), 6),
                        hit=all(passed.values()), **spent)


def judge_responses(items: Sequence[Item], predictions: Sequence[Mapping[str, Any]], *,
                    judge: str, model: str, params: str | Path = "params.yaml",
                    rubrics: Mapping[str, str] | None = None, budget: Budget | None = None,
                    progress: Progress | None = None) -> JudgeRun:
    """Judge each prediction row (`id`, `response`, optional `error`, `mode`, `rotation`)
    whose item has a rubric, with the model configured as `models.<judge>`.

    Rows come out in prediction order. `rubrics` defaults to the params' `judge.rubrics`.

    Raises:
        ConfigError: unknown/disabled judge, missing key, bad `judge:` section.
        InputError: a prediction for an id that is not among the items, or a bad rubric.
    """
    loaded = load_params(params)
    source = str(params)
    settings = section(loaded, "judge", JudgeSettings, source=source)
    rubrics = settings.rubrics if rubrics is None else rubrics
    config = load_model_config(loaded, judge, source)
    check_runnable(config, judge, source)
    by_id = {item.id: item for item in items}
    run = JudgeRun(judge=judge, judge_model=config.model)
    if budget is None:
        budget = budget_params(loaded, source).start()
    with CallCache(cache_path(loaded, source)) as cache:
        adapter = build_adapter(config, name=judge, cache=cache, source=source)
        tasks: list[_Task | None] = []
        for row in predictions:
            item = by_id.get(str(row.get("id")))
            if item is None:
                raise InputError(f"prediction for id '{row.get('id')}' has no item",
                                 field="id")
            rubric = find_rubric(item, rubrics)
            if rubric is None:
                run.skipped += 1
                tasks.append(None)
                continue
            try:
                prompt, dimensions = judge_prompt(item, row.get("response") or "", rubric)
            except ValueError as exc:
                raise InputError(f"item {item.id}: {exc}", field="rubric") from exc
            tasks.append(_Task(item, row, str(row.get("mode") or "image"), rubric, prompt,
                               dimensions, _key(adapter, config, prompt)))
        live = [t for t in tasks if t is not None]
        asked = [t for t in live if t.row.get("response") is not None and
                 not t.row.get("error")]
        outcomes, counts = run_calls(
            [Call(t.key, _request(config, t.prompt)) for t in asked], adapter=adapter,
            config=config, cache=cache, budget=budget, progress=progress)
    by_task = {id(t): o for t, o in zip(asked, outcomes)}
    run.from_cache, run.called = counts.from_cache, counts.called
    run.budget_skipped, run.stopped = counts.budget_skipped, counts.stopped
    run.verdicts = [_verdict(task, judge, config, str(task.row.get("model") or model),
                             _outcome(task, by_task.get(id(task)))) for task in live]
    return run


def _request(config: ModelConfig, prompt: str) -> ModelRequest:
    return ModelRequest(prompt=prompt, images=[], task="open", question=prompt,
                        max_tokens=config.max_tokens, temperature=config.temperature)


def _outcome(task: _Task, outcome: Outcome | None) -> CallRecord | str:
    """The judge's record, or why there is none: the prediction failed, the judge call
    failed, or the budget left it unasked (`budget exhausted (...)`)."""
    if outcome is None:
        return f"prediction failed: {task.row.get('error') or 'no response'}"
    if outcome.record is not None:
        return outcome.record
    if outcome.source == "budget":
        return str(outcome.error)
    return f"judge call failed: {outcome.error}"


def judge_item(item: Item, response: str, *, judge: str, model: str = "",
               params: str | Path = "params.yaml", rubric: str | None = None) -> JudgeVerdict:
    """Judge one response (with `rubric`, else the item's or its capability's).

    Raises:
        InputError: no rubric applies to the item.
        ConfigError: as for `judge_responses`.
    """
    rubrics = {item.capability: rubric} if rubric else None
    if rubric:
        item = item.model_copy(update={"rubric": None})
    run = judge_responses([item], [{"id": item.id, "response": response, "model": model}],
                          judge=judge, model=model, params=params, rubrics=rubrics)
    if not run.verdicts:
        raise InputError(f"item {item.id}: no rubric (set `rubric` on the item or "
                         f"judge.rubrics.{item.capability} in params)", field="rubric")
    return run.verdicts[0]


def judge_results(items_path: str | Path, results_dir: str | Path, out: str | Path, *,
                  model: str, judge: str | None = None, params: str | Path = "params.yaml",
                  metrics_path: str | Path | None = None, max_cost: float | None = None,
                  max_requests: int | None = None,
                  progress: Progress | None = None) -> JudgeRun:
    """Judge every `<mode>.jsonl` in `results_dir` and write the verdict rows to `out`
    (and the run's metrics JSON to `metrics_path`).

    Raises:
        InputError: no predictions file in `results_dir`, or bad rows.
        ConfigError: no judge given and no `judge.model` in params.
        BusyError: another run is writing `out`.
    """
    loaded = load_params(params)
    settings = section(loaded, "judge", JudgeSettings, source=str(params))
    judge = judge or settings.model
    if not judge:
        raise ConfigError(f"{params}: judge.model: no judge model given (pass {param('judge')} or "
                          f"set judge.model)")
    files = [Path(results_dir) / f"{mode}.jsonl" for mode in MODES]
    found = [path for path in files if path.is_file()]
    if not found:
        raise InputError(f"no predictions file ({', '.join(p.name for p in files)})",
                         path=str(results_dir))
    rows = []
    for path in found:
        for _, row in iter_objects(path, kind="predictions"):
            rows.append({**row, "mode": row.get("mode") or path.stem})
    budget = budget_params(loaded, str(params)).start(max_cost, max_requests)
    # one writer per verdicts file, as for `eval run`: a second judge run writing the same
    # file stops at once (BusyError) instead of both writing it
    with one_writer(out, locks_beside(cache_path(loaded, str(params)))):
        run = judge_responses(read_items(items_path), rows, judge=judge, model=model,
                              params=params, budget=budget, progress=progress)
        write_jsonl(out, run.verdicts)
        if metrics_path:
            write_json(metrics_path, run.metrics())
    return run
