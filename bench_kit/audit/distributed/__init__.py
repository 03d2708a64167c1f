"""Contamination audits past one machine, on Dask (docs/SCALE.md).

- `engine.py`: `audit.engine` / `audit.cluster` and the Dask client (imported lazily);
- `signatures.py`: the per-row features a partition stores (hashes, band keys);
- `partitions.py`: the partitioned parquet reference, its manifest, the resumable build;
- `build.py`: `audit reference build --partitioned` on the configured engine;
- `matching.py`: broadcast the items, filter each partition on its worker, return only
  candidate rows; the unchanged local checks then run on those rows;
- `rephrase.py`: `contamination.embedding` (corpus IDF, per-partition top-1 and
  rare-token match, merged in reference order);
- `audit.py`: what `audit data --reference <partitioned>` calls.
"""
