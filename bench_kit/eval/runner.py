"""Run one model on every item in one mode; write one Prediction per item, in item order.

Calls go through the one model-call loop (bench_kit.models.batch): every successful call
is stored in the call cache before its prediction is counted, so an interrupted run loses
nothing: the re-run answers completed items from the cache and calls the model only for
the rest. Predictions are built from the cache record (its `created_at`, latency and
cost), so a re-run from the cache writes the same rows except `cached`, which says
whether THIS run took the answer from the cache (false for an answer of this run's
request, and for a failed call that the next run will retry). `latency_s` is the
request's own time (see bench_kit.models.batch).

A budget (`max_cost`, `max_requests`; bench_kit.models.budget) stops new calls cleanly: the
items it leaves unasked are written with `error: budget exhausted (...)`. An item the model
cannot take (more images than its `max_images`, or any image when `supports_images` is
false) is written with `error: "unsupported: <reason>"` before any call: nothing is sent or
cached for it, and scoring counts it as `unsupported`, apart from errors.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from bench_kit import faultpoints
from bench_kit.artifacts.paths import results_file, split_file
from bench_kit.artifacts.predictions import (
    FOREIGN_CREATED_AT,
    UNSUPPORTED_PREFIX,
    write_predictions,
)
from bench_kit.artifacts.writer_lock import locks_beside, one_writer
from bench_kit.errors import ConfigError, InputError, UsageError
from bench_kit.eval.inputs import (
    IMAGE_PROTOCOL,
    ImageInfo,
    blank_info,
    plan_prep,
    prepare_image,
    probe_image,
)
from bench_kit.eval.prompts import PromptSet, RenderedPrompt, check_names
from bench_kit.io import resolve_image
from bench_kit.items import ItemLimits, default_root, read_items
from bench_kit.models.adapters import Adapter, ModelRequest, build_adapter
from bench_kit.models.batch import Call, Outcome, run_calls
from bench_kit.models.cache import CallCache, cache_key, utc_now
from bench_kit.models.config import (
    ModelConfig,
    budget_params,
    cache_path,
    check_runnable,
    load_model_config,
    prompt_params,
)
from bench_kit.models.imageprep import ImagePrep
from bench_kit.params import load_params, section
from bench_kit.types import MODES, Item, Mode, Prediction

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
# Images up to this size (sent as they are) are read on the event loop, larger ones or
# ones to resize in a worker thread.
INLINE_IMAGE_BYTES = 1 << 20


@dataclass(frozen=True)
class RunSpec:
    """What to run. `items`/`out` default to the params' split and results paths; `root`
    to the items file's benchmark folder. `circular` asks mc items once per rotation.
    `max_cost` (USD) / `max_requests` override the params' `eval.budget`."""

    model: str
    mode: Mode = "image"
    items: Path | None = None
    out: Path | None = None
    root: Path | None = None
    params: Path = Path("params.yaml")
    limit: int | None = None
    fresh: bool = False
    circular: bool = False
    max_cost: float | None = None
    max_requests: int | None = None


