"""Score one model's predictions: `results/<bench>/<model>/<mode>.jsonl` (or any JSONL
with `id` and `response`) -> per-item scores + the metrics JSON.

Everything is read and checked before anything is written, so a bad input leaves no
partial output behind. Coverage against the items (the frozen split) is always reported:
items without a prediction are `missing`, predicted ids that are no item are `extra`,
repeated rows are `duplicated`; none of them changes `n` silently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from bench_kit.artifacts.predictions import PredictionFile, load_predictions
from bench_kit.artifacts.rotation import rotate_choices, rotated_gold

# read_scores lives in bench_kit.artifacts.tables; still importable from here
from bench_kit.artifacts.tables import read_scores, write_metrics, write_scores  # noqa: F401
from bench_kit.errors import InputError, param
from bench_kit.io import resolve_image, write_json
from bench_kit.items import default_root, read_items
from bench_kit.scoring.aggregate import model_metrics, plot_rows
from bench_kit.scoring.item import ScoreSettings, metric_name, score_item
from bench_kit.types import MODES, Item, Prediction, Score


@dataclass(frozen=True)
class ModeScores:
    """One mode's Score rows (items order), the predictions behind them, the number of
    predicted ids that are not items (`extra`), of repeated rows (`duplicated`) and the
    corpus-level metric blocks."""

    mode: str
    scores: list[Score]
    predictions: list[Prediction]
    extra: int = 0
    duplicated: int = 0
    corpus: dict | None = None


@dataclass(frozen=True)
class ScoreRun:
    """What `score_model` wrote: the metrics dict and the output paths."""

    model: str
    metrics: dict
    metrics_path: Path
    score_paths: dict[str, Path]
    plots_path: Path | None = None


def read_predictions(path: str | Path, *, model: str, mode: str) -> list[Prediction]:
    """Read one `<mode>.jsonl` predictions file (first row per id and rotation).

    Raises:
        InputError: naming the file and line of a malformed row or a row of another model
            or mode.
    """
    return load_predictions(path, model=model, mode=mode).predictions


class ImageSizes:
    """Image sizes read from file headers (no pixel decoding), once per image path."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._sizes: dict[str, tuple[int, int]] = {}

    def of(self, item: Item) -> tuple[int, int] | None:
        """(width, height) of the item's first image, or None for a text-only item."""
        if not item.images:
            return None
        rel = item.images[0]
        if rel not in self._sizes:
            self._sizes[rel] = self._read(item.id, rel)
        return self._sizes[rel]

    def _read(self, item_id: str, rel: str) -> tuple[int, int]:
        from PIL import Image

        try:
            path = resolve_image(self.root, rel)
            with Image.open(path) as img:
                return img.size
        except (ValueError, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise InputError(f"item '{item_id}': cannot read the size of image '{rel}' under "
                             f"{self.root}: {reason} (is {param('root')} right?)",
                             field="image") from exc


_PARSE_RANK = {"ok": 0, "judge": 1, "lenient": 2, "failed": 3}


def _rotated(item: Item, rotation: int) -> Item:
    """The item as the model saw it at a CircularEval rotation (choices and gold moved)."""
    if rotation == 0:
        return item
    if item.task != "mc" or not item.choices:
        raise InputError(f"item '{item.id}': rotation {rotation} on a non-mc item",
                         field="rotation")
    return item.model_copy(update={
        "choices": rotate_choices(item.choices, rotation),
        "answers": [rotated_gold(a, item.choices, rotation) for a in item.answers]})


def _unrotate(letter: str | None, item: Item, rotation: int) -> str:
    """The original letter of an answer given at `rotation` ("-" for no answer)."""
    letters = sorted(item.choices or {})
    if letter is None:
        return "-"
    if rotation == 0 or letter not in letters:
        return letter
    return letters[(letters.index(letter) + rotation) % len(letters)]


def score_prediction_set(item: Item, predictions: Sequence[Prediction], *,
                         size: tuple[int, int] | None, settings: ScoreSettings,
                         root: Path | None = None, box_format: str = "auto") -> Score:
    """One Score for an item from its prediction(s).

    One prediction: scored as is. Several (CircularEval, one per rotation of an mc item):
    every rotation must be present, the item is a hit only if every rotation is, and
    `extracted` lists the answers in the original letters (`B,B,A,B`). Any request error
    makes the whole item an error row (score 0, parse `failed`, `error` set), which
    aggregation keeps out of every denominator.
    """
    first = predictions[0]
    rotations = sorted(p.rotation for p in predictions)
    if len(predictions) > 1 and rotations != list(range(len(item.choices or {}))):
        raise InputError(f"item '{item.id}': CircularEval rotations {rotations} are "
                         f"incomplete for {len(item.choices or {})} options", field="rotation")
    common = {"id": item.id, "model": first.model, "mode": first.mode,
              "metric": metric_name(item)}
    errors = [p.error for p in predictions if p.error]
    if errors:
        return Score(**common, extracted=None, parse="failed", score=0.0, hit=False,
                     error=errors[0])
    results = [score_item(_rotated(item, p.rotation), p.response or "", image_size=size,
                          settings=settings, root=root, box_format=box_format)
               for p in predictions]
    if len(results) == 1:
        only = results[0]
        return Score(**common, extracted=only.extracted, parse=only.parse,
                     score=only.score, hit=only.hit)
    extracted = ",".join(_unrotate(r.extracted, item, p.rotation)
                         for p, r in zip(predictions, results))
    return Score(**common, extracted=extracted,
                 parse=max((r.parse for r in results), key=_PARSE_RANK.__getitem__),
                 score=min(r.score for r in results), hit=all(r.hit for r in results))


def score_mode(mode: str, items: Sequence[Item], predictions: Sequence[Prediction], *,
               sizes: ImageSizes, settings: ScoreSettings, duplicated: int = 0,
               box_format: str = "auto") -> ModeScores:
    """Score one mode's predictions against the items: one Score per predicted item, in
    items order, plus the corpus-level blocks; predictions for ids not in the items are
    counted as `extra`."""
    from bench_kit.scoring.corpus import CorpusContext, CorpusRow, corpus_metrics
    from bench_kit.scoring.metric_scorers import SIZED_METRICS

    def size_of(item: Item) -> tuple[int, int] | None:
        return sizes.of(item) if metric_name(item) in SIZED_METRICS else None

    by_id: dict[str, list[Prediction]] = {}
    for prediction in sorted(predictions, key=lambda p: p.rotation):
        by_id.setdefault(prediction.id, []).append(prediction)
    scores: list[Score] = []
    kept: list[Prediction] = []
    rows: list[CorpusRow] = []
    for item in items:
        found = by_id.pop(item.id, None)
        if found is None:
            continue
        kept.extend(found)
        score = score_prediction_set(item, found, size=size_of(item), settings=settings,
                                     root=sizes.root, box_format=box_format)
        scores.append(score)
        rows.append(CorpusRow(item, score, found[0].response or "", len(found)))
    corpus = corpus_metrics(rows, CorpusContext(settings, sizes.root, size_of, box_format))
    return ModeScores(mode=mode, scores=scores, predictions=kept, extra=len(by_id),
                      duplicated=duplicated, corpus=corpus)


def prediction_files(results_dir: str | Path) -> dict[str, Path]:
    """`{mode: results_dir/<mode>.jsonl}` for every mode file present.

    Raises:
        InputError: the folder is missing or holds no mode file.
    """
    folder = Path(results_dir)
    if not folder.is_dir():
        raise InputError("results folder not found (run `bench-kit eval run` first)",
                         path=str(folder))
    files = {mode: folder / f"{mode}.jsonl" for mode in MODES}
    files = {mode: path for mode, path in files.items() if path.is_file()}
    if not files:
        raise InputError(f"no predictions file ({', '.join(m + '.jsonl' for m in MODES)})",
                         path=str(folder))
    return files


def score_model(items_path: str | Path, results_dir: str | Path, out_dir: str | Path,
                metrics_path: str | Path, *, model: str, root: str | Path | None = None,
                settings: ScoreSettings | None = None,
                plots_path: str | Path | None = None,
                judgements: str | Path | None = None, box_format: str = "auto",
                alpha: float = 0.05) -> ScoreRun:
    """Score every mode of one model and write scores, metrics and (optionally) plot rows.

    Args:
        items_path: the items (split) file the model was run on.
        results_dir: `results/<bench>/<model>`, holding `<mode>.jsonl` predictions.
        out_dir: where `<mode>.jsonl` Score rows go.
        metrics_path: the metrics JSON (docs/ITEMS.md#metrics-json).
        model: the model name every prediction row must carry.
        root: benchmark root for image paths (default: derived from `items_path`).
        settings: the `score:` section of params.yaml.
        plots_path: optional JSON list of `{model, mode, capability, accuracy}` rows.
        judgements: optional `bench-kit eval judge` verdicts file: the judged items'
            rows get `parse: judge` and the verdict's hit (bench_kit.scoring.judged).
        box_format: the model's box coordinates (`models.<name>.box_format`).
        alpha: Wilson intervals are (1 - alpha) intervals (`report.alpha`).
    """
    files = [load_predictions(path, model=model, mode=mode)
             for mode, path in prediction_files(results_dir).items()]
    return _score_files(items_path, files, out_dir, metrics_path, model=model, root=root,
                        settings=settings, plots_path=plots_path, clear_other_modes=True,
                        judgements=judgements, box_format=box_format, alpha=alpha)


def score_predictions(items_path: str | Path, predictions_path: str | Path,
                      out_dir: str | Path, metrics_path: str | Path, *, model: str,
                      mode: str = "image", root: str | Path | None = None,
                      settings: ScoreSettings | None = None,
                      plots_path: str | Path | None = None,
                      judgements: str | Path | None = None, box_format: str = "auto",
                      alpha: float = 0.05) -> ScoreRun:
    """Score one predictions file of any origin: rows need only `id` and `response`
    (`model`, `mode`, `rotation`, `prompt_sha`, `created_at` are filled when absent; see
    `bench_kit.artifacts.predictions`). Writes `<out_dir>/<mode>.jsonl` and the metrics JSON.

    Raises:
        InputError: a bad row (file, line, field), or a row of another model or mode.
    """
    if mode not in MODES:
        raise InputError(f"unknown mode '{mode}' (known: {', '.join(MODES)})", field="mode")
    if not Path(predictions_path).is_file():
        raise InputError("predictions file not found", path=str(predictions_path))
    files = [load_predictions(predictions_path, model=model, mode=mode, foreign=True)]
    return _score_files(items_path, files, out_dir, metrics_path, model=model, root=root,
                        settings=settings, plots_path=plots_path, clear_other_modes=False,
                        judgements=judgements, box_format=box_format, alpha=alpha)


def _score_files(items_path: str | Path, files: Sequence[PredictionFile],
                 out_dir: str | Path, metrics_path: str | Path, *, model: str,
                 root: str | Path | None, settings: ScoreSettings | None,
                 plots_path: str | Path | None, clear_other_modes: bool,
                 judgements: str | Path | None = None, box_format: str = "auto",
                 alpha: float = 0.05) -> ScoreRun:
    settings = settings or ScoreSettings()
    items = read_items(items_path)
    sizes = ImageSizes(root if root is not None else default_root(items_path))
    by_mode: dict[str, ModeScores] = {}
    for file in files:
        try:
            by_mode[file.mode] = score_mode(file.mode, items, file.predictions, sizes=sizes,
                                            settings=settings, duplicated=file.duplicated,
                                            box_format=box_format)
        except InputError as exc:
            # Rotation problems are in the predictions; gold and image problems in the items.
            where = file.path if exc.field == "rotation" else items_path
            raise InputError(exc.reason, path=str(where), field=exc.field) from exc
    judged: dict[str, dict] = {}
    if judgements is not None:
        from bench_kit.scoring.judged import Judgements

        verdicts = Judgements(judgements, model)
        for mode, block in by_mode.items():
            rows, judged[mode] = verdicts.apply(mode, block.scores, block.predictions)
            by_mode[mode] = replace(block, scores=rows)
    metrics = model_metrics(model, items,
                            {m: s.scores for m, s in by_mode.items()},
                            {m: s.predictions for m, s in by_mode.items()},
                            {m: s.extra for m, s in by_mode.items()},
                            duplicated_by_mode={m: s.duplicated for m, s in by_mode.items()},
                            corpus_by_mode={m: s.corpus or {} for m, s in by_mode.items()},
                            alpha=alpha)
    for mode, counts in judged.items():
        metrics[mode]["judge"] = counts
    out = Path(out_dir)
    score_paths = {mode: out / f"{mode}.jsonl" for mode in by_mode}
    for mode, scores in by_mode.items():
        write_scores(score_paths[mode], scores.scores)
    if clear_other_modes:
        for mode in MODES:
            if mode not in by_mode:  # a mode no longer run must not leave stale scores behind
                (out / f"{mode}.jsonl").unlink(missing_ok=True)
    write_metrics(metrics_path, metrics)
    if plots_path is not None:
        write_json(plots_path, plot_rows(metrics))
    return ScoreRun(model=model, metrics=metrics, metrics_path=Path(metrics_path),
                    score_paths=score_paths,
                    plots_path=Path(plots_path) if plots_path is not None else None)

