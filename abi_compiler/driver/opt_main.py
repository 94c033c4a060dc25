"""`abi-opt`: xDSL's opt driver with abi-compiler's dialects and passes, and MLIR-style
diagnostics (SPEC §11).

* Every failure is one line on stderr, `<file>:<line>:<col>: error: <message>` when it has
  an input position and `abi-opt: error: <message>` otherwise, with exit status 1, no
  traceback, and no output written (output is buffered and written only on success, in
  place, by `abi_compiler.driver.output`, which also handles closed or full standard
  streams and signals).
* Warnings (`abi_compiler.ir.diagnostics.warn`) are printed the same way; the output is still
  written and the exit status is 0.
* `--verify-diagnostics` has mlir-opt's meaning: `// expected-error {{text}}` annotations
  (also `expected-warning`, `expected-note`, `expected-remark`; `@+N`, `@-N`, `@above`,
  `@below`, `@unknown`) must match the diagnostics produced, chunk by chunk.
* Empty input (zero bytes, or only whitespace and comments) is an error without position:
  `abi-opt: error: input '<file>' is empty`; an empty `--split-input-file` chunk is a
  located error at its first line.
* An unexpected Python exception is `abi-opt: error: internal error: ...`; set
  `ABI_OPT_TRACEBACK=1` to see its traceback.

Dialects and passes are imported only when the input or the pipeline needs them, so
start-up costs what `xdsl-opt`'s does.

Pass API: a pass raises `abi_compiler.errors.AbiError(message, op=<operation>,
where=("argument" | "result", i))` for an error, calls
`abi_compiler.ir.diagnostics.warn(message, op, where)` for a warning, and may call
`abi_compiler.ir.location_table.inherit_location(new_op, old_op)` so that
diagnostics about an operation it created point at the source of the one it replaces.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import dataclasses
import gc
import importlib
import io
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Hashable, Iterator, Sequence, Set
from dataclasses import dataclass, field
from typing import (
    Any,
    BinaryIO,
    Literal,
    NoReturn,
    TextIO,
    TypeAlias,
    get_args,
    get_origin,
    get_type_hints,
)

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Dialect, Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from abi_compiler.dialects import verify_dialect_attributes
from abi_compiler.driver import output
from abi_compiler.errors import AbiError
from abi_compiler.ir import changes, diagnostics, xdsl_compat
from abi_compiler.ir.location_table import LocationTable, tracking
from abi_compiler.passes.contract import BodyAccess, OpsBefore, contract_of
from abi_compiler.passes.wrapper_text import AttributeTexts, print_function
from abi_compiler.pipeline import carried_ir
from abi_compiler.pipeline.headers import HeaderReader
from abi_compiler.pipeline.locations import LocatingParser, SourceFile, is_isolated
from abi_compiler.pipeline.symbol_cache import cached_symbol_lookups
from abi_compiler.text import carry
from abi_compiler.text.carry import ScanError, scan, symbol_text

PROG = "abi-opt"
TRACEBACK_ENV = "ABI_OPT_TRACEBACK"
SPLIT_MARKER = re.compile(r"^[ \t]*// -----[^\n]*(?:\n|\Z)", re.MULTILINE)
# A comment runs to the end of its line: `//[^\n]*` alone could end anywhere and let the
# next `//` start inside it, which made a line of many slashes backtrack exponentially.
# Whitespace is matched in runs (`\s*`), not one character per repetition of a group,
# which costs a regex frame per character.
BLANK = re.compile(r"\s*(?://[^\n]*(?:\n|\Z)\s*)*")

#: Dialects `abi-opt` knows: name -> (module, attribute holding the `Dialect`).
DIALECTS: dict[str, tuple[str, str]] = {
    "builtin": ("xdsl.dialects.builtin", "Builtin"),
    "func": ("xdsl.dialects.func", "Func"),
    "arith": ("xdsl.dialects.arith", "Arith"),
    "tensor": ("xdsl.dialects.tensor", "Tensor"),
    "util": ("abi_compiler.dialects.util", "Util"),
    "iree": ("abi_compiler.dialects.iree", "Iree"),
    "abi": ("abi_compiler.dialects.abi", "Abi"),
    "hal": ("abi_compiler.dialects.hal", "Hal"),
    "tf_saved_model": ("abi_compiler.dialects.tf_saved_model", "TfSavedModel"),
    "torch": ("abi_compiler.dialects.torch", "Torch"),
}


def _dialect_loader(module: str, attribute: str) -> Callable[[], Dialect]:
    return lambda: getattr(importlib.import_module(module), attribute)


def register_dialects(ctx: Context) -> None:
    """Register (without importing) every dialect `abi-opt` understands."""
    for name, (module, attribute) in DIALECTS.items():
        ctx.register_dialect(name, _dialect_loader(module, attribute))


class UsageError(Exception):
    """A problem found outside the IR: printed as `abi-opt: error: <message>`, or as
    `<position>: error: <message>` when ``position`` (`file:line:col`) is given."""

    def __init__(self, message: str, position: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


@dataclass
class Diagnostic:
    """One message of a run; ``offset`` is a position in the input file, if it has one."""

    severity: str
    message: str
    offset: int | None
    notes: list[Diagnostic] = field(default_factory=list["Diagnostic"])


class _Failure(Exception):
    """Stops processing a chunk; the diagnostic says why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass
