"""Side-by-side benchmarks: ``python -m benchmarks [name ...]``."""
