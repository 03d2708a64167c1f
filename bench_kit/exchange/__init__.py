"""bench_kit.exchange."""