class _Chunk:
    start: int
    end: int
    diagnostics: list[Diagnostic] = field(default_factory=list[Diagnostic])


@dataclass
class _Expectation:
    severity: str
    text: str
    line: int | None
    offset: int
    matched: bool = False


_EXPECTATION = re.compile(
    r"expected-(error|warning|note|remark)[ \t]*"
    r"(?:@([+-][0-9]+|above|below|unknown))?[ \t]*\{\{(.*?)\}\}"
)


HELP_DOCS = (
    "Each pass is described in docs/passes/<pass>.md of abi-compiler's repository (what it\n"
    "reads and writes, its diagnostics, an example); the ABI formats in docs/formats.md."
)


class AbiOptMain(xDSLOptMain):
    """The `abi-opt` driver. ``AbiOptMain.main(argv)`` runs it and returns the exit status;
    subclasses may override `register_all_dialects` / `register_all_passes` (tests do)."""

    pipeline_entries: dict[str, tuple[str, str]]
    pass_summaries: dict[str, str]
    exit_status: int

    def __init__(
        self, description: str = "abi-compiler's opt driver", args: Sequence[str] | None = None
    ) -> None:
        # Replaces xDSLOptMain.__init__: no frontends/targets plug-in scan (start-up time),
        # argument errors are `abi-opt: error:` with exit 1, the pipeline may name pipelines.
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.pass_summaries = {}
        self.pipeline_entries = {}
        self.exit_status = 0
        self._carried: carried_ir.Carried | None = None
        self._timings: dict[str, float] = {}
        self._clock = time.perf_counter()
        xdsl_compat.install()  # UTF-8 string literals are strings; deep nesting parses
        self._table = LocationTable()
        self.ctx = Context()
        self.register_all_dialects()
        self.register_all_passes()
        parser = _ArgumentParser(
            prog=PROG,
            description=description,
            epilog=self._help_epilog(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.register_all_arguments(parser)
        self.args = parser.parse_args(args=args)
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        self.setup_pipeline()

    @classmethod
    def main(cls, argv: Sequence[str] | None = None) -> int:
        """Run the driver; every failure becomes a message on stderr and exit status 1."""
        try:
            tool = cls(args=argv)
            tool.run()
            return tool.exit_status
        except UsageError as error:
            _print_error(f"{error.position or PROG}: error: {error.message}")
        except output.StreamError as error:
            _print_error(f"{PROG}: error: {error.message}")
        except BrokenPipeError:
            # The reader went away (`abi-opt ... | head`): nothing left to say. Point stdout
            # at /dev/null so that the interpreter's final flush does not fail again.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except KeyboardInterrupt:
            return 130
        except Exception as error:
            if os.environ.get(TRACEBACK_ENV):
                traceback.print_exc()
            _print_error(
                f"{PROG}: error: internal error: {type(error).__name__}: {error}"
                + (
                    ""
                    if os.environ.get(TRACEBACK_ENV)
                    else f" (set {TRACEBACK_ENV}=1 for a traceback)"
                )
            )
        return 1

    # -- registration ---------------------------------------------------------------------

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_passes(self) -> None:
        from abi_compiler.passes import registry

        for name, entry in registry.PASSES.items():
            self.register_pass(name, entry.load, entry.summary)
        for name, pipeline in registry.PIPELINES.items():

            def load(name: str = name) -> type[ModulePass]:
                return registry.pipeline_pass(name)

            self.register_pass(name, load, pipeline.summary)
            self.pipeline_entries[name] = (pipeline.spec, pipeline.summary)

    def register_pass(
        self, pass_name: str, pass_factory: Callable[[], type[ModulePass]], summary: str = ""
    ) -> None:
        super().register_pass(pass_name, pass_factory)
        self.pass_summaries[pass_name] = summary

    def register_all_targets(self) -> None:
        """Output is always MLIR text."""

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "input_file", nargs="?", help="input file (default or '-': standard input)"
        )
        arg_parser.add_argument("-o", "--output-file", help="output file (default: stdout)")
        arg_parser.add_argument(
            "-p",
            "--passes",
            default="",
            help="comma-separated passes and pipelines, options in braces: "
            "'a,b{opt=1 other=\"x y\"}'",
        )
        arg_parser.add_argument(
            "--split-input-file",
            action="store_true",
            help="process each '// -----'-separated chunk of the input on its own",
        )
        arg_parser.add_argument(
            "--verify-diagnostics",
            action="store_true",
            help="check diagnostics against '// expected-error {{...}}' annotations "
            "(mlir-opt semantics) instead of printing them",
        )
        arg_parser.add_argument(
            "--print-op-generic", action="store_true", help="print operations in generic form"
        )
        arg_parser.add_argument(
            "--print-debuginfo", action="store_true", help="print operation locations"
        )
        arg_parser.add_argument(
            "--allow-unregistered-dialect",
            action="store_true",
            help="accept operations of dialects abi-opt does not know",
        )
        arg_parser.add_argument(
            "--version", action="version", version=_version_text(), help="print the version"
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR to stderr after each pass (mlir-opt's option)",
        )
        arg_parser.add_argument(
            "--mlir-timing",
            action="store_true",
            help="print the time of parsing, of each pass and of printing to stderr",
        )
        arg_parser.add_argument(
            "--parse-all",
            action="store_true",
            help="parse and verify every operation; by default only function signatures "
            "and the bodies a pass rewrites are parsed, the rest is carried as text",
        )
        arg_parser.add_argument(
            "--no-implicit-module",
            action="store_true",
            help="require the input to be a single builtin.module",
        )

    def _help_epilog(self) -> str:
        rows = [("passes:", "")]
        rows += [
            (f"  {name}", summary)
            for name, summary in self.pass_summaries.items()
            if name not in self.pipeline_entries
        ]
        if self.pipeline_entries:
            rows.append(("\npipelines:", ""))
            rows += [
                (f"  {name}", summary if spec in summary else f"{summary} (= {spec})".lstrip())
                for name, (spec, summary) in self.pipeline_entries.items()
            ]
        width = max(len(left) for left, _ in rows) + 2
        table = "\n".join(f"{left:<{width}}{right}" if right else left for left, right in rows)
        return f"{table}\n\n{HELP_DOCS}"

    # -- pipeline ---------------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        specs: list[ArgSpec] = []
        for spec in _parse_pipeline_text(self.args.passes):
            # A named pipeline runs as its member passes, verified in between.
            if spec.name in self.pipeline_entries and not spec.parameters:
                specs += _parse_pipeline_text(self.pipeline_entries[spec.name][0])
            elif spec.name in self.pipeline_entries and spec.name not in self.available_passes:
                raise UsageError(f"pipeline '{spec.name}' takes no options")
            else:
                specs.append(spec)
        for spec in specs:
            if spec.name not in self.available_passes:
                raise UsageError(f"unknown pass or pipeline '{spec.name}' (see '{PROG} --help')")
        passes = tuple(_build_pass(self.available_passes[s.name](), s) for s in specs)
        self.pipeline = PassPipeline(passes, self._after_pass)
        self.body_access = _body_access(passes)
        # Text is carried only where it is printed back as written: not in generic form,
        # not with locations.
        self.carry = not (
            self.args.parse_all or self.args.print_op_generic or self.args.print_debuginfo
        )

    def _after_pass(
        self, previous: ModulePass | None, module: ModuleOp, next_pass: ModulePass | None
    ) -> None:
        recorded = changes.stop()
        if previous is not None:
            self._time(previous.name)
        # A pass that declares `preserves_validity` (it only adds reflection entries to
        # functions, which no verifier reads) cannot break the IR: skip re-verifying. One
        # that declares `reports_changes` has only the functions it reports re-verified.
        contract = contract_of(previous) if previous is not None else None
        if contract is not None and not contract.preserves_validity:
            if contract.reports_changes and recorded is not None and not recorded.everything:
                self._verify_changed(module, list(recorded.operations))
            else:
                self._verify(module)
        if previous is not None and self.args.print_ir_after_all:
            sys.stderr.write(f"// -----// IR Dump After {previous.name} //----- //\n")
            self._print(module, sys.stderr)
            self._time(None)  # printing the dump is not the next pass's time
        if next_pass is not None:
            changes.start()

    def _time(self, phase: str | None) -> None:
        """Charge the time since the last call to ``phase`` (`--mlir-timing`)."""
        now = time.perf_counter()
        if phase is not None:
            self._timings[phase] = self._timings.get(phase, 0.0) + now - self._clock
        self._clock = now

    def _timing_report(self) -> str:
        total = sum(self._timings.values()) or 1e-9
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            " " * 25 + "... Execution time report ...",
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for phase, seconds in [*self._timings.items(), ("Total", total)]:
            lines.append(f"  {seconds:8.4f} ({100 * seconds / total:5.1f}%)  {phase}")
        return "\n".join(lines) + "\n"

    # -- running ----------------------------------------------------------------------------

    def run(self) -> None:
        self._timings = {}
        self._clock = time.perf_counter()
        self.exit_status = self._run()
        if self.args.mlir_timing:
            sys.stderr.write(self._timing_report())

    def _run(self) -> int:
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
            chunks = self._process(source, sink)
            failed = (
                self._check_expectations(source, chunks)
                if self.args.verify_diagnostics
                else self._report(source, chunks)
            )
            if failed:
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
                raise UsageError(
                    f"could not open input file '{path}': {error.strerror or error}"
                ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            prefix = data[: error.start].decode("utf-8")
            raise UsageError(
                f"input is not valid UTF-8 (byte 0x{data[error.start]:02x})",
                SourceFile(name, prefix).position(len(prefix)),
            ) from None
        # A UTF-8 byte order mark (some editors write one) is not part of the text:
        # positions are counted after it, as the editor shows them.
        text = text.removeprefix("\ufeff")
        if BLANK.fullmatch(text):
            raise UsageError(f"input '{name}' is empty")
        return SourceFile(name, text)

    def _reserve_output(self) -> str | None:
        """The `-o` path (None: standard output), checked before any work so that a bad
        output path or a closed stdout fails early; nothing is created yet (the output
        is written in place on success, `output.write_output_file`)."""
        path: str | None = self.args.output_file
        if path is None or path == "-":
            self.args.output_file = None
            output.check_stdout()
            return None
        output.check_output_file(path)
        return path

    def _split(self, source: SourceFile) -> list[_Chunk]:
        if not self.args.split_input_file:
            return [_Chunk(0, len(source.text))]
        chunks: list[_Chunk] = []
        start = 0
        for marker in SPLIT_MARKER.finditer(source.text):
            chunks.append(_Chunk(start, marker.start()))
            start = marker.end()
        if not chunks or not BLANK.fullmatch(source.text, start):
            chunks.append(_Chunk(start, len(source.text)))
        # else: a file that ends with `// -----` (and blank lines) has no last chunk, as
        # in mlir-opt.
        return chunks

    def _process(self, source: SourceFile, sink: TextIO) -> list[_Chunk]:
        """Process every chunk; the output of those that succeed goes to ``sink``,
        separated by `// -----` lines."""
        chunks = self._split(source)
        printed = False
        for chunk in chunks:
            table = LocationTable()
            mark = sink.tell()
            try:
                module, wrapper_before = self._process_chunk(source, chunk, table)
                if printed:
                    sink.write("// -----\n")
                self._time(None)
                self._print(module, sink, wrapper_before)
                self._time("Output")
                printed = True
            except _Failure as failure:
                # A wrapper printed with the module (`_print`) may fail after part of
                # the chunk's output is written: take it back.
                sink.seek(mark)
                sink.truncate()
                chunk.diagnostics.append(failure.diagnostic)
            finally:
                # Frozen by _process_chunk: the chunk's IR becomes collectable again
                # once printed.
                gc.unfreeze()
        return chunks

    def _process_chunk(
        self, source: SourceFile, chunk: _Chunk, table: LocationTable
    ) -> tuple[ModuleOp, _WrapperBefore | None]:
        """Parse, verify and run the pipeline. Its last pass runs through its contract's
        `prepare` (`abi_compiler.passes.contract`): when it defers ops to the printer
        (`wrap-entry-points`' wrappers), the function that builds them is returned for
        `_print`."""
        text = source.text[chunk.start : chunk.end]
        if BLANK.fullmatch(text):
            raise _Failure(Diagnostic("error", "empty input chunk", chunk.start))
        # The cyclic garbage collector stays paused from parsing to the end of the passes:
        # parsing and verifying free nothing, and passes free what they erase by
        # reference counting (`decompose.discard`), so its collections would only visit
        # the whole IR again and again (a sixth of a large module's time). The IR is then
        # frozen, out of its reach while printing; `_process` unfreezes it.
        with _gc_paused():
            self._time(None)
            module = self._parse_chunk(source, chunk, text, table)
            self._time("Parser")
            self._table = table
            self._verify(module)
            self._time("Verifier")
            wrapper_before: _WrapperBefore | None = None
            with diagnostics.collect() as sink, tracking(table):
                try:
                    *head, last = self.pipeline.passes or (None,)
                    if last is None or self.args.print_ir_after_all:
                        # The dump after the last pass shows everything it adds.
                        self.pipeline.apply(self.ctx, module)
                    else:
                        # What `self.pipeline.apply` does, the last pass through its
                        # contract's `prepare`.
                        PassPipeline(tuple(head), self._after_pass).apply(self.ctx, module)
                        changes.start()
                        wrapper_before = contract_of(last).prepare(self.ctx, module)
                        self._after_pass(last, module, None)
                except AbiError as error:
                    raise self._located(error, module) from None
                except DiagnosticException as error:
                    raise _Failure(
                        Diagnostic("error", str(error), table.offset_of(module))
                    ) from None
                finally:
                    changes.stop()  # a pass that failed leaves its recording
                    for warning in sink.warnings:
                        offset = table.locate(warning.op, warning.where)
                        chunk.diagnostics.append(
                            Diagnostic(
                                "warning",
                                warning.message,
                                table.offset_of(module) if offset is None else offset,
                            )
                        )
            gc.freeze()
        return module, wrapper_before

    def _located(self, error: AbiError, module: ModuleOp) -> _Failure:
        offset = self._table.locate(error.op, error.where)
        return _Failure(
            Diagnostic(
                "error", error.message, self._table.offset_of(module) if offset is None else offset
            )
        )

    def _parse_chunk(
        self, source: SourceFile, chunk: _Chunk, text: str, table: LocationTable
    ) -> ModuleOp:
        """Parse a chunk: with carried text (`carried_ir`), only the signatures and the
        bodies the pipeline rewrites; everything when `--parse-all` is given or when the
        chunk has a shape the scanner does not know."""
        self._carried = None
        if self.carry:
            try:
                layout = scan(text)
            except ScanError:
                layout = None
            if layout is not None:
                module = self._parse_carrying(source, chunk, layout, table)
                if module is not None:
                    return module
                self._carried = None
        return self._parse(source, chunk, text, table)

    def _parse_carrying(
        self,
        source: SourceFile,
        chunk: _Chunk,
        layout: carried_ir.Layout,
        table: LocationTable,
    ) -> ModuleOp | None:
        masked, parsed = carried_ir.plan(layout, self.body_access)
        carried = carried_ir.Carried(layout, parsed)
        self._carried = carried
        # Carried text may use any dialect; headers and parsed bodies may name types and
        # attributes of dialects abi-opt does not know (kept as written).
        allow_unregistered = self.ctx.allow_unregistered
        self.ctx.allow_unregistered = True
        try:
            reader = HeaderReader(self.ctx, carried_ir.alias_names(layout))
            masked = carried_ir.read_headers(carried, masked, reader, table, chunk.start)
            try:
                module = self._parse(source, chunk, masked, table, carried)
            except _Failure as failure:
                # Module attributes xDSL cannot read (`#hal.device.target<…> : !hal.device`):
                # the module header is then printed as written.
                attributes = layout.module.attributes if layout.module is not None else None
                offset = failure.diagnostic.offset
                if (
                    attributes is None
                    or offset is None
                    or not attributes[0] <= offset - chunk.start < attributes[1]
                ):
                    raise
                masked = carry.mask(masked, [attributes])
                carried.module_header_kept = True
                module = self._parse(source, chunk, masked, table, carried)
        finally:
            self.ctx.allow_unregistered = allow_unregistered
        try:
            carried_ir.attach(module, carried)
        except ScanError:
            return None
        if layout.module is None and layout.ops:
            # An implicit module is located at its first operation, which xDSL may not
            # have seen (carried, or a header built without it).
            table.record(module, chunk.start + layout.ops[0].start)
        return module

    def _parse(
        self,
        source: SourceFile,
        chunk: _Chunk,
        text: str,
        table: LocationTable,
        carried: carried_ir.Carried | None = None,
    ) -> ModuleOp:
        parser: LocatingParser | None = None
        try:
            parser = LocatingParser(self.ctx, text, source.name, table=table, base=chunk.start)
            if carried is not None:
                parser.explain = carried.reason_at
            return parser.parse_located_module(
                not self.args.no_implicit_module,
                ops_carried=carried is not None and bool(carried.layout.ops),
            )
        except ParseError as error:
            notes: list[Diagnostic] = []
            if isinstance(error, MultipleSpansParseError):
                notes = [
                    Diagnostic("note", message or error.ref_text or "", chunk.start + span.start)
                    for span, message in error.refs
                ]
            raise _Failure(
                Diagnostic("error", error.msg, chunk.start + error.span.start, notes)
            ) from None
        except RecursionError:
            # Past xdsl_compat.RECURSION_LIMIT: at the token where parsing gave up.
            position = chunk.start + (parser.pos if parser is not None else 0)
            raise _Failure(Diagnostic("error", "input nested too deeply", position)) from None
        except MemoryError as error:
            # E.g. `dense<0> : tensor<4294967296xi8>`: xDSL stores every element of a
            # splat. At the operation being parsed.
            offset = getattr(error, "abi_op_offset", None)
            if offset is None:
                offset = chunk.start + (parser.pos if parser is not None else 0)
            raise _Failure(Diagnostic("error", "out of memory while parsing", offset)) from None
        except (DiagnosticException, ValueError) as error:
            # Attribute and type verifiers run while parsing and carry no span.
            offset = getattr(error, "abi_op_offset", None)
            if offset is None:
                offset = chunk.start + (parser.pos if parser is not None else 0)
            raise _Failure(Diagnostic("error", str(error), offset)) from None

    def _verify(self, module: ModuleOp) -> None:
        """Verify op by op (linear), so that the failing operation is known; then the
        dialects' discardable attributes (`abi.*`, `tf_saved_model.*`), which xDSL's
        verifier does not see."""
        # A header `headers.HeaderReader` built is valid by construction: the types and
        # attributes xDSL parsed, put together as xDSL's `func.func` parser does, with an
        # empty entry block of the argument types.
        built = set(self._carried.headers.values()) if self._carried is not None else set()
        with cached_symbol_lookups():
            self._verify_ops(module, built)
        self._verify_attributes(module)

    def _verify_changed(self, module: ModuleOp, operations: list[Operation]) -> None:
        """`_verify` of the module op itself (its symbol table) and of the top-level
        operations a pass reports it changed (`abi_compiler.ir.changes`)."""
        kept = [op for op in operations if op.parent is module.body.block]
        with cached_symbol_lookups():
            try:
                module.verify(verify_nested_ops=False)
            except (DiagnosticException, ValueError) as error:
                raise _Failure(
                    Diagnostic("error", str(error), self._table.locate(module))
                ) from None
            for op in kept:
                self._verify_ops(op)
        for op in kept:
            self._verify_attributes(op)

    def _verify_ops(self, root: Operation, built: Set[Operation] = frozenset()) -> None:
        carried = self._carried.functions if self._carried is not None else {}
        for op in root.walk():
            try:
                if op not in built:
                    op.verify(verify_nested_ops=False)
                if op not in carried:  # a carried body is text: not verified
                    _verify_blocks(op)
            except (DiagnosticException, ValueError) as error:
                raise _Failure(Diagnostic("error", str(error), self._table.locate(op))) from None

    def _verify_attributes(self, root: Operation) -> None:
        try:
            verify_dialect_attributes(root)
        except DiagnosticException as error:
            # AttributeVerifyException carries the op and ("argument" | "result", i).
            offset = self._table.locate(getattr(error, "op", None), getattr(error, "where", None))
            raise _Failure(
                Diagnostic(
                    "error", str(error), self._table.locate(root) if offset is None else offset
                )
            ) from None

    def _print(
        self, module: ModuleOp, stream: TextIO, wrapper_before: _WrapperBefore | None = None
    ) -> None:

        driver = self
        carried = self._carried
        if carried is not None:
            carried_ir.write_items(stream, carried.layout, carried.layout.prologue)

        class ModulePrinter(carried_ir.CarriedPrinter):
            """Prints each deferred wrapper right before the top-level op it belongs
            to, as if it were in the module, after verifying it in place; then drops it.
            Names of a printed isolated top-level op are forgotten (nothing outside it
            can refer to its values), so the printer holds one function's at a time."""

            def print_op(self, op: Operation) -> None:
                if op is module and carried is not None and carried.module_header_kept:
                    layout = carried.layout
                    assert layout.module is not None
                    self.print_string(
                        layout.text[layout.module.start : layout.module.body_start].rstrip()
                    )
                    self.print_string(" ")
                    self.print_region(module.body)
                    return None
                if op.parent is not module.body.block:
                    return super().print_op(op)
                if wrapper_before is not None:
                    self._print_wrapper(op, wrapper_before)
                # (A function printed from carried text named no value.)
                if not self.print_carried(op):
                    # (issue 25) A parsed function: its header as text, its body by xDSL.
                    if not (isinstance(op, FuncOp) and print_function(self, op, texts)):
                        super().print_op(op)
                    self._forget(op)

            def _print_wrapper(self, op: Operation, wrapper_before: _WrapperBefore) -> None:
                """The deferred wrapper of ``op``, if it has one. The first wrapper of
                each shape is built, verified and printed; the others of that shape are
                its text with their own names (one build per distinct signature)."""
                shape = wrapper_before.shape(op)
                if shape is not None and (template := templates.get(shape[0])) is not None:
                    head, call = template
                    self.print_string(
                        f"func.func {symbol_text(shape[1])}({head}func.call "
                        f"{symbol_text(shape[2])}({call}",
                        indent=0,
                    )
                    self.print_new_line()
                    return
                # (issue 25) Written as text by the pass when it can (`OpsBefore.text`):
                # valid by construction, so not verified; otherwise built and verified.
                text = driver._wrapper_text(module, op, wrapper_before, self, as_text)
                if text is None:
                    wrapper = driver._wrapper(module, op, wrapper_before)
                    if wrapper is None:
                        return
                    stream, capture = self.stream, io.StringIO()
                    self.stream = capture
                    try:
                        super().print_op(wrapper)
                    finally:
                        self.stream = stream
                    text = capture.getvalue()
                    self._forget(wrapper)
                    wrapper.detach()
                self.print_string(text, indent=0)
                self.print_new_line()
                if shape is not None:
                    parts = _template(text, shape[1], shape[2])
                    if parts is not None:
                        templates[shape[0]] = parts

            def _forget(self, op: Operation) -> None:
                if is_isolated(type(op)):
                    self.forget_names(op)

        templates: dict[Hashable, tuple[str, str]] = {}
        # Wrapper texts number their values from 0, as in a fresh scope: not when a
        # top-level op has results (the printer numbers those in the module's scope).
        as_text = not any(op.results for op in module.body.block.ops)
        printer = ModulePrinter(
            stream=stream,
            print_generic_format=self.args.print_op_generic,
            print_debuginfo=self.args.print_debuginfo,
        )
        printer.carried = carried
        texts = AttributeTexts(printer)
        with cached_symbol_lookups():
            printer.print_op(module)
        if carried is not None and carried.layout.module is not None:
            layout = carried.layout
            assert layout.module is not None
            printer.print_string(
                carry.drop_comments(layout.text[layout.module.body_end : layout.module.end]),
                indent=0,
            )
        printer.print_metadata(self.ctx.loaded_dialects)
        stream.write("\n")
        if carried is not None:
            carried_ir.write_items(stream, carried.layout, carried.layout.epilogue)

    def _wrapper_text(
        self,
        module: ModuleOp,
        top: Operation,
        wrapper_before: _WrapperBefore,
        printer: Printer,
        as_text: bool,
    ) -> str | None:
        """The deferred wrapper of ``top`` as the pass writes its text (a top-level op
        of ``module``: indented once); None when it has none, or builds it."""
        if not as_text:
            return None
        try:
            return wrapper_before.text(top, printer, "  ")
        except AbiError as error:
            raise self._located(error, module) from None

    def _wrapper(
        self, module: ModuleOp, top: Operation, wrapper_before: _WrapperBefore
    ) -> Operation | None:
        """The deferred wrapper of ``top``, built, inserted before it and verified (it is
        part of the pass's output, which the driver verifies); errors as in a pass."""
        try:
            wrapper = wrapper_before(top)
        except AbiError as error:
            raise self._located(error, module) from None
        if wrapper is not None:
            module.body.block.insert_op_before(wrapper, top)
            self._verify_ops(wrapper)
            self._verify_attributes(wrapper)
        return wrapper

    # -- diagnostics ------------------------------------------------------------------------

    def _report(self, source: SourceFile, chunks: list[_Chunk]) -> bool:
        """Print every diagnostic; True when there was an error."""
        failed = False
        for chunk in chunks:
            for diagnostic in chunk.diagnostics:
                failed |= diagnostic.severity == "error"
                for item in (diagnostic, *diagnostic.notes):
                    _print_error(_format(source, item.severity, item.message, item.offset))
        return failed

    def _check_expectations(self, source: SourceFile, chunks: list[_Chunk]) -> bool:
        """mlir-opt's `-verify-diagnostics`: True when a diagnostic was unexpected or an
        expectation was not met."""
        expectations = list(_expectations(source))
        failed = False
        for chunk in chunks:
            mine = [e for e in expectations if chunk.start <= e.offset < chunk.end]
            for diagnostic in _flatten(chunk.diagnostics):
                line = None if diagnostic.offset is None else source.line_col(diagnostic.offset)[0]
                match = next(
                    (
                        e
                        for e in mine
                        if not e.matched
                        and e.severity == diagnostic.severity
                        and e.line == line
                        and e.text in _one_line(diagnostic.message)
                    ),
                    None,
                )
                if match is not None:
                    match.matched = True
                    continue
                failed = True
                _print_error(
                    _format(
                        source,
                        "error",
                        f"unexpected {diagnostic.severity}: {diagnostic.message}",
                        diagnostic.offset,
                    )
                )
            for expectation in mine:
                if not expectation.matched:
                    failed = True
                    _print_error(
                        _format(
                            source,
                            "error",
                            f'expected {expectation.severity} "{expectation.text}" '
                            "was not produced",
                            expectation.offset,
                        )
                    )
        return failed


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (see `AbiOptMain._process_chunk`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _template(text: str, name: str, callee: str) -> tuple[str, str] | None:
    """A printed wrapper split around its own name and its callee's: (what follows
    `func.func @name(` up to `func.call @callee(`, what follows that); None when either
    is not found exactly once."""
    head = f"func.func {symbol_text(name)}("
    call = f"func.call {symbol_text(callee)}("
    if not text.startswith(head) or text.count(head) != 1 or text.count(call) != 1:
        return None
    before, after = text[len(head) :].split(call)
    return before, after


# Builds the op a deferred pass puts before a top-level op (`_process_chunk`).
_WrapperBefore: TypeAlias = OpsBefore


def _verify_blocks(op: Operation) -> None:
    # The part of xDSL's Block.verify that is not about internal consistency.
    for region in op.regions:
        if (
            len(region.blocks) == 1
            and region.block.first_op is None
            and not op.has_trait(NoTerminator)
        ):
            raise DiagnosticException(
                f"Operation {op.name} contains empty block in single-block region "
                "that expects at least a terminator"
            )


def _body_access(passes: Sequence[ModulePass]) -> BodyAccess:
    """The most any pass of the pipeline needs of function bodies (`carry.BodyAccess`);
    a pass that does not state it needs every body."""
    order = [BodyAccess.SIGNATURES, BodyAccess.STRUCTURED, BodyAccess.ALL]
    needed = BodyAccess.SIGNATURES
    for item in passes:
        access = contract_of(item).body_access
        if order.index(access) > order.index(needed):
            needed = access
    return needed


def _version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    def of(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "unknown"

    return f"{PROG} {of('abi-compiler')} (xDSL {of('xdsl')})"


def _flatten(items: list[Diagnostic]) -> Iterator[Diagnostic]:
    for item in items:
        yield item
        yield from item.notes


def _expectations(source: SourceFile) -> Iterator[_Expectation]:
    for match in _EXPECTATION.finditer(source.text):
        severity, anchor, text = match.groups()
        line = source.line_col(match.start())[0]
        if anchor is None:
            target: int | None = line
        elif anchor == "unknown":
            target = None
        elif anchor == "above":
            target = line - 1
        elif anchor == "below":
            target = line + 1
        elif len(anchor) > 10:
            # Beyond any file's last line (and beyond what `int` converts in full): an
            # expectation that no diagnostic can meet.
            target = -1
        else:
            target = line + int(anchor)
        yield _Expectation(severity, text, target, match.start())


def _format(source: SourceFile, severity: str, message: str, offset: int | None) -> str:
    where = PROG if offset is None else source.position(offset)
    return f"{where}: {severity}: {_one_line(message)}"


def _one_line(message: str) -> str:
    """A diagnostic is one line: xDSL's verifier puts the reason on a line of its own
    (`result 'result' at position 0 does not verify:\ni32 should be …`)."""
    if "\n" not in message:
        return message
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


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


# -- pass pipelines -----------------------------------------------------------------------


def _parse_pipeline_text(text: str) -> list[ArgSpec]:
    try:
        return list(parse_pipeline(text))
    except ArgSpecParseError as error:
        # xDSL's message is "<header>\npass-pipeline:1:<col>\n<text>\n<caret>\n<message>".
        lines = [line for line in str(error).splitlines() if line.strip()]
        position = re.search(r":(\d+):(\d+)$", lines[1]) if len(lines) > 1 else None
        column = f" at column {position.group(2)}" if position else ""
        raise UsageError(f"malformed pass pipeline '{text}'{column}: {lines[-1].strip()}") from None


def _build_pass(cls: type[ModulePass], spec: ArgSpec) -> ModulePass:
    """Instantiate a pass from its spec, with `abi-opt: error:` messages for bad options."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "name"}
    given = spec.normalize_parameter_names().parameters
    for original, key in zip(spec.parameters, given, strict=True):
        if key not in fields:
            known = ", ".join(n.replace("_", "-") for n in fields)
            raise UsageError(
                f"pass '{spec.name}' has no option '{original}'"
                + (f" (options: {known})" if known else " (it takes no options)")
            )
    hints = get_type_hints(cls)
    for original, (key, value) in zip(spec.parameters, given.items(), strict=True):
        try:
            xdsl_compat.check_pass_option(value, hints[key])
        except ValueError:
            shown = xdsl_compat.pass_option_text(value)
            raise UsageError(
                f"invalid value '{shown}' for option '{original}' of pass '{spec.name}': "
                f"expected {_describe_type(hints[key])}"
            ) from None
    try:
        return cls.from_pass_spec(spec)
    except (ValueError, TypeError, AbiError) as error:
        raise UsageError(f"invalid options for pass '{spec.name}': {error}") from None


def _describe_type(hint: Any) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    if hint in names:
        return names[hint]
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " or ".join(_describe_type(a) for a in rest)
    if origin is tuple and args:
        return f"a comma-separated list of {_describe_type(args[0])} values"
    return str(hint)


def main(argv: Sequence[str] | None = None) -> int:
    return AbiOptMain.main(argv)


def console_main() -> NoReturn:
    """The `abi-opt` command (`output.abi_opt_console`, which the installed script calls
    without importing this module first): `main`, then exit without tearing the
    interpreter down. Freeing a large module's IR object by object takes seconds (a tenth
    of the run at 10 000 functions); the operating system reclaims it at once. Only the
    standard streams need flushing: every file the driver writes is closed by then."""
    output.abi_opt_console()


if __name__ == "__main__":
    console_main()
