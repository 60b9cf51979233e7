"""Compiled helpers the kernels use: a machine instruction or a libc call or two each (numba
intrinsics).

Importing this module imports numba; :mod:`search.infra` loads it only when one of its
names is asked for, so commands that never search start quickly.
"""

from __future__ import annotations

import signal

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1
"""Linux's id of the monotonic clock (``time.CLOCK_MONOTONIC``), the one ``perf_counter`` reads."""
SIGINT = int(signal.SIGINT)


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


@intrinsic
def monotonic_seconds(typingctx):
    """The monotonic clock in seconds, read by libc's ``clock_gettime(CLOCK_MONOTONIC)``: on
    Linux the clock ``time.perf_counter()`` reads, without a trip through the interpreter
    (numba's object mode costs about 50 ms the first time in a process)."""

    def codegen(context, builder, signature, args):
        i32, i64, double = ir.IntType(32), ir.IntType(64), ir.DoubleType()
        timespec = cgutils.alloca_once(builder, ir.ArrayType(i64, 2))  # tv_sec, tv_nsec
        fnty = ir.FunctionType(i32, [i32, cgutils.voidptr_t])
        clock_gettime = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        monotonic = ir.Constant(i32, CLOCK_MONOTONIC)
        builder.call(clock_gettime, [monotonic, builder.bitcast(timespec, cgutils.voidptr_t)])
        zero = ir.Constant(i32, 0)
        seconds = builder.load(builder.gep(timespec, [zero, zero]))
        nanoseconds = builder.load(builder.gep(timespec, [zero, ir.Constant(i32, 1)]))
        fraction = builder.fmul(builder.sitofp(nanoseconds, double), ir.Constant(double, 1e-9))
        return builder.fadd(builder.sitofp(seconds, double), fraction)

    return types.float64(), codegen


@intrinsic
def sigint_in_pipe(typingctx, fd):
    """Whether the bytes waiting in the non-blocking pipe ``fd`` (signal numbers, written by
    the C signal handler: :func:`search.infra.budget.guard_interrupts`) include SIGINT; it
    reads them all with libc's ``read``, a byte at a time, as ``interrupt_pending`` does in
    Python. False for ``fd`` < 0."""
    if not isinstance(fd, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i1, i8, i32, i64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
        byte = cgutils.alloca_once(builder, i8)
        found = cgutils.alloca_once_value(builder, ir.Constant(i1, 0))
        fnty = ir.FunctionType(i64, [i32, cgutils.voidptr_t, i64])
        read = cgutils.get_or_insert_function(builder.module, fnty, "read")
        drain = builder.append_basic_block("drain")
        drained = builder.append_basic_block("drained")
        open_pipe = builder.icmp_signed(">=", args[0], ir.Constant(args[0].type, 0))
        builder.cbranch(open_pipe, drain, drained)
        builder.position_at_end(drain)
        descriptor = builder.trunc(args[0], i32)
        buffer = builder.bitcast(byte, cgutils.voidptr_t)
        count = builder.call(read, [descriptor, buffer, ir.Constant(i64, 1)])
        got = builder.icmp_signed("==", count, ir.Constant(i64, 1))
        sigint = builder.icmp_unsigned("==", builder.load(byte), ir.Constant(i8, SIGINT))
        builder.store(builder.or_(builder.load(found), builder.and_(got, sigint)), found)
        builder.cbranch(got, drain, drained)
        builder.position_at_end(drained)
        return builder.load(found)

    return types.boolean(fd), codegen
