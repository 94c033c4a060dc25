"""`abi-opt`: the command line over the pipeline library (`abi_compiler.pipeline`), in the
shape of xDSL's `xdsl-opt` and MLIR's `mlir-opt` — argument parsing, files, exit status.

* Every failure is one line on stderr, `<file>:<line>:<col>: error: <message>` when it has
  an input position and `abi-opt: error: <message>` otherwise, with exit status 1, no
  traceback, and no output written (output is spooled and written only on success, in
  place, by `abi_compiler.commands.output`, which also handles closed or full standard
  streams and signals). Warnings are printed the same way; the output is still written.
* `--verify-diagnostics` matches the diagnostics against the input's annotations
  (`abi_compiler.commands.expectations`).
* `--split-input-file` runs each `// -----`-separated chunk on its own; the outputs of
  those that succeed are separated by `// -----` lines.
* An unexpected Python exception is `abi-opt: error: internal error: ...`; set
  `ABI_OPT_TRACEBACK=1` to see its traceback.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import gc
import io
import os
import re
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, NoReturn, TextIO

from abi_compiler.commands import output, status
from abi_compiler.commands.expectations import check_expectations
from abi_compiler.pipeline.run_diagnostics import Diagnostic, PipelineError, SourceFile
from abi_compiler.pipeline.source import read_source
from abi_compiler.text.lexer import is_blank

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

    from abi_compiler.pipeline.spec import PassInfo

PROG = "abi-opt"
TRACEBACK_ENV = "ABI_OPT_TRACEBACK"
SPLIT_MARKER = re.compile(r"^[ \t]*// -----[^\n]*(?:\n|\Z)", re.MULTILINE)
HELP_DOCS = (
    "Each pass is described in docs/passes/<pass>.md of abi-compiler's repository (what it\n"
    "reads and writes, its diagnostics, an example); the ABI formats in docs/formats.md."
)


class _ArgumentParser(status.ArgumentParser):
    #: Gives the epilog when help is printed (the pass table: loading it costs start-up
    #: time that a run, `--version` or an argument error need not pay).
    epilog_source: Callable[[], str] | None = None

    def format_help(self) -> str:
        if self.epilog_source is not None:
            self.epilog = self.epilog_source()
        return super().format_help()


class _VersionAction(argparse.Action):
    """`--version`: the versions, read from the installed packages only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        sys.stdout.write(_version_text() + "\n")
        parser.exit()