@dataclass(frozen=True)
class RunSummary:
    """Counts of one run, in predictions: written, answered from the cache, answered by a
    call in this run (identical requests share one call), failed (including those the
    budget left unasked, also counted in `budget_skipped`, with the reason in `stopped`),
    and `unsupported` (never asked: the model cannot take them; outside the other counts,
    so total = from_cache + called + budget_skipped + unsupported)."""

    model: str
    mode: str
    total: int
    from_cache: int
    called: int
    errors: int
    cost: float
    out: Path
    budget_skipped: int = 0
    stopped: str = ""
    unsupported: int = 0
    max_error_share: float = 0.0

    @property
    def failed(self) -> int:
        """Rows whose call failed after all retries (not the budget's, not unsupported)."""
        return self.errors - self.budget_skipped

    @property
    def error_share(self) -> float:
        """`failed` as a share of all rows written (0 for an empty run)."""
        return self.failed / self.total if self.total else 0.0

    @property
    def too_many_errors(self) -> bool:
        """More failed rows than `eval.max_error_share` allows (a share strictly above it)."""
        return self.error_share > self.max_error_share

    def as_dict(self) -> dict[str, Any]:
        """The summary for `eval run --format json`."""
        return {"model": self.model, "mode": self.mode, "total": self.total,
                "from_cache": self.from_cache, "called": self.called, "errors": self.errors,
                "failed": self.failed, "budget_skipped": self.budget_skipped,
                "stopped": self.stopped or None, "unsupported": self.unsupported,
                "cost": round(self.cost, 10), "error_share": round(self.error_share, 6),
                "max_error_share": self.max_error_share, "out": str(self.out)}

    def log_line(self) -> str:
        """The one line the CLI prints at the end."""
        skipped = f" ({self.budget_skipped} not asked: {self.stopped})" \
            if self.budget_skipped else ""
        return (f"eval {self.model}/{self.mode}: {self.total} items: {self.from_cache} from "
                f"cache, {self.called} called, {self.errors} errors{skipped}, "
                f"{self.unsupported} unsupported -> {self.out}")


@dataclass(frozen=True)
class WorkUnit:
    """One model call to make (or find in the cache): an item at one rotation."""

    item: Item
    rotation: int
    prompt: RenderedPrompt
    images: tuple[ImageInfo, ...]
    image_size: tuple[int, int] | None
    key: str = ""


def default_items(params: dict[str, Any]) -> Path:
    """`datasets/<bench>/splits/<eval.split>.jsonl`."""
    split = (params.get("eval") or {}).get("split", "test")
    return split_file(str(params.get("bench", "demo")), split)


def default_out(params: dict[str, Any], model: str, mode: str) -> Path:
    """`results/<bench>/<model>/<mode>.jsonl`."""
    return results_file(str(params.get("bench", "demo")), model, mode)


def max_error_share(params: dict[str, Any], source: str = "params.yaml") -> float:
    """`eval.max_error_share`: the share of failed rows above which `eval run` fails the
    stage (default 0: any item still failing after all retries fails it).

    Raises:
        ConfigError: not a number in [0, 1].
    """
    eval_section = params.get("eval") or {}
    value = eval_section.get("max_error_share", 0) if isinstance(eval_section, dict) else 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ConfigError(f"{source}: eval.max_error_share: expected a number from 0 to 1, "
                          f"got {value!r}")
    return float(value)


def plan_units(items: list[Item], *, mode: Mode, root: Path, prompts: PromptSet,
               items_path: Path, circular: bool = False,
               prep: ImagePrep | None = None) -> list[WorkUnit]:
    """Probe every image once and render every prompt, before any call is made; plan the
    image transform `prep` asks for (from header facts, without decoding).

    Raises:
        InputError: a missing/unreadable image or a prompt that cannot be rendered, naming
            the items file, the field and the item id.
    """
    probed: dict[str, ImageInfo] = {}
    units = []
    for item in items:
        infos = []
        for rel in item.images:
            if rel not in probed:
                try:
                    probed[rel] = probe_image(resolve_image(root, rel))
                except ValueError as exc:
                    raise InputError(f"item {item.id}: {exc}", path=str(items_path),
                                     field="image") from exc
            infos.append(probed[rel])
        size = (infos[0].width, infos[0].height) if infos else None
        if mode == "no_image":
            sent: tuple[ImageInfo, ...] = ()
        elif mode == "blank_image":
            sent = tuple(blank_info(i.width, i.height) for i in infos)
        else:
            sent = tuple(infos)
        sent = tuple(plan_prep(info, prep) for info in sent)
        circular_mc = circular and item.task == "mc" and item.choices
        rotations = range(len(item.choices)) if circular_mc and item.choices else range(1)
        for rotation in rotations:
            try:
                prompt = prompts.render(item, rotation, size)
            except ValueError as exc:
                raise InputError(f"item {item.id}: {exc}", path=str(items_path),
                                 field="task") from exc
            units.append(WorkUnit(item, rotation, prompt, sent, size))
    return units


