"""Compiled helpers both visit kernels use: one machine instruction each (numba intrinsics).

Importing this module imports numba; :mod:`search.infra` loads it only when one of its
names is asked for, so commands that never search start quickly.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def pointer(typingctx, address):
    """The void pointer at an integer address."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@intrinsic
def popcount(typingctx, x):
    """How many bits of ``x`` are set (one ``popcnt`` instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def lowbit_index(typingctx, x):
    """The index of the lowest set bit of ``x`` (``x`` nonzero)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return x(x), codegen
