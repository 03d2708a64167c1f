"""The bundled all-MiniLM-L6-v2 run by ONNX Runtime (`embed.local_runtime: onnx`).

The ONNX graph is made offline from the bundled weights on first use (torch's TorchScript
exporter: BERT + the model's mean pooling + L2 normalisation, as its sentence-transformers
modules say) and cached under `.bench_kit/onnx/`, keyed by the model files' hash, the
package versions and this exporter's version, written atomically. With `onnx_int8` the
graph's matrix products are quantised to int8 (onnxruntime dynamic quantisation). Texts are
tokenised by the model folder's own fast tokenizer, truncated to its `max_seq_length`.
Speed and agreement with the torch runtime: docs/BENCHMARKS.md, "Encoder runtime".
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from bench_kit.embed import LOCAL_MODEL
from bench_kit.embed.local_torch import model_path
from bench_kit.errors import ConfigError
from bench_kit.io import atomic_path, file_sha256

DEFAULT_CACHE_DIR = ".bench_kit/onnx"
EXPORT_VERSION = 1  # bump when the exported graph changes (part of the cache key)
OPSET = 17
_KEY_PACKAGES = ("torch", "transformers", "onnx", "onnxruntime")


@dataclass(frozen=True)
class ModelLayout:
    """What the model folder's sentence-transformers config says about encoding."""

    folder: Path
    max_seq_length: int
    dimension: int


def read_layout(folder: str | Path) -> ModelLayout:
    """Check the folder's modules are Transformer → mean Pooling → Normalize (the only
    pipeline this graph reproduces) and read the truncation length.

    Raises:
        ConfigError: the model folder describes a different pipeline.
    """
    folder = Path(folder)
    modules = [m["type"].rsplit(".", 1)[-1]
               for m in json.loads((folder / "modules.json").read_text(encoding="utf-8"))]
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modules != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"]:
        raise ConfigError(f"{folder}: the ONNX runtime reproduces Transformer + mean pooling + "
                          f"Normalize only, not modules {modules} with pooling {modes}")
    bert = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    return ModelLayout(folder, int(bert["max_seq_length"]),
                       int(pooling["word_embedding_dimension"]))


def export_key(folder: str | Path) -> str:
    """Hash of the model files' bytes, the package versions and the export settings."""
    digest = hashlib.sha256(f"export={EXPORT_VERSION};opset={OPSET}".encode())
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file() and path.name != "README.md":
            digest.update(f"{path.relative_to(folder).as_posix()}={file_sha256(path)}".encode())
    for package in _KEY_PACKAGES:
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f";{package}={version}".encode())
    return digest.hexdigest()[:20]


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"embed.local_runtime=onnx needs '{exc.name}': "
                          "pip install -e .") from exc


def export_fp32(layout: ModelLayout, out: Path) -> None:
    """Export BERT + mean pooling + L2 normalisation to `out` (atomically)."""
    import warnings

    torch = _need("torch")
    transformers = _need("transformers")
    transformers.utils.logging.disable_progress_bar()
    bert = transformers.AutoModel.from_pretrained(str(layout.folder),
                                                  attn_implementation="eager").eval()

    module_base: Any = torch.nn.Module  # torch is untyped here: imported lazily via _need

    class SentenceGraph(module_base):
        """sentence-transformers' Pooling(mean) + Normalize on top of the transformer."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            tokens = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    example = torch.ones((2, 8), dtype=torch.long)
    dynamic = {name: {0: "batch", 1: "tokens"}
               for name in ("input_ids", "attention_mask", "token_type_ids")}
    dynamic["sentence_embedding"] = {0: "batch"}
    with atomic_path(out) as tmp, torch.no_grad(), warnings.catch_warnings():
        # tracer notes on shape arithmetic: the graph is checked against torch at every
        # batch shape by tests/embed/test_local_onnx.py
        warnings.simplefilter("ignore")
        torch.onnx.export(SentenceGraph().eval(), (example, example, torch.zeros_like(example)),
                          str(tmp), dynamo=False, opset_version=OPSET,
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["sentence_embedding"], dynamic_axes=dynamic)


def quantize_int8(fp32: Path, out: Path) -> None:
    """Dynamic int8 quantisation of the fp32 graph's weights, one scale per output channel
    (per-tensor scales cost 4x the cosine error on this model), atomically."""
    import logging

    quantization = _need("onnxruntime.quantization")
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser's "consider pre-processing" advice
    try:
        with atomic_path(out) as tmp:
            quantization.quantize_dynamic(str(fp32), str(tmp), per_channel=True,
                                          weight_type=quantization.QuantType.QInt8)
    finally:
        root.setLevel(level)


def exported_model(int8: bool, cache_dir: str | Path = DEFAULT_CACHE_DIR,
                   folder: str | Path | None = None) -> tuple[Path, bool]:
    """The cached ONNX file for the bundled model (exported now if missing) and whether
    this call exported it."""
    layout = read_layout(folder or model_path())
    stem = f"{LOCAL_MODEL}-{export_key(layout.folder)}"
    fp32 = Path(cache_dir) / f"{stem}-fp32.onnx"
    target = Path(cache_dir) / f"{stem}-int8.onnx" if int8 else fp32
    if target.exists():
        return target, False
    if not fp32.exists():
        export_fp32(layout, fp32)
    if int8:
        quantize_int8(fp32, target)
    return target, True


def onnx_name(int8: bool) -> str:
    """The embedder name (part of every embedding cache key): model + runtime + precision."""
    return f"{LOCAL_MODEL}:onnx-int8" if int8 else f"{LOCAL_MODEL}:onnx"


class OnnxEmbedder:
    """The bundled model through ONNX Runtime (CPU); `name` says runtime and precision."""

    def __init__(self, int8: bool = False, batch_size: int = 64,
                 cache_dir: str | Path = DEFAULT_CACHE_DIR,
                 threads: int | None = None) -> None:
        for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
                           ("TRANSFORMERS_VERBOSITY", "error")):
            os.environ.setdefault(key, value)  # the model folder is local: never the hub
        ort = _need("onnxruntime")
        transformers = _need("transformers")
        self.batch_size = batch_size
        self.name = onnx_name(int8)
        self.layout = read_layout(model_path())
        self.path, self.exported = exported_model(int8, cache_dir, self.layout.folder)
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(self.layout.folder),
                                                                    use_fast=True)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(self.path), options,
                                            providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]

    def encode(self, texts: Sequence[str]) -> Any:
        """Unit vectors, float32 (len(texts), 384); batches of similar length (as
        sentence-transformers does) so padding stays short."""
        import numpy as np

        texts = list(texts)
        out = np.zeros((len(texts), self.layout.dimension), dtype="float32")
        order = sorted(range(len(texts)), key=lambda k: -len(texts[k]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start:start + self.batch_size]
            batch = self.tokenizer([texts[k] for k in rows], padding=True, truncation=True,
                                   max_length=self.layout.max_seq_length, return_tensors="np")
            feed = {name: batch[name].astype("int64") for name in self.inputs}
            out[rows] = self.session.run(None, feed)[0]
        return out
