"""Contamination checks against a planted reference corpus: each kind found, clean items not,
evidence naming the reference row, on-disk caches reused, the LLM judge over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import make_item
from openai_server import FakeOpenAI
from test_audit_images import blob, write_items

from bench_kit.audit import contamination_images
from bench_kit.audit.stage import audit_data
from bench_kit.cli import cli
from bench_kit.embed import local_torch

REFERENCE = [
    {"id": "pub-exact", "question": "How many red circles are in the picture?",
     "choices": {"A": "2", "B": "3"}},
    {"id": "pub-cycle", "question": "Looking carefully at the diagram of the water cycle shown "
                                    "above, which process moves water vapour from the oceans "
                                    "into the clouds?"},
    {"id": "pub-flag", "question": "What is the capital city of the country whose flag is "
                                   "shown in the upper corner of this old travel poster?"},
    {"id": "pub-mars", "question": "Which planet is known as the red planet?"},
    {"id": "pub-zh", "question": "请仔细观察图中的水循环示意图，指出将海洋中的水蒸气带入云层的过程是什么？"},
    {"id": "pub-photo", "question": "Which gas do plants absorb from the air during "
                                    "photosynthesis?"},
]

# item id -> (question fields, the contamination checks it must trigger)
PLANTED: dict[str, tuple[dict[str, Any], set[str]]] = {
    "exact": ({"question": "HOW MANY red circles are in the picture", "task": "mc",
               "choices": {"A": "2", "B": "3"}, "answers": ["A"]},
              {"contamination.exact", "contamination.embedding"}),
    "ngram_en": ({"question": "In this exam, looking carefully at the diagram of the water cycle "
                              "shown above, which process moves water vapour from the oceans "
                              "into the clouds each morning?", "task": "open",
                  "answers": ["evaporation"]}, {"contamination.ngram"}),
    "ngram_zh": ({"question": "根据这张图，请仔细观察图中的水循环示意图，指出将海洋中的水蒸气带入云层的过程",
                  "task": "open", "answers": ["蒸发"]}, {"contamination.ngram"}),
    "near_copy": ({"question": "What is the capital city of the country whose flag is shown in "
                               "the upper corner of this old travel placard?", "task": "open",
                   "answers": ["Paris"]}, {"contamination.minhash", "contamination.ngram"}),
    "rephrase": ({"question": "What planet is called the red planet?", "task": "open",
                  "answers": ["Mars"]}, {"contamination.embedding"}),
}
CLEAN = {
    "clean_colour": "What colour is the largest shape in the image?",
    "clean_count": "How many triangles are below the blue square?",
    "clean_zh": "图中有几个绿色的三角形？",
    "clean_sign": "What does the sign above the door say?",
}


def write_reference_source(path: Path) -> Path:
    return write_items(path, REFERENCE)


def item_rows() -> list[dict[str, Any]]:
    rows = [make_item(id=ident, **fields) for ident, (fields, _) in PLANTED.items()]
    rows += [make_item(id=ident, question=q) for ident, q in CLEAN.items()]
    return rows


def write_params(path: Path, cache: Path, extra: str = "") -> Path:
    path.write_text(f"audit:\n  contamination:\n    cache_dir: {cache}\n{extra}",
                    encoding="utf-8")
    return path


@pytest.fixture
def bench(tmp_path) -> Path:
    write_reference_source(tmp_path / "public.jsonl")
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--out",
                                      str(tmp_path / "ref.jsonl"), str(tmp_path / "public.jsonl")])
    assert result.exit_code == 0, result.output
    write_items(tmp_path / "bench" / "items.jsonl", item_rows())
    write_params(tmp_path / "params.yaml", tmp_path / "cache")
    return tmp_path


def run_audit(bench: Path, *extra: str, out: str = "out") -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, ["audit", "data", "--items",
                                      str(bench / "bench" / "items.jsonl"), "--params",
                                      str(bench / "params.yaml"), "--out", str(bench / out),
                                      *extra])
    assert result.exit_code == 0, result.output
    text = (bench / out / "findings.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def by_pair(findings: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(f["id"], f["check"]): f for f in findings if f["check"].startswith("contamination")}


def test_every_planted_contamination_is_found_and_clean_items_are_not(bench):
    found = by_pair(run_audit(bench, "--reference", str(bench / "ref.jsonl")))
    for ident, (_, checks) in PLANTED.items():
        for name in checks:
            assert (ident, name) in found, (ident, name, sorted(found))
    assert not [key for key, f in found.items() if key[0] in CLEAN and f["severity"] != "info"]
    exact = found[("exact", "contamination.exact")]
    assert exact["evidence"]["ref_id"] == "pub-exact"
    assert exact["evidence"]["matched"] == "question+options"
    assert exact["evidence"]["reference"] == "How many red circles are in the picture?"
    ngram = found[("ngram_en", "contamination.ngram")]["evidence"]
    assert ngram["ref_id"] == "pub-cycle" and ngram["n"] == 13 and ngram["shared"] >= 1
    assert ngram["span"] in "looking carefully at the diagram of the water cycle shown above " \
                            "which process moves water vapour from the oceans into the clouds"
    assert found[("ngram_zh", "contamination.ngram")]["evidence"]["ref_id"] == "pub-zh"
    near = found[("near_copy", "contamination.minhash")]["evidence"]
    assert near["ref_id"] == "pub-flag" and 0.8 <= near["jaccard"] < 1.0
    rephrase = found[("rephrase", "contamination.embedding")]
    assert rephrase["severity"] == "warn" and rephrase["evidence"]["ref_id"] == "pub-mars"
    assert rephrase["evidence"]["cosine"] >= 0.9 and rephrase["evidence"]["verdict"] == "rephrase"


def test_thresholds_come_from_params(bench):
    write_params(bench / "params.yaml", bench / "cache",
                 "    minhash_threshold: 0.95\n    rephrase: 0.999\n    review: 0.999\n"
                 "    rephrase_combined: 1.99\n    review_combined: 1.99\n"
                 "    ngram_n: 60\n    ngram_short_n: 50\n")
    found = by_pair(run_audit(bench, "--reference", str(bench / "ref.jsonl")))
    assert ("near_copy", "contamination.minhash") not in found
    assert ("rephrase", "contamination.embedding") not in found
    assert not [k for k in found if k[1] == "contamination.ngram"]
    assert ("exact", "contamination.exact") in found


def test_second_audit_reuses_cached_embeddings_and_signatures(bench, monkeypatch):
    import datasketch

    calls = {"encode": 0, "bulk": 0}
    real_encode, real_bulk = local_torch.encode, datasketch.MinHash.bulk

    def counting_encode(texts, *args, **kwargs):
        calls["encode"] += 1
        return real_encode(texts, *args, **kwargs)

    def counting_bulk(sets, **kwargs):
        calls["bulk"] += 1
        return real_bulk(sets, **kwargs)

    monkeypatch.setattr(local_torch, "encode", counting_encode)
    monkeypatch.setattr(datasketch.MinHash, "bulk", staticmethod(counting_bulk))
    first = run_audit(bench, "--reference", str(bench / "ref.jsonl"), out="a")
    assert calls == {"encode": 2, "bulk": 2}  # reference + items each
    assert len(list((bench / "cache").glob("*.npy"))) == 3
    second = run_audit(bench, "--reference", str(bench / "ref.jsonl"), out="b")
    assert calls == {"encode": 2, "bulk": 3}  # only the items' signatures again
    assert first == second
    assert (bench / "a" / "findings.jsonl").read_bytes() == \
        (bench / "b" / "findings.jsonl").read_bytes()
    # A changed corpus has another content hash: its features are computed afresh.
    with (bench / "ref.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"ref_id": "new", "source": "x", "text": "a new question",
                                 "question": "a new question", "original": "A new question"})
                     + "\n")
    run_audit(bench, "--reference", str(bench / "ref.jsonl"), out="c")
    assert calls == {"encode": 3, "bulk": 5}


def _red_planet_reference(tmp_path) -> None:
    """A one-question reference (a rephrase of the items' red-planet question) at ref.jsonl."""
    write_items(tmp_path / "public.jsonl",
                [{"id": "pub-body", "question": "Which celestial body is nicknamed the red "
                                                "planet?"}])
    result = CliRunner().invoke(cli, ["audit", "reference", "build", "--out",
                                      str(tmp_path / "ref.jsonl"), str(tmp_path / "public.jsonl")])
    assert result.exit_code == 0, result.output


# The red-planet pair scores combined 0.93 (a warn at the shipped 0.85), about 0.75 with the
# judge test's scenario tag: these tests set the band around it so that it is a review pair.
_WARN_ABOVE_THE_PAIR = "    rephrase_combined: 1.0\n    review_combined: 0.6\n"


def test_judge_decides_the_review_band_over_http(tmp_path):
    _red_planet_reference(tmp_path)
    write_items(tmp_path / "bench" / "items.jsonl", [
        make_item(id="judged", question="Which planet is known as the red planet? "
                                        "[scenario:verdict]", task="open", answers=["Mars"])])
    with FakeOpenAI() as server:
        server.verdicts = ["Yes."]
        write_params(tmp_path / "params.yaml", tmp_path / "cache", (
            f"{_WARN_ABOVE_THE_PAIR}    judge: judge\n"
            f"eval:\n  cache: {tmp_path / 'calls.sqlite'}\n  models:\n    judge:\n"
            f"      adapter: openai\n      model: judge-model\n      base_url: {server.url}\n"
            "      max_retries: 0\n"))
        findings = by_pair(run_audit(tmp_path, "--reference", str(tmp_path / "ref.jsonl")))
        assert server.count() == 1
        prompt = server.prompt_of(server.requests[0]["body"])
        assert "Which celestial body is nicknamed the red planet?" in prompt
        run_audit(tmp_path, "--reference", str(tmp_path / "ref.jsonl"), out="again")
        assert server.count() == 1  # answered from the call cache
    found = findings[("judged", "contamination.embedding")]
    assert 0.6 <= found["evidence"]["cosine"] < 0.9
    assert found["severity"] == "warn"
    assert found["evidence"]["judge"] == "judge"
    assert found["evidence"]["judge_verdict"] == "rephrase"
    assert found["evidence"]["verdict"] == "rephrase (judge)"


def test_review_band_without_a_judge_is_info(tmp_path):
    _red_planet_reference(tmp_path)
    write_items(tmp_path / "bench" / "items.jsonl", [
        make_item(id="q", question="Which planet is known as the red planet?", task="open",
                  answers=["Mars"])])
    write_params(tmp_path / "params.yaml", tmp_path / "cache", _WARN_ABOVE_THE_PAIR)
    found = by_pair(run_audit(tmp_path, "--reference", str(tmp_path / "ref.jsonl")))
    finding = found[("q", "contamination.embedding")]
    assert finding["severity"] == "info" and finding["evidence"]["verdict"] == "review"


def test_reference_images_exact_flipped_and_cached(tmp_path, monkeypatch):
    from PIL import ImageOps

    (tmp_path / "bench" / "img").mkdir(parents=True)
    (tmp_path / "refs" / "sub").mkdir(parents=True)
    blob(11).save(tmp_path / "bench" / "img" / "copied.png")
    blob(11).save(tmp_path / "refs" / "copied.bmp")
    blob(12).save(tmp_path / "bench" / "img" / "mirrored.png")
    ImageOps.mirror(blob(12)).save(tmp_path / "refs" / "sub" / "mirror.png")
    blob(13).save(tmp_path / "bench" / "img" / "fresh.png")
    blob(14).save(tmp_path / "refs" / "unrelated.png")
    write_items(tmp_path / "bench" / "items.jsonl", [
        make_item(id="copied", image="img/copied.png"),
        make_item(id="mirrored", image="img/mirrored.png"),
        make_item(id="fresh", image="img/fresh.png")])
    write_params(tmp_path / "params.yaml", tmp_path / "cache")
    opened = []
    real_open = contamination_images.open_image
    monkeypatch.setattr(contamination_images, "open_image",
                        lambda path: opened.append(path) or real_open(path))
    found = by_pair(run_audit(tmp_path, "--reference-images", str(tmp_path / "refs")))
    assert set(found) == {("copied", "contamination.image"), ("mirrored", "contamination.image")}
    copied = found[("copied", "contamination.image")]["evidence"]
    assert copied["reference_image"] == "refs/copied.bmp" and copied["verdict"] == "same pixels"
    mirrored = found[("mirrored", "contamination.image")]["evidence"]
    assert mirrored["reference_image"] == "refs/sub/mirror.png" and mirrored["flipped"]
    # Three reference images hashed, then the near pair decoded again for the colour check.
    assert [p.name for p in opened] == ["copied.bmp", "mirror.png", "unrelated.png",
                                        "mirrored.png", "mirror.png"]
    assert mirrored["colour_distance"] <= 16
    opened.clear()
    run_audit(tmp_path, "--reference-images", str(tmp_path / "refs"), out="again")
    assert [p.name for p in opened] == ["mirrored.png", "mirror.png"]  # hashes from the cache


def test_contamination_settings_are_validated(bench):
    for extra, message in [("    rephrase: 0.5\n", "review (0.97) must be <= rephrase"),
                           ("    ngram: 13\n", "audit.contamination.ngram: unknown key"),
                           ("    minhash_threshold: 0.99\n", "lower the threshold")]:
        write_params(bench / "params.yaml", bench / "cache", extra)
        result = CliRunner().invoke(cli, ["audit", "data", "--items",
                                          str(bench / "bench" / "items.jsonl"), "--params",
                                          str(bench / "params.yaml"), "--out",
                                          str(bench / "out"), "--reference",
                                          str(bench / "ref.jsonl")])
        assert result.exit_code == 1 and message in result.output, result.output
        assert not (bench / "out").exists()


def test_a_raw_source_given_as_reference_names_the_build_command(bench):
    result = CliRunner().invoke(cli, ["audit", "data", "--items",
                                      str(bench / "bench" / "items.jsonl"), "--params",
                                      str(bench / "params.yaml"), "--out", str(bench / "out"),
                                      "--reference", str(bench / "public.jsonl")])
    assert result.exit_code == 1
    assert "bench-kit audit reference build" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_library_entry_point_skips_contamination_without_references(bench):
    result = audit_data(bench / "bench" / "items.jsonl", bench / "lib",
                        params_path=bench / "params.yaml")
    skipped = {s["check"] for s in result.summary["checks_skipped"]}
    assert {"contamination.exact", "contamination.ngram", "contamination.minhash",
            "contamination.embedding", "contamination.image"} <= skipped


def test_shingle_hashes_match_the_shingles():
    from bench_kit.audit.contamination import shingle_hashes, shingles

    for text in ("what colour is the largest shape", "图中有几个圆形", "abc", "a"):
        assert len(shingle_hashes(text, 5)) == len(shingles(text, 5))
    assert shingle_hashes("abcdef", 5).tolist() == shingle_hashes("abcdef", 5).tolist()
    assert set(shingle_hashes("xabcdefx", 5).tolist()) >= set(shingle_hashes("abcdef", 5).tolist())


def test_tokens_split_cjk_into_characters():
    from bench_kit.audit.contamination import ngrams
    from bench_kit.text.tokens import word_tokens as tokens

    assert tokens("图中 有 red circles") == ["图", "中", "有", "red", "circles"]
    assert ngrams(["a", "b", "c", "a", "b"], 2) == ["a b", "b c", "c a"]  # text order, once
    assert ngrams(["a"], 2) == []


def test_reference_image_search_matches_brute_force(monkeypatch):
    import numpy as np

    rng = np.random.default_rng(1)
    hashes = rng.integers(0, 2**63, 23, dtype=np.int64).astype(np.uint64)
    flips = rng.integers(0, 2**63, 23, dtype=np.int64).astype(np.uint64)
    ref = rng.integers(0, 2**63, (41, 6), dtype=np.int64).astype(np.uint64)
    ref[7, 0] = hashes[3] ^ np.uint64(0b101)  # distance 2
    ref[9, 1] = hashes[4]                     # matches the reference's flipped hash
    monkeypatch.setattr(contamination_images, "_TILE", 50)
    best, where, flipped = contamination_images.nearest(hashes, flips, ref)

    def dist(a, b):
        return bin(int(a) ^ int(b)).count("1")

    for i in range(len(hashes)):
        options = [(min(dist(hashes[i], r[0]), dist(hashes[i], r[1]), dist(flips[i], r[0])), k)
                   for k, r in enumerate(ref)]
        assert (best[i], where[i]) == min(options)
    assert (best[3], where[3], flipped[3]) == (2, 7, False)
    assert (best[4], where[4], flipped[4]) == (0, 9, True)
