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


@intrinsic
def prefetch(typingctx, address):
    """Ask the memory for the cache line at integer ``address`` without waiting for it (a
    hint: ``prefetcht0``); a lookup that follows finds it in the cache."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32])
        function = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        address = builder.inttoptr(args[0], cgutils.voidptr_t)
        read, keep, data = ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)
        builder.call(function, [address, read, keep, data])
        return context.get_dummy_value()

    return types.void(address), codegen
