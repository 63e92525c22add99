"""Budgeted kernel learners (Ahpatron AAAI 2024 and its baselines)."""
from . import ahpatron, avp, bogd, fogd, forgetron, nogd, pomdr, projectron, rbp  # noqa: F401
