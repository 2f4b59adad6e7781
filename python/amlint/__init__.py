"""amlint: a linter for Azure Machine Learning configuration files.

This package only carries the ``amlint`` executable (a Rust binary installed into the
environment's scripts directory). Run ``amlint`` or ``python -m amlint``;
``find_amlint_bin()`` returns the executable's path.
"""

from amlint._find_bin import find_amlint_bin

__all__ = ["find_amlint_bin"]