def unit_key(unit: WorkUnit, adapter: Adapter, config: ModelConfig, mode: str) -> str:
    """The cache key: what changes the answer, and nothing else (no key, URL, concurrency)."""
    parts: dict[str, Any] = {
        "adapter": config.adapter, "identity": adapter.identity(),
        "prompt": unit.prompt.text, "images": [i.sha256 for i in unit.images],
        "image_protocol": IMAGE_PROTOCOL, "max_tokens": config.max_tokens,
        "temperature": config.temperature, "mode": mode, "rotation": unit.rotation}
    if any(i.prep for i in unit.images):  # absent when no image is transformed: keys stay
        parts["image_prep"] = [i.prep for i in unit.images]
    if adapter.per_item:
        parts["item"] = unit.item.id
    return cache_key(parts)


def _protocol(unit: WorkUnit, prompts: PromptSet, meta: dict[str, Any]) -> dict[str, Any]:
    """The input protocol: prompt version and the images sent, in order, each with the item
    file it stands for (a blank too); `meta` adds `image_prep` (sizes sent after a
    transform) and adapter facts such as `ocr_text`."""
    # zip: the images sent are the item's, in its order (none in no_image mode)
    images = [{"file": f, **i.describe()} for f, i in zip(unit.item.images, unit.images)]
    return {"prompt_version": prompts.version, "images": images, **meta}


def _unsupported(unit: WorkUnit, spec: RunSpec, prompts: PromptSet,
                 reason: str) -> Prediction:
    # No call was made: a fixed timestamp keeps a re-run's file byte-identical.
    return Prediction(id=unit.item.id, model=spec.model, mode=spec.mode, rotation=unit.rotation,
                      prompt_sha=unit.prompt.sha, response=None,
                      error=f"{UNSUPPORTED_PREFIX} {reason}", created_at=FOREIGN_CREATED_AT,
                      protocol=_protocol(unit, prompts, {}))


def _prediction(unit: WorkUnit, spec: RunSpec, prompts: PromptSet,
                outcome: Outcome) -> Prediction:
    """An answered unit: `cached` says whether this run took it from the cache; latency,
    cost and `created_at` are those of the request that produced the answer."""
    record = outcome.record
    assert record is not None
    return Prediction(id=unit.item.id, model=spec.model, mode=spec.mode, rotation=unit.rotation,
                      prompt_sha=unit.prompt.sha, response=record.response,
                      latency_s=record.latency_s, tokens_in=record.tokens_in,
                      tokens_out=record.tokens_out, cost=record.cost, cached=outcome.cached,
                      truncated=record.truncated, created_at=record.created_at,
                      protocol=_protocol(unit, prompts, record.meta))


def _request(unit: WorkUnit, config: ModelConfig,
             items_path: Path) -> tuple[ModelRequest, list[dict[str, Any]]]:
    """The request for `unit` and the records of the image transforms it needed."""
    prep = config.image_prep()
    try:
        prepared = [prepare_image(info, prep) for info in unit.images]
    except ValueError as exc:
        raise InputError(f"item {unit.item.id}: {exc}", path=str(items_path),
                         field="image") from exc
    request = ModelRequest(prompt=unit.prompt.text, images=[image for image, _ in prepared],
                           task=unit.item.task, question=unit.item.question,
                           choices=unit.prompt.choices, checks=_listed(check_names(unit.item)),
                           max_tokens=config.max_tokens, temperature=config.temperature,
                           image_size=unit.image_size, item_id=unit.item.id,
                           rotation=unit.rotation)
    return request, [record for _, record in prepared if record is not None]


def _failure(unit: WorkUnit, spec: RunSpec, prompts: PromptSet, outcome: Outcome) -> Prediction:
    return Prediction(id=unit.item.id, model=spec.model, mode=spec.mode, rotation=unit.rotation,
                      prompt_sha=unit.prompt.sha, response=None, error=outcome.error,
                      latency_s=outcome.latency_s, created_at=utc_now(),
                      protocol=_protocol(unit, prompts, {}))


def _listed(names: Sequence[str] | None) -> list[str] | None:
    return None if names is None else list(names)


