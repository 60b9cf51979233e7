"""The ``emissary`` command line (:mod:`advisor.cli`) over the ``search`` package."""

import time

STARTED = time.perf_counter()
"""When the package was first imported: for the console script, about when the command started
(the interpreter's own start-up, some 20 ms, comes before)."""
