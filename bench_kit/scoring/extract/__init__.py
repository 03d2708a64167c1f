"""bench_kit.scoring.extract."""
