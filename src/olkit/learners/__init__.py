"""All learners; importing this package registers every algorithm.

Every module of the family subpackages (:data:`olkit.spec.FAMILIES`: kernel, budget, linear) is imported, so
a learner module registers itself by being there: there is no list of modules to extend. The listing order
(``olkit list``, :func:`olkit.registry.names`) is data of the registry (``position=`` of ``@register``), not
the order of these imports.
"""

import importlib
import pkgutil

from ..spec import FAMILIES


def _import_learner_modules():
    for family in FAMILIES:
        package = importlib.import_module(f"{__name__}.{family}")
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")


_import_learner_modules()
