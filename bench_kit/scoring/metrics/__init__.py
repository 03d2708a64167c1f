"""bench_kit.scoring.metrics."""
