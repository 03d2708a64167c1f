"""`python -m bench_kit` runs the CLI."""

from bench_kit.cli import main

if __name__ == "__main__":
    main()
