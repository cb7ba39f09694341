"""The `arbiter` command: one module per subcommand, one error boundary.

Whatever goes wrong ends in one line on stderr naming the argument or the path, and an
exit code from `EXIT_CODE_TABLE`; no traceback reaches the user.
"""
from __future__ import annotations

import argparse
import importlib
import io
import os
import signal
import sys
import traceback

from ..errors import EXIT_CODE_TABLE, ExitCode, UsageError, show_path
from ..games import GameError
from ..records import arbiter_version

# Each module has `register(subparsers)`, which adds its parser and sets `func(args) -> int`.
SUBCOMMANDS = ("play", "check", "match", "run", "report", "export", "serve", "sprt", "keys")
# Subcommands whose bot commands may come before, between or after the options
# (`arbiter match GAME -p rows=3 CMD_A CMD_B`): argparse's intermixed parsing.
INTERMIXED = ("play", "check", "match", "sprt")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(prog="arbiter", description="Bot-versus-bot tournament arbiter.",
                                     epilog=EXIT_CODE_TABLE, formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"arbiter {arbiter_version()}")
    subparsers = parser.add_subparsers(dest="subcommand", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    for subparser in subparsers.choices.values():
        if subparser.epilog is None:
            subparser.epilog = EXIT_CODE_TABLE
            subparser.formatter_class = _HelpFormatter
    return parser


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The command line read by the subcommand's parser: intermixed for those that take bot
    commands beside options (a positional list is otherwise taken whole, or empty, at its
    first place)."""
    if argv and argv[0] in INTERMIXED:
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        args = subparsers.choices[argv[0]].parse_intermixed_args(argv[1:])
        args.subcommand = argv[0]
        return args
    return parser.parse_args(argv)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but the exit-code table keeps its lines."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text == EXIT_CODE_TABLE:
            return text
        return super()._fill_text(text, width, indent)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand; every error becomes one line on stderr and an exit code."""
    _prepare_standard_files()
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:  # --help, --version, or argparse's own usage message (exit 2)
        return _flushed(int(exc.code or 0) if not isinstance(exc.code, str) else ExitCode.USAGE)
    command = f"arbiter {args.subcommand}"  # not `command`: a subcommand may name its CMD that
    try:
        code = int(args.func(args) or 0)
    except (UsageError, GameError) as exc:
        code = _error(command, str(exc), ExitCode.USAGE)
    except KeyboardInterrupt:
        code = _error(command, "interrupted", ExitCode.INTERRUPTED)
    except BrokenPipeError:
        code = _error(command, "standard output was closed before all output was written (broken pipe); "
                               "files already written are complete", ExitCode.USAGE)
    except OSError as exc:
        code = _error(command, describe_os_error(exc), ExitCode.USAGE)
    except Exception as exc:  # an arbiter bug: still one line, with where it happened to report it
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{os.path.basename(frame.filename)}:{frame.lineno}"
        code = _error(command, f"internal error (a bug in arbiter {arbiter_version()}, please report it with "
                               f"the command): {type(exc).__name__}: {exc} at {where}", ExitCode.USAGE)
    return _flushed(code)


# The signals that stop the command as Ctrl-C does: SIGTERM (`kill`, `timeout`, a service
# manager's stop) and SIGHUP (its terminal closed; left ignored when it was started ignoring
# it, as under `nohup`).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def command() -> int:
    """The `arbiter` command itself (`python -m arbiter` too): `main` with Ctrl-C taken once.
    The first Ctrl-C (or SIGTERM, or SIGHUP) stops the command (KeyboardInterrupt, handled by
    each subcommand: games running are abandoned, nothing recorded is lost, exit 130); any
    further one while it stops, and while the interpreter exits (its exit handlers run), is
    ignored, so that pressing it again never shows a traceback and never cuts the stop
    short. The stop is bounded: it ends every bot and worker it owns."""
    for signum in STOP_SIGNALS:
        if signum != signal.SIGHUP or signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _interrupt_once)
    code = main()
    _ignore_stop_signals()  # the exit handlers run after this returns
    return code


def _interrupt_once(signum: int, frame: object) -> None:
    """The first stop signal: from now on they are ignored; this one interrupts the command."""
    _ignore_stop_signals()
    raise KeyboardInterrupt


def _ignore_stop_signals() -> None:
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def describe_os_error(exc: OSError) -> str:
    """`cannot write /x/y: No space left on device`: the path and the system's reason."""
    reason = exc.strerror or str(exc)
    return reason if exc.filename is None else f"{show_path(exc.filename)}: {reason}"


def _error(command: str, message: str, code: int) -> int:
    """Print one line on stderr (if stderr can still be written) and return `code`."""
    try:
        print(f"{command}: error: {message}" if code != ExitCode.INTERRUPTED else f"{command}: {message}",
              file=sys.stderr, flush=True)
    except OSError:
        pass  # stderr is gone too: the exit code is all that is left to say it
    return code


def _flushed(code: int) -> int:
    """Flush stdout now, so a closed pipe is noticed here and not as a traceback at exit."""
    try:
        sys.stdout.flush()
    except OSError:
        # Nothing more can reach the reader; point stdout at /dev/null so Python's own flush
        # at exit has nothing to complain about.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        if code == ExitCode.DONE:
            code = _error("arbiter", "standard output was closed before all output was written (broken pipe)",
                          ExitCode.USAGE)
    return code


def _prepare_standard_files() -> None:
    """Give a closed stdin, stdout or stderr (`arbiter ... >&-`) /dev/null instead: output to
    them is dropped, and no file the arbiter opens later lands on descriptor 0, 1 or 2.
    A path that is not UTF-8 is printed with escapes instead of failing to print."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, mode, closefd=False))
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


if __name__ == "__main__":
    sys.exit(command())
