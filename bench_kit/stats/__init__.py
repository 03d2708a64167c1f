"""bench_kit.stats."""
