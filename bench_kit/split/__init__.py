"""bench_kit.split."""
