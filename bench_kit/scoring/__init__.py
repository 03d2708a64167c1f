"""bench_kit.scoring."""