class AbiOptMain:
    """The `abi-opt` command. ``AbiOptMain.main(argv)`` runs it and returns the exit
    status; a subclass may add passes in `register_all_passes` (tests do)."""

    def __init__(self, args: Sequence[str] | None = None) -> None:
        self._passes: dict[str, PassInfo] | None = None
        parser = _ArgumentParser(
            prog=PROG,
            description="abi-compiler's opt driver",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.epilog_source = self._help_epilog
        self.register_all_arguments(parser)
        self.args = parser.parse_args(args=args)
        # The library (and with it xDSL) once the arguments are read.
        from abi_compiler.pipeline.run import Options, Pipeline

        options = Options(
            allow_unregistered_dialect=self.args.allow_unregistered_dialect,
            parse_all=self.args.parse_all,
            print_op_generic=self.args.print_op_generic,
            print_debuginfo=self.args.print_debuginfo,
            implicit_module=not self.args.no_implicit_module,
        )
        self.pipeline = Pipeline.parse(
            self.args.passes, options, known=self.passes, phase=collector_phase
        )

    @classmethod
    def main(cls, argv: Sequence[str] | None = None) -> int:
        """Run the command; every failure becomes a message on stderr and exit status 1
        (Ctrl-C: 130; `status.finish`)."""
        return status.finish(PROG, lambda: cls(args=argv).run(), internal=_failed)

    # -- registration ---------------------------------------------------------------------

    @property
    def passes(self) -> dict[str, PassInfo]:
        """The passes and named pipelines `-p` may name (registered on first use)."""
        if self._passes is None:
            self._passes = {}
            self.register_all_passes()
        return self._passes

    def register_all_passes(self) -> None:
        """The project's passes and named pipelines."""
        from abi_compiler.pipeline.spec import registry

        self.passes.update(registry())

    def register_pass(
        self, name: str, load: Callable[[], type[ModulePass]], summary: str = ""
    ) -> None:
        from abi_compiler.pipeline.spec import PassInfo

        self.passes[name] = PassInfo(load, summary)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        add = arg_parser.add_argument
        add("input_file", nargs="?", help="input file (default or '-': standard input)")
        add("-o", "--output-file", help="output file (default: stdout)")
        add(
            "-p",
            "--passes",
            default="",
            help="comma-separated passes and pipelines, options in braces: "
            "'a,b{opt=1 other=\"x y\"}'",
        )
        add(
            "--split-input-file",
            action="store_true",
            help="process each '// -----'-separated chunk of the input on its own",
        )
        add(
            "--verify-diagnostics",
            action="store_true",
            help="check diagnostics against '// expected-error {{...}}' annotations "
            "(mlir-opt semantics) instead of printing them",
        )
        add("--print-op-generic", action="store_true", help="print operations in generic form")
        add("--print-debuginfo", action="store_true", help="print operation locations")
        add(
            "--allow-unregistered-dialect",
            action="store_true",
            help="accept operations of dialects abi-opt does not know",
        )
        add("--version", action=_VersionAction, help="print the version")
        add(
            "--print-ir-after-all",
            "--mlir-print-ir-after-all",
            action="store_true",
            help="print the IR to stderr after each pass (mlir-opt's option)",
        )
        add(
            "--mlir-timing",
            action="store_true",
            help="print the time of parsing, of each pass and of printing to stderr",
        )
        add(
            "--parse-all",
            action="store_true",
            help="parse and verify every operation; by default only function signatures "
            "and the bodies a pass rewrites are parsed, the rest is carried as text",
        )
        add(
            "--no-implicit-module",
            action="store_true",
            help="require the input to be a single builtin.module",
        )

    def _help_epilog(self) -> str:
        rows = [("passes:", "")]
        rows += [
            (f"  {name}", info.summary)
            for name, info in self.passes.items()
            if info.members is None
        ]
        pipelines = [(name, info) for name, info in self.passes.items() if info.members is not None]
        if pipelines:
            rows.append(("\npipelines:", ""))
            rows += [
                (
                    f"  {name}",
                    info.summary
                    if info.members in info.summary
                    else f"{info.summary} (= {info.members})".lstrip(),
                )
                for name, info in pipelines
                if info.members is not None
            ]
        width = max(len(left) for left, _ in rows) + 2
        table = "\n".join(f"{left:<{width}}{right}" if right else left for left, right in rows)
        return f"{table}\n\n{HELP_DOCS}"

    # -- running ----------------------------------------------------------------------------

    def run(self) -> int:
        """Read, run every chunk, report, write; the exit status."""
        source = self._read_input()
        path = self._reserve_output()
        # Output is printed into an anonymous spool file, not a string (a large module's
        # text would be held in memory next to its IR), and copied out on success. The
        # text layer is write-only: on a readable file, Python's text layer resets its
        # decoder on every write (~0.5 us per `print` call).
        spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed in finally)
        sink = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(spool.fileno(), "w", closefd=False)),
            encoding="utf-8",
            newline="",
        )
        try:
            chunks = self._run_chunks(source, sink)
            if self.args.verify_diagnostics:
                problems = check_expectations(source, chunks)
            else:
                problems = [d for _, _, found in chunks for d in found]
            for diagnostic in problems:
                for line in diagnostic.lines(PROG):
                    _print_error(line)
            if self.args.mlir_timing:
                sys.stderr.write(self.pipeline.timer.report())
            if any(d.severity == "error" for d in problems):
                return 1
            sink.flush()
            spool.seek(0)
            if path is None:
                output.write_stdout(lambda stream: _copy_out(spool, stream))
            else:
                output.write_output_file(path, spool)
            return 0
        finally:
            sink.close()
            spool.close()

    def _run_chunks(
        self, source: SourceFile, sink: TextIO
    ) -> list[tuple[int, int, list[Diagnostic]]]:
        """Each chunk's (start, end, diagnostics); the output of those that succeed goes
        to ``sink``, separated by `// -----` lines."""
        dump = sys.stderr if self.args.print_ir_after_all else None
        done: list[tuple[int, int, list[Diagnostic]]] = []
        printed = False
        for start, end in self._split(source):
            mark = sink.tell()
            if printed:
                sink.write("// -----\n")
            found = self.pipeline.run(source, sink, start=start, end=end, dump=dump)
            if any(d.severity == "error" for d in found):
                sink.seek(mark)
                sink.truncate()
            else:
                printed = True
            done.append((start, end, found))
        return done

    def _split(self, source: SourceFile) -> list[tuple[int, int]]:
        if not self.args.split_input_file:
            return [(0, len(source.text))]
        chunks: list[tuple[int, int]] = []
        start = 0
        for marker in SPLIT_MARKER.finditer(source.text):
            chunks.append((start, marker.start()))
            start = marker.end()
        if not chunks or not is_blank(source.text, start):
            chunks.append((start, len(source.text)))
        # else: a file that ends with `// -----` (and blank lines) has no last chunk, as
        # in mlir-opt.
        return chunks

    def _read_input(self) -> SourceFile:
        path: str | None = self.args.input_file
        if path is None or path == "-":
            name, data = "<stdin>", output.read_stdin()
        else:
            name = path
            try:
                with open(path, "rb") as stream:
                    data = stream.read()
            except OSError as error:
                raise status.UsageError(
                    f"could not open input file '{path}': {error.strerror or error}"
                ) from None
        return read_source(data, name)

    def _reserve_output(self) -> str | None:
        """The `-o` path (None: standard output), checked before any work so that a bad
        output path or a closed stdout fails early; nothing is created yet (the output
        is written in place on success, `output.write_output_file`). An output that is the
        input file is refused (`output.check_not_input`)."""
        path: str | None = self.args.output_file
        if path is None or path == "-":
            output.check_stdout()
            return None
        output.check_output_file(path)
        if self.args.input_file not in (None, "-"):
            output.check_not_input(path, [self.args.input_file])
        return path


