"""Contamination audits past one machine, on Dask (docs/SCALE.md).

- `engine.py`: `audit.engine` / `audit.cluster` and the Dask client (imported lazily);
- `partitions.py`: the partitioned parquet reference with its signatures and manifest;
- `signatures.py`: the per-row features stored in a partition (hashes, band keys);
- `matching.py`: broadcast the items, filter each partition on its worker, return only
  candidate rows; the unchanged local checks then run on those rows.
"""
