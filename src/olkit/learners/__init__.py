"""All learners; importing this package registers every algorithm."""
from . import kernel  # noqa: F401
