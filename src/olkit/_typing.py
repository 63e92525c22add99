"""Type aliases of olkit's public signatures.

Only type checkers import this module (``if TYPE_CHECKING:`` in the modules that use it): nothing at run time
depends on it, and the command line's start-up imports nothing more for it.
"""

from typing import TypeAlias

import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

MatrixLike: TypeAlias = ArrayLike | sp.spmatrix | sp.sparray
"""Examples as rows: a dense array-like (a numpy array, a list of lists, a pandas DataFrame) or a scipy
sparse matrix or array of any format."""

__all__ = ["ArrayLike", "MatrixLike", "NDArray"]
