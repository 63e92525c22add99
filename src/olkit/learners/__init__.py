"""All learners; importing this package registers every algorithm."""
from . import kernel  # noqa: F401
from . import budget  # noqa: F401
from .linear import sop, cw, cw_var, iellip, arow, nherd, narow  # noqa: F401,I001  (the SCW paper's order)
