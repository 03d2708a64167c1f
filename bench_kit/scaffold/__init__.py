"""bench_kit.scaffold."""
