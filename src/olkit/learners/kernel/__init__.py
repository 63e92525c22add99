"""Kernel (support-vector) learners, binary, multiclass and multi-label (DUOL JMLR 2011 and its baselines);
:mod:`olkit.learners` imports every module."""
