"""Corpus-level metrics in the metrics JSON: CircularEval, macro-F1, paired questions,
detection AP/mAP, masks (mIoU, cIoU) and defect maps (pixel AUROC, PRO), scored end to
end from predictions files, plus the per-item scorers that read mask and map files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import cases, make_item, write_png

from bench_kit.io import read_json, write_jsonl
from bench_kit.scoring.corpus import CORPUS, group_key
from bench_kit.scoring.item import METRICS, ScoreSettings, score_item
from bench_kit.scoring.metrics.masks import rle_encode
from bench_kit.scoring.stage import read_scores, score_model, score_predictions
from bench_kit.types import Item


def _png(path: Path, array: np.ndarray) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array.astype(np.uint8)).save(path)


def _mask(shape: tuple[int, int], *boxes: tuple[int, int, int, int]) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    for y1, x1, y2, x2 in boxes:
        mask[y1:y2, x1:x2] = True
    return mask


def _prediction(item_id: str, response: str | None, *, mode: str = "image",
                rotation: int = 0, error: str | None = None) -> dict:
    return {"id": item_id, "model": "m", "mode": mode, "rotation": rotation,
            "prompt_sha": "x", "response": response, "error": error,
            "created_at": "2026-11-01T00:00:00Z"}


def _mc(item_id: str, gold: str, **extra) -> dict:
    return make_item(id=item_id, task="mc", question="Which?", answers=[gold],
                     choices={"A": "cat", "B": "dog", "C": "fox"}, **extra)


def test_circular_block_compares_with_rotation_zero(tmp_path):
    items = [_mc("c1", "A"), _mc("c2", "B", metric="circular"), _mc("c3", "C")]
    write_jsonl(tmp_path / "items.jsonl", items)
    # gold A shows as A, C, B at rotations 0, 1, 2; gold B as B, A, C
    rows = [_prediction("c1", "A"), _prediction("c1", "C", rotation=1),
            _prediction("c1", "B", rotation=2),
            _prediction("c2", "B"), _prediction("c2", "B", rotation=1),
            _prediction("c2", "C", rotation=2),
            _prediction("c3", "C")]                                  # asked once
    write_jsonl(tmp_path / "results" / "image.jsonl", rows)
    score_model(tmp_path / "items.jsonl", tmp_path / "results", tmp_path / "scores",
                tmp_path / "metrics.json", model="m")
    image = read_json(tmp_path / "metrics.json")["image"]
    assert image["corpus"]["circular"] == {"n": 2, "hits": 1, "accuracy": 0.5,
                                           "vanilla_hits": 2, "vanilla_accuracy": 1.0,
                                           "drop": 0.5}
    assert (image["n"], image["hits"]) == (3, 2)


def test_paired_macro_f1_and_detection_blocks(tmp_path):
    root = tmp_path
    write_png(root / "img" / "a.png", size=(100, 50))
    write_png(root / "img" / "b.png", size=(100, 50))
    yes_no = [("p1", "img/a.png", "yes", "Yes"), ("p2", "img/a.png", "no", "Yes"),
              ("p3", "img/b.png", "yes", "Yes"), ("p4", "img/b.png", "no", "No")]
    items = [make_item(id=i, task="yesno", image=img, answers=[gold], metric="paired")
             for i, img, gold, _ in yes_no]
    items += [make_item(id="f1", task="open", answers=["scratch"], metric="macro_f1"),
              make_item(id="f2", task="open", answers=["dent"], metric="macro_f1"),
              make_item(id="f3", task="open", answers=["dent"], metric="macro_f1")]
    items += [make_item(id="d1", task="grounding", image="img/a.png", metric="map",
                        answers=["0,0,10,10", "20,20,40,40"]),
              make_item(id="d2", task="grounding", image="img/b.png", metric="map",
                        answers=["50,10,70,30"])]
    write_jsonl(root / "items.jsonl", items)
    rows = [_prediction(i, response) for i, _, _, response in yes_no]
    rows += [_prediction("f1", "scratch"), _prediction("f2", "scratch"),
             _prediction("f3", "dent"),
             _prediction("d1", '[{"bbox_2d": [0, 0, 10, 10], "score": 0.9}, '
                               '{"bbox_2d": [60, 0, 70, 10], "score": 0.8}]'),
             _prediction("d2", None, error="timeout")]
    write_jsonl(root / "results" / "image.jsonl", rows)
    score_model(root / "items.jsonl", root / "results", root / "scores",
                root / "metrics.json", model="m")
    corpus = read_json(root / "metrics.json")["image"]["corpus"]
    assert corpus["paired"] == {"n": 2, "hits": 1, "accuracy": 0.5, "questions": 4,
                                "question_accuracy": 0.75}
    assert corpus["macro_f1"]["macro_f1"] == pytest.approx(round((2 / 3 + 2 / 3) / 2, 6))
    assert corpus["macro_f1"]["per_class"]["dent"]["support"] == 2
    detection = corpus["detection"]
    assert (detection["n"], detection["gold_boxes"], detection["predicted_boxes"]) == (1, 2, 2)
    assert detection["ap50"] == pytest.approx(round(51 / 101, 6))  # d2's error stays out
    assert set(corpus) == {"paired", "macro_f1", "detection"}


def test_mask_and_defect_map_items_read_files_under_the_root(tmp_path):
    root = tmp_path / "bench"
    write_png(root / "img" / "a.png", size=(8, 6))
    gold_a = _mask((6, 8), (1, 1, 3, 4))
    gold_b = _mask((6, 8), (2, 2, 5, 6))
    _png(root / "masks" / "a.png", gold_a * 255)
    items = [make_item(id="m1", task="open", image="img/a.png", metric="mask_iou",
                       answers=["masks/a.png"]),
             make_item(id="m2", task="open", image="img/a.png", metric="miou",
                       answers=[json.dumps(rle_encode(gold_b))]),
             make_item(id="m3", task="open", image="img/a.png", metric="miou",
                       answers=["masks/a.png"])]
    maps = {"x1": _mask((6, 8), (1, 1, 3, 4)) * 0.9 + 0.05, "x2": np.full((6, 8), 0.2)}
    for name, array in maps.items():
        np.save(root / f"{name}.npy", array)
    items += [make_item(id="x1", task="open", image="img/a.png", metric="pixel_auroc",
                        answers=["masks/a.png"]),
              make_item(id="x2", task="open", image="img/a.png", metric="pro",
                        answers=[json.dumps(rle_encode(np.zeros((6, 8), bool)))])]
    write_jsonl(root / "items.jsonl", items)
    foreign = [{"id": "m1", "response": "masks/a.png"},                      # IoU 1
               {"id": "m2", "response": json.dumps(rle_encode(gold_b[:, ::-1]))},
               {"id": "m3", "response": "I cannot segment this."},           # failed
               {"id": "x1", "response": "x1.npy"}, {"id": "x2", "response": "x2.npy"}]
    write_jsonl(tmp_path / "other.jsonl", foreign)
    score_predictions(root / "items.jsonl", tmp_path / "other.jsonl", tmp_path / "scores",
                      tmp_path / "metrics.json", model="m")
    scores = {s.id: s for s in read_scores(tmp_path / "scores" / "image.jsonl")}
    assert scores["m1"].score == 1.0 and scores["m1"].hit
    flipped_iou = np.logical_and(gold_b, gold_b[:, ::-1]).sum() / \
        np.logical_or(gold_b, gold_b[:, ::-1]).sum()
    assert scores["m2"].score == pytest.approx(flipped_iou)
    assert scores["m3"].parse == "failed"
    assert scores["x1"].score == 1.0 and scores["x2"].score == 1.0
    corpus = read_json(tmp_path / "metrics.json")["image"]["corpus"]
    masks = corpus["masks"]
    assert masks["miou"] == pytest.approx(round((1 + flipped_iou) / 3, 6))
    inter = gold_a.sum() + np.logical_and(gold_b, gold_b[:, ::-1]).sum()
    union = gold_a.sum() + np.logical_or(gold_b, gold_b[:, ::-1]).sum() + gold_a.sum()
    assert masks["ciou"] == pytest.approx(round(inter / union, 6))
    assert corpus["defects"] == {"n": 2, "maps_read": 2, "pixel_auroc": 1.0, "pro": 1.0,
                                 "image_auroc": 1.0}


def test_a_prediction_file_outside_the_root_is_a_failed_parse(tmp_path):
    root = tmp_path / "bench"
    _png(root / "masks" / "a.png", _mask((4, 4), (0, 0, 2, 2)) * 255)
    item = Item.model_validate(make_item(id="m1", task="open", metric="mask_iou",
                                         answers=["masks/a.png"]))
    assert score_item(item, "../../etc/passwd.png", root=root).parse == "failed"
    assert score_item(item, "masks/a.png", root=root).score == 1.0
    wrong_size = json.dumps(rle_encode(np.ones((3, 3), bool)))
    assert score_item(item, wrong_size, root=root).parse == "failed"


def test_a_missing_gold_mask_names_the_item(tmp_path):
    from bench_kit.errors import InputError

    item = Item.model_validate(make_item(id="m9", task="open", metric="mask_iou",
                                         answers=["masks/none.png"]))
    with pytest.raises(InputError, match="item 'm9': gold mask") as info:
        score_item(item, "masks/none.png", root=tmp_path)
    assert info.value.field == "answers"


def test_every_corpus_block_is_registered_and_groups_fall_back_to_the_image():
    assert CORPUS.names() == ["circular", "defects", "detection", "macro_f1", "masks",
                              "paired"]
    assert {"circular", "macro_f1", "paired", "rouge_l", "embedding", "point", "detection",
            "ap50", "map", "mask_iou", "miou", "pixel_auroc", "pro"} <= set(METRICS.names())
    grouped = Item.model_validate(make_item(id="g1", group="scene-1", image="a.png"))
    by_image = Item.model_validate(make_item(id="g2", image="a.png"))
    alone = Item.model_validate(make_item(id="g3"))
    assert [group_key(i) for i in (grouped, by_image, alone)] == ["scene-1", "a.png", "id:g3"]


@pytest.mark.slow
def test_embedding_similarity_uses_the_bundled_model():
    item = Item.model_validate(make_item(task="open", metric="embedding",
                                         answers=["a small dog"]))
    close = score_item(item, "a little puppy", settings=ScoreSettings(embedding_threshold=0.5))
    far = score_item(item, "a tax form", settings=ScoreSettings(embedding_threshold=0.5))
    assert close.score > far.score and close.hit and not far.hit
    assert score_item(item, "").parse == "failed"


@pytest.mark.parametrize("case", cases("circular"))
def test_circular_eval_maps_every_rotation_back(case):
    from bench_kit.scoring.stage import score_prediction_set
    from bench_kit.types import Prediction

    item = Item.model_validate(make_item(task="mc", choices=case["choices"],
                                         answers=[case["gold"]]))
    predictions = [Prediction.model_validate(_prediction("q1", response, rotation=rotation))
                   for rotation, response in enumerate(case["responses"])]
    score = score_prediction_set(item, predictions, size=None, settings=ScoreSettings())
    assert (score.extracted, score.hit, score.parse) == \
        (case["extracted"], case["hit"], case["parse"])
