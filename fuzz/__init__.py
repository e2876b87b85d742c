"""streamcall's fuzz campaign: coverage-guided targets (atheris), outside the test suite.

``python -m fuzz --help`` runs it; ``fuzz/README.md`` says how and what each target checks.
"""