def _call(unit: WorkUnit, config: ModelConfig, items_path: Path) -> Call:
    """The call for `unit`: its request is built (images read, maybe resized) only when it
    is sent, off the event loop when that means real work."""

    async def prepare() -> tuple[ModelRequest, dict[str, Any]]:
        if any(i.prep for i in unit.images) or \
                sum(i.size_bytes for i in unit.images) > INLINE_IMAGE_BYTES:
            request, image_prep = await asyncio.to_thread(_request, unit, config, items_path)
        else:  # a thread hop costs more client CPU than reading a small file
            request, image_prep = _request(unit, config, items_path)
        return request, ({"image_prep": image_prep} if image_prep else {})

    return Call(key=unit.key, prepare=prepare)


def run_eval(spec: RunSpec, progress: Progress | None = None) -> RunSummary:
    """Evaluate `spec.model` in `spec.mode` and write the predictions file atomically.

    Raises:
        ConfigError: unknown/disabled model, missing API key, bad settings (before any call).
        InputError: a bad items file or image (naming file, field and item).
    """
    if spec.mode not in MODES:
        raise UsageError(f"unknown mode '{spec.mode}' (known: {', '.join(MODES)})")
    params = load_params(spec.params)
    source = str(spec.params)
    config = load_model_config(params, spec.model, source)
    check_runnable(config, spec.model, source)
    prompts = PromptSet.from_params(prompt_params(params, source), source)
    items_path = spec.items or default_items(params)
    out = spec.out or default_out(params, spec.model, spec.mode)
    # an item over the `validate` limits stops the run before any call (never sent whole)
    items = read_items(items_path, section(params, "validate", ItemLimits, source=source))
    if spec.limit is not None:
        items = items[:spec.limit]
    limits = budget_params(params, source)
    error_limit = max_error_share(params, source)
    budget = limits.start(spec.max_cost, spec.max_requests)
    units = plan_units(items, mode=spec.mode, root=spec.root or default_root(items_path),
                       prompts=prompts, items_path=items_path, circular=spec.circular,
                       prep=config.image_prep())
    cache_file = Path(cache_path(params, source))
    with one_writer(out, locks_beside(cache_file)), \
            CallCache(cache_file) as cache:
        adapter = build_adapter(config, name=spec.model, cache=cache, source=source)
        units = [replace(u, key=unit_key(u, adapter, config, spec.mode)) for u in units]
        results: list[Prediction | None] = [None] * len(units)
        asked: list[tuple[int, WorkUnit]] = []
        for index, unit in enumerate(units):
            reason = config.unsupported_reason(len(unit.images))
            if reason is None:
                asked.append((index, unit))
            else:
                results[index] = _unsupported(unit, spec, prompts, reason)
        unsupported = len(units) - len(asked)
        log.info("%s/%s: %d calls planned for %d items (%d the model cannot take)",
                 spec.model, spec.mode, len(units), len(items), unsupported)
        if progress and unsupported:
            progress(unsupported, len(units))


        def row_done(done: int, _: int) -> None:
            faultpoints.hit("eval.row")  # crash tests kill after the k-th answered row
            if progress:
                progress(unsupported + done, len(units))

        outcomes, counts = run_calls(
            [_call(unit, config, Path(items_path)) for _, unit in asked], adapter=adapter,
            config=config, cache=cache, budget=budget, fresh=spec.fresh, progress=row_done)
        for (index, unit), outcome in zip(asked, outcomes):
            results[index] = _prediction(unit, spec, prompts, outcome) if outcome.ok \
                else _failure(unit, spec, prompts, outcome)
        write_predictions(out, [r for r in results if r is not None])  # every slot is set
    return RunSummary(model=spec.model, mode=spec.mode, total=len(units),
                      from_cache=counts.from_cache, called=counts.called,
                      errors=counts.errors + counts.budget_skipped, cost=counts.cost,
                      out=Path(out), budget_skipped=counts.budget_skipped,
                      stopped=counts.stopped, unsupported=unsupported,
                      max_error_share=error_limit)
