"""The game and the mathematics of The Emissary, in layers that depend one way:
:mod:`.infra` <- :mod:`.game` <- :mod:`.visit` <- :mod:`.firstedition`, :mod:`.sweep` <-
:mod:`.tours` (docs/layout.md; ``tests/test_layout.py`` checks it)."""

from .infra import ensure_jit_cache

ensure_jit_cache()  # before any kernel imports numba: a folder it can cache them in
