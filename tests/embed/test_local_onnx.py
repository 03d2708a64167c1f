"""The ONNX Runtime path of the bundled encoder: same vectors as torch (fp32 within 1e-5 per
component; int8 within cosine 0.95 of the torch vector), unit norm, truncation at the
model's max_seq_length, the export cached on disk (a second construction does not export),
and a name that differs by runtime and precision (it is part of every cache key)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from bench_kit.embed import EmbedSettings, TorchEmbedder, encode, get_embedder, local_onnx
from bench_kit.embed.local_onnx import OnnxEmbedder, export_key, exported_model, read_layout
from bench_kit.embed.local_torch import model_path
from bench_kit.errors import ConfigError

LONG = " ".join(f"In panel {k} the blue square sits left of the red circle." for k in range(60))
TEXTS = ["Which planet is known as the red planet?", "How many red circles are there?",
         "图中有几个绿色的三角形？", "招牌上写的店名是什么？",
         "From the viewer's perspective, is the green triangle to the left of the red square?",
         "What is the value of the 2019 bar in the chart? Options: A. 12 B. 15 C. 18 D. 21",
         "yes", LONG]
FP32_ATOL = 1e-5  # per vector component; measured ~1.5e-7 (float rounding only)
INT8_MIN_COSINE = 0.95  # cosine to the torch vector; measured min 0.957 (on "yes")


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory) -> Path:
    """One export (fp32 + int8) shared by the module's slow tests."""
    root = tmp_path_factory.mktemp("onnx")
    OnnxEmbedder(cache_dir=root / ".bench_kit" / "onnx")
    OnnxEmbedder(int8=True, cache_dir=root / ".bench_kit" / "onnx")
    return root


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return encode(TEXTS)


@pytest.mark.slow
def test_fp32_vectors_equal_torch_including_chinese_and_truncated(onnx_cache,
                                                                  torch_vectors) -> None:
    embedder = OnnxEmbedder(cache_dir=onnx_cache / ".bench_kit" / "onnx", batch_size=3)
    assert not embedder.exported
    vectors = embedder.encode(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(vectors, torch_vectors, atol=FP32_ATOL)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # the long text is cut at max_seq_length (256 tokens): a different tail changes nothing
    tail = embedder.encode([LONG + " Which of these shapes is purple and hexagonal?"])
    np.testing.assert_allclose(tail[0], vectors[-1], atol=FP32_ATOL)
    # batching/padding does not change a vector
    alone = np.stack([embedder.encode([t])[0] for t in TEXTS])
    np.testing.assert_allclose(alone, vectors, atol=FP32_ATOL)


@pytest.mark.slow
def test_int8_vectors_close_to_torch_and_unit_norm(onnx_cache, torch_vectors) -> None:
    embedder = OnnxEmbedder(int8=True, cache_dir=onnx_cache / ".bench_kit" / "onnx")
    vectors = embedder.encode(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * torch_vectors).sum(axis=1)
    assert cosines.min() >= INT8_MIN_COSINE, cosines
    assert not np.allclose(vectors, torch_vectors, atol=FP32_ATOL)  # really quantised
    assert embedder.path.stat().st_size < 0.4 * (onnx_cache / ".bench_kit" / "onnx").joinpath(
        embedder.path.name.replace("-int8", "-fp32")).stat().st_size


@pytest.mark.slow
def test_second_construction_reads_the_cached_export(onnx_cache, monkeypatch) -> None:
    cache = onnx_cache / ".bench_kit" / "onnx"
    files = sorted(cache.iterdir())
    assert [p.suffix for p in files] == [".onnx", ".onnx"]  # no temp files left behind
    stamps = [p.stat().st_mtime_ns for p in files]

    def no_export(*args, **kwargs):
        raise AssertionError("exported again")

    monkeypatch.setattr(local_onnx, "export_fp32", no_export)
    monkeypatch.setattr(local_onnx, "quantize_int8", no_export)
    for int8 in (False, True):
        assert not OnnxEmbedder(int8=int8, cache_dir=cache).exported
    assert [p.stat().st_mtime_ns for p in sorted(cache.iterdir())] == stamps


@pytest.mark.slow
def test_names_differ_by_runtime_through_the_factory(onnx_cache, monkeypatch) -> None:
    monkeypatch.chdir(onnx_cache)  # the factory's default cache dir: .bench_kit/onnx
    fp32 = get_embedder(EmbedSettings(local_runtime="onnx"))
    int8 = get_embedder(EmbedSettings(local_runtime="onnx", onnx_int8=True))
    assert isinstance(fp32, OnnxEmbedder) and not fp32.exported and not int8.exported
    names = {TorchEmbedder().name, fp32.name, int8.name}
    assert names == {"all-MiniLM-L6-v2:torch", "all-MiniLM-L6-v2:onnx",
                     "all-MiniLM-L6-v2:onnx-int8"}


def _model_copy(tmp_path: Path) -> Path:
    """The bundled model's small files (no weights) in a folder we may change."""
    folder = tmp_path / "model"
    shutil.copytree(model_path(), folder, ignore=shutil.ignore_patterns("*.safetensors"))
    return folder


def test_export_key_follows_the_model_files(tmp_path) -> None:
    folder = _model_copy(tmp_path)
    key = export_key(folder)
    assert export_key(folder) == key
    (folder / "README.md").write_text("edited card", encoding="utf-8")
    assert export_key(folder) == key  # the model card is not part of the model
    config = folder / "config.json"
    config.write_text(config.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert export_key(folder) != key


def test_a_cached_file_is_used_without_exporting(tmp_path, monkeypatch) -> None:
    folder = _model_copy(tmp_path)

    def no_export(*args, **kwargs):
        raise AssertionError("exported although cached")

    monkeypatch.setattr(local_onnx, "export_fp32", no_export)
    monkeypatch.setattr(local_onnx, "quantize_int8", no_export)
    cached = tmp_path / "cache" / f"all-MiniLM-L6-v2-{export_key(folder)}-int8.onnx"
    cached.parent.mkdir()
    cached.write_bytes(b"graph")
    assert exported_model(True, tmp_path / "cache", folder) == (cached, False)
    with pytest.raises(AssertionError, match="exported"):  # fp32 is not cached: export
        exported_model(False, tmp_path / "cache", folder)


def test_layout_reads_max_seq_length_and_rejects_other_pooling(tmp_path) -> None:
    folder = _model_copy(tmp_path)
    layout = read_layout(folder)
    assert (layout.max_seq_length, layout.dimension) == (256, 384)
    pooling = folder / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text(encoding="utf-8"))
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ConfigError, match="mean pooling"):
        read_layout(folder)
