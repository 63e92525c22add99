"""Experiments: orderings, repeats, parallel runs, summaries (docs/dev/architecture.md#the-olkit-run-command)."""

from .runner import make_orders, run_algorithms, run_experiment

__all__ = ["make_orders", "run_algorithms", "run_experiment"]
