"""All learners; importing this package registers every algorithm."""
from . import kernel  # noqa: F401
from .linear import arow, cw, cw_var, iellip, narow, nherd, sop  # noqa: F401
