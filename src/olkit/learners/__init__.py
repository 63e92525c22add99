"""All learners; importing this package registers every algorithm."""
from . import kernel  # noqa: F401
from .linear import arow, confidence_weighted, ellipsoid, sop  # noqa: F401
