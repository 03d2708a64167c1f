"""The per-row features a partition stores, so that matching reads columns, not text.

Every feature reuses the local checks' own definitions (normalisation in
bench_kit.audit.reference, n-grams, shingles and MinHash in bench_kit.audit.contamination);
only the 64-bit hashes and LSH band keys are new, and they are used as *filters*: a hash
collision can only add a candidate row, which the unchanged local check then rejects.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable

from bench_kit.audit.contamination import ContaminationSettings, ngrams, signatures
from bench_kit.text.tokens import word_tokens

_BAND_MULT = 0x9E3779B97F4A7C15  # odd 64-bit multiplier of the band-key polynomial


def hash64(strings: Iterable[str]) -> Any:
    """First 8 bytes of blake2b of each string, as a numpy uint64 array (process-stable)."""
    import numpy as np

    return np.array([int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(),
                                    "little") for s in strings], dtype=np.uint64)


def ngram_hashes(text: str, size: int) -> Any:
    """hash64 of the distinct word `size`-grams of a normalised text (sorted)."""
    import numpy as np

    return np.unique(hash64(ngrams(word_tokens(text), size)))


@dataclass(frozen=True)
class FeatureSpec:
    """What the stored features depend on (recorded in the manifest, checked at match time)."""

    ngram_sizes: tuple[int, ...]
    shingle: int
    perm: int
    embedder: str | None = None

    @classmethod
    def from_settings(cls, settings: ContaminationSettings,
                      embedder: str | None = None) -> "FeatureSpec":
        """The spec the `audit.contamination` settings ask for."""
        return cls(tuple(sorted({settings.ngram_n, settings.ngram_short_n})),
                   settings.minhash_shingle, settings.minhash_perm, embedder)

    def as_dict(self) -> dict[str, Any]:
        """JSON form (manifest)."""
        return {"ngram_sizes": list(self.ngram_sizes), "shingle": self.shingle,
                "perm": self.perm, "embedder": self.embedder}


def minhash_block(texts: list[str], spec: FeatureSpec) -> Any:
    """uint32 (n, perm) MinHash signatures, exactly the local check's (datasketch, seed 1)."""
    import numpy as np

    if not texts:
        return np.zeros((0, spec.perm), dtype=np.uint32)
    return np.array([sig.hashvalues for sig in signatures(texts, spec.shingle, spec.perm)],
                    dtype=np.uint32).reshape(len(texts), spec.perm)


def lsh_shape(threshold: float, perm: int) -> tuple[int, int]:
    """(bands, rows per band) datasketch's MinHashLSH picks for this threshold."""
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=perm)
    return lsh.b, lsh.r


def band_keys(sigs: Any, bands: int, rows: int) -> Any:
    """uint64 (n, bands) keys: equal bands give equal keys, so every pair datasketch's LSH
    returns shares a key (unequal bands may collide: a filter, verified afterwards)."""
    import numpy as np

    sigs = np.asarray(sigs, dtype=np.uint64)
    keys = np.zeros((len(sigs), bands), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for band in range(bands):
            acc = np.zeros(len(sigs), dtype=np.uint64)
            for col in range(band * rows, (band + 1) * rows):
                acc = acc * np.uint64(_BAND_MULT) + sigs[:, col] + np.uint64(1)
            keys[:, band] = acc
    return keys
