"""Budgeted kernel learners (Ahpatron AAAI 2024 and its baselines)."""
from . import avp, ahpatron, projectron, forgetron, rbp, bogd, pomdr, fogd, nogd  # noqa: F401
