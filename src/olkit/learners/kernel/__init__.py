"""Kernel (support-vector) learners, binary, multiclass and multi-label (DUOL JMLR 2011 and its baselines)."""
from .perceptron import KernelPerceptron
from .pa import PA, PA1, PA2
from .romma import ROMMA, AggROMMA
from .alma import ALMA
from .duol import DUOL, DUOLAppr, DUOLIter, DUOLRand
from .online_svm import OnlineSVM
from .mira import MIRA
from .scw import SCW1, SCW2

__all__ = ["KernelPerceptron", "PA", "PA1", "PA2", "ROMMA", "AggROMMA", "ALMA", "DUOL", "DUOLAppr",
           "DUOLIter", "DUOLRand", "OnlineSVM", "MIRA", "SCW1", "SCW2"]
