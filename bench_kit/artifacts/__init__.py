"""bench_kit.artifacts."""
