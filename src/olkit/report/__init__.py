"""Reports: tables (text, markdown, LaTeX, CSV, JSON) and plots of experiment results."""

from .tables import format_results

__all__ = ["format_results"]
