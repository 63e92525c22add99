"""Budgeted kernel learners (Ahpatron AAAI 2024 and its baselines); :mod:`olkit.learners` imports every module."""
