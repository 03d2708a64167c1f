"""bench_kit.history."""