@contextlib.contextmanager
def collector_phase(name: Literal["work", "print"]) -> Iterator[None]:
    """`abi-opt`'s garbage-collector tuning, for a process that runs a pipeline and exits
    (a `Pipeline`'s ``phase``; the library leaves its host's collector alone).

    From parsing to the end of the passes ("work") the cyclic collector is paused: parsing
    and verifying free nothing, and passes free what they erase by reference counting
    (`decompose.discard`), so its collections would only visit the whole IR again and again
    (a sixth of a large module's time). The IR is then frozen, out of the collector's reach
    while printing (deferred wrappers are built and dropped there), and unfrozen once the
    chunk is printed, so that the next `--split-input-file` chunk can collect it."""
    if name == "work":
        enabled = gc.isenabled()
        gc.disable()
        try:
            yield
            gc.freeze()
        finally:
            if enabled:
                gc.enable()
    else:
        try:
            yield
        finally:
            gc.unfreeze()


def _version_text() -> str:
    from abi_compiler.versions import package_version

    return f"{PROG} {package_version()} (xDSL {package_version('xdsl')})"


def _copy_out(spool: BinaryIO, stream: TextIO) -> None:
    """Copy the UTF-8 spool to a text stream: its bytes to its binary layer when it has
    one (the standard output), decoded otherwise (an in-process caller's `StringIO`)."""
    stream.flush()
    binary = getattr(stream, "buffer", None)
    if binary is not None:
        shutil.copyfileobj(spool, binary)
        binary.flush()
    else:
        decoder = codecs.getincrementaldecoder("utf-8")()
        while block := spool.read(1 << 20):
            stream.write(decoder.decode(block))
        stream.write(decoder.decode(b"", final=True))
    stream.flush()


def _print_error(text: str) -> None:
    output.write_stderr(text)


def _failed(error: Exception) -> int:
    """The exit status of a run that raised ``error`` (not a usage error): its
    diagnostics, or the report of a defect of ours, on stderr."""
    if isinstance(error, PipelineError):
        for diagnostic in error.diagnostics:
            for line in diagnostic.lines(PROG):
                _print_error(line)
    elif isinstance(error, BrokenPipeError):
        # The reader went away (`abi-opt ... | head`): nothing left to say. Point stdout
        # at /dev/null so that the interpreter's final flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    else:
        if os.environ.get(TRACEBACK_ENV):
            traceback.print_exc()
        hint = "" if os.environ.get(TRACEBACK_ENV) else f" (set {TRACEBACK_ENV}=1 for a traceback)"
        _print_error(f"{PROG}: error: internal error: {type(error).__name__}: {error}{hint}")
    return status.FAILED


def main(argv: Sequence[str] | None = None) -> int:
    return AbiOptMain.main(argv)


if __name__ == "__main__":
    status.run_console(main)
