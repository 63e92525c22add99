"""Experiments: orderings, repeats, parallel runs, summaries (DESIGN.md §2.3)."""
from .runner import make_orders, run_algorithms, run_experiment

__all__ = ["make_orders", "run_algorithms", "run_experiment"]
