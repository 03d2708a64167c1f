"""bench_kit.text."""
