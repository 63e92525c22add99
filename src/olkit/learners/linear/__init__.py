"""Linear (primal) learners: the first- and second-order family of the SCW paper (ICML 2012).

The learner modules are imported by :mod:`olkit.learners` (which registers them); this package's own
import stays light because the kernel learners' primal form (kernel="linear") uses its engine.
"""
