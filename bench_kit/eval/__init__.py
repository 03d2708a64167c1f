"""bench_kit.eval."""
