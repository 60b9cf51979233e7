"""The standard streams in whatever state a command is given them: closed (``>&-``), full
(``>/dev/full``), a broken pipe, or an input that never ends its line (``</dev/zero``).

A stream the command was started without gets a stand-in, so printing never fails on a
missing stream: output to a closed stdout is dropped and remembered (the command then exits
1, since its answer went nowhere), output to a closed stderr is dropped (a success stays a
success), a closed stdin reads as end of input. The file descriptors 0, 1 and 2 are filled
with the null device too, so no file the command opens later takes one of their numbers.
"""

from __future__ import annotations

import io
import os
import sys

MAX_LINE = 4096
"""The most characters one line of piped input may hold: no answer the coach asks for is
longer, and a terminal's line editor holds no more."""


class ClosedOutput(io.TextIOBase):
    """Stands in for an output stream the process was started without: takes every write,
    keeps nothing, and remembers whether anything was written."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.written = False

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            self.written = True
        return len(text)


class OutputPipeClosed(Exception):
    """The reader of standard output went away (``| head -1``): the command ends with exit
    141, as if killed by SIGPIPE. Not an ``OSError``: click would turn that into exit 1."""


class UnreadableInputError(ValueError):
    """Piped input that cannot be an answer: a line over :data:`MAX_LINE` characters, or
    bytes that are not UTF-8 text."""


_STREAMS = ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY))


def guard_standard_streams() -> None:
    """Give every closed standard stream a stand-in (see the module's docstring); the
    streams that are open are left as they are."""
    for fd, name, mode in _STREAMS:
        try:
            os.fstat(fd)
        except OSError:  # closed: fill the number so no file opened later lands on it
            try:
                null = os.open(os.devnull, mode)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass
        if getattr(sys, name) is None:
            if fd == 0:
                setattr(sys, name, io.StringIO())  # end of input at once
            else:
                setattr(sys, name, ClosedOutput(f"<{name} closed>"))


def printable(text: str) -> str:
    """``text`` with every control character (an escape, a NUL, a carriage return...) shown
    as its ``\\x..`` code, so a message quoting a path cannot drive the terminal."""
    return "".join(char if char.isprintable() or char == " " else repr(char)[1:-1] for char in text)


def stdout_was_closed() -> bool:
    """Whether the command wrote output to a standard output it was started without."""
    return isinstance(sys.stdout, ClosedOutput) and sys.stdout.written


def read_answer(prompt: str, console) -> str:
    """One line typed after ``prompt`` (shown on ``console``), without its end of line.

    A terminal reads through ``console.input`` (line editing, history). Piped input is read
    at most :data:`MAX_LINE` characters at a time: a longer line is
    :class:`UnreadableInputError`, never read to its end. End of input is ``EOFError``.
    """
    stdin = sys.stdin
    if stdin is None:
        raise EOFError
    try:
        interactive = stdin.isatty()
    except (OSError, ValueError):
        interactive = False
    if interactive:
        return console.input(prompt)
    console.print(prompt, end="")
    try:
        console.file.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        line = stdin.readline(MAX_LINE + 1)
    except UnicodeDecodeError as error:
        raise UnreadableInputError(
            f"standard input is not UTF-8 text (byte {error.start})"
        ) from None
    except (OSError, ValueError):  # stdin closed under us
        raise EOFError from None
    if not line:
        raise EOFError
    if len(line) > MAX_LINE and not line.endswith("\n"):
        raise UnreadableInputError(
            f"standard input: a line longer than {MAX_LINE:,} characters, not an answer"
        )
    return line.rstrip("\r\n")
