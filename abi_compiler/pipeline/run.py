"""A run of a pass pipeline over MLIR text, end to end: scan → plan → read headers → parse
→ verify → passes → print. The stages are modules of their own, entered in that order:

* `abi_compiler.text.carry.scan`: the chunk's top-level items (what can be carried);
* `abi_compiler.pipeline.plan`: what is parsed, and the masked text xDSL is given;
* `abi_compiler.text_to_ir.headers`: plain `func.func` headers built without xDSL's lexer;
* `abi_compiler.pipeline.parse`: the rest parsed with source positions, the carried text
  attached (or, with `--parse-all` or a chunk the scanner does not know, everything
  parsed);
* `abi_compiler.pipeline.verify`, `abi_compiler.pipeline.apply`: verification and the
  passes;
* `abi_compiler.pipeline.printing`: the output, carried text put back.

`Pipeline` is the library object (a pass pipeline parsed once, run on any input);
`run_pipeline` the one-call form. Diagnostics are values (`Diagnostic`). A run leaves its
host process as it found it: the garbage collector's state is the caller's (the command
line tunes it for itself through a `Pipeline`'s ``phase``), the pipeline's context is never
changed, and what a run must change of xDSL is in `xdsl_fixes.applied`
(docs/xdsl-fixes.md).
"""

from __future__ import annotations

import contextlib
import io
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from abi_compiler.errors import AbiError
from abi_compiler.ir.location_table import LocationTable
from abi_compiler.passes.contract import OpsBefore
from abi_compiler.pipeline.apply import Dump, apply_passes, body_access, located
from abi_compiler.pipeline.dialects import context
from abi_compiler.pipeline.parse import Chunk, parse_carried, parse_whole
from abi_compiler.pipeline.plan import make_plan
from abi_compiler.pipeline.printing import ModulePrinter, Wrappers
from abi_compiler.pipeline.run_diagnostics import (
    Diagnostic,
    Failure,
    PipelineError,
    PipelineWarning,
    SourceFile,
)
from abi_compiler.pipeline.source import checked_source, read_source
from abi_compiler.pipeline.spec import PassInfo, SpecError, parse_spec, registry
from abi_compiler.pipeline.timing import Timer
from abi_compiler.pipeline.verify import Verifier
from abi_compiler.text.carry import ScanError, scan
from abi_compiler.text.lexer import StringEscapeError, is_blank
from abi_compiler.text_to_ir.carried_ir import Carried
from abi_compiler.xdsl_boundary import xdsl_fixes


@dataclass(frozen=True)
class Options:
    """How a run reads and prints (the `abi-opt` flags of the same names)."""

    #: Accept operations of dialects the run does not know (in parsed text).
    allow_unregistered_dialect: bool = False
    #: Parse and verify everything; by default only signatures and the bodies a pass
    #: rewrites are parsed, the rest is carried as text.
    parse_all: bool = False
    print_op_generic: bool = False
    print_debuginfo: bool = False
    #: Accept ops outside a `module` (an implicit module).
    implicit_module: bool = True


PhaseName = Literal["work", "print"]
#: What runs around each phase of a run: "work" (parse, verify, the passes) and "print".
Phase = Callable[[PhaseName], contextlib.AbstractContextManager[None]]


@contextlib.contextmanager
def _no_preparation(name: PhaseName) -> Iterator[None]:
    yield


class Pipeline:
    """A pass pipeline ready to run on any number of inputs: what `abi-opt -p …` does
    without files, flags and exit statuses.

    ``Pipeline.parse("iree-abi-v1")`` builds one from pipeline text;
    ``pipeline.run(source, sink)`` runs it on (a part of) a `SourceFile`, writes the
    output to ``sink`` only when there is no error, and returns the diagnostics.

    One object may be shared between threads: its runs take turns (they share one
    context, whose flag for unregistered dialects a run of carried text sets while it
    parses)."""

    def __init__(
        self,
        passes: Sequence[ModulePass] = (),
        options: Options = Options(),
        *,
        phase: Phase | None = None,
    ) -> None:
        self.passes = tuple(passes)
        self.options = options
        # Around each phase of a run; nothing by default. A command line prepares its own
        # process with it (`abi-opt` pauses the garbage collector while working, then keeps
        # the run's IR out of its reach while printing: `commands.opt_main.collector_phase`).
        self.phase = phase or _no_preparation
        self.ctx = context(options.allow_unregistered_dialect)
        # Carried text may use any dialect; headers and parsed bodies may name types and
        # attributes of dialects not known here (kept as written): parsed with a context
        # of its own, so that `ctx` is never changed.
        self._carry_ctx = context(allow_unregistered=True)
        self.body_access = body_access(self.passes)
        # Text is carried only where it is printed back as written: not in generic form,
        # not with locations.
        self.carry = not (options.parse_all or options.print_op_generic or options.print_debuginfo)
        #: Wall time per phase over every run (`--mlir-timing`).
        self.timer = Timer()
        self._turn = threading.RLock()

    @classmethod
    def parse(
        cls,
        spec: str,
        options: Options = Options(),
        *,
        known: Mapping[str, PassInfo] | None = None,
        phase: Phase | None = None,
    ) -> Pipeline:
        """The pipeline ``spec`` names (`-p` text: passes and named pipelines, options in
        braces), from ``known`` (by default the project's passes, `spec.registry`); a
        `PipelineError` without position when it cannot be run."""
        try:
            passes = parse_spec(spec, registry() if known is None else known)
        except SpecError as error:
            raise PipelineError([Diagnostic("error", error.message)]) from None
        return cls(passes, options, phase=phase)

    def run(
        self,
        source: SourceFile,
        sink: TextIO,
        *,
        start: int = 0,
        end: int | None = None,
        dump: TextIO | None = None,
    ) -> list[Diagnostic]:
        """Run on ``source.text[start:end]`` (a chunk of ``--split-input-file``); write
        the output to ``sink`` (seekable: output of a run that fails late is taken
        back) and return every diagnostic, located. ``dump`` receives the module after
        each pass (`--print-ir-after-all`)."""
        end = len(source.text) if end is None else end
        chunk = Chunk(source.name, source.text[start:end], start)
        found: list[Diagnostic] = []
        mark = sink.tell()
        with self._turn, xdsl_fixes.applied():
            try:
                if is_blank(chunk.text):
                    raise Failure(Diagnostic("error", "empty input chunk", start))
                self._run(chunk, sink, found, dump)
            except RecursionError:
                # Past the raised recursion limit after parsing (parsing reports its own,
                # at its token): a pass, the verifier or the printer walking a type or
                # attribute that aliases nest deeper than the parser ever recursed.
                sink.seek(mark)
                sink.truncate()
                found.append(Diagnostic("error", "input nested too deeply", start))
            except Failure as failure:
                # A wrapper printed with the module may fail after part of the chunk's
                # output is written: take it back.
                sink.seek(mark)
                sink.truncate()
                found.append(failure.diagnostic)
        return [diagnostic.located(source) for diagnostic in found]

    def read(self, source: SourceFile) -> tuple[ModuleOp, LocationTable]:
        """The module of ``source`` as this pipeline's passes would see it, and the
        offsets of its ops: only what they need parsed (with no passes: the function
        headers; every body carried), not verified, no pass run. A `PipelineError` when
        it does not parse. For tools that read signatures (`abi-sig show`)."""
        table = LocationTable()
        with self._turn, xdsl_fixes.applied():
            try:
                module, _, _ = self._parse(Chunk(source.name, source.text, 0), table)
            except Failure as failure:
                raise PipelineError([failure.diagnostic.located(source)]) from None
        return module, table

    def _run(
        self, chunk: Chunk, sink: TextIO, found: list[Diagnostic], dump: TextIO | None
    ) -> None:
        timer = self.timer
        table = LocationTable()
        with self.phase("work"):
            timer.charge(None)
            module, carried, ctx = self._parse(chunk, table)
            timer.charge("Parser")
            verifier = Verifier(table, carried)
            verifier.module(module)
            timer.charge("Verifier")
            deferred = apply_passes(
                self.ctx,
                module,
                self.passes,
                table=table,
                verifier=verifier,
                timer=timer,
                warnings=found,
                dump=None if dump is None else self._dumper(dump, carried, ctx),
            )
        with self.phase("print"):
            self._print(module, carried, ctx, table, verifier, deferred, sink)

    def _print(
        self,
        module: ModuleOp,
        carried: Carried | None,
        ctx: Context,
        table: LocationTable,
        verifier: Verifier,
        deferred: OpsBefore | None,
        sink: TextIO,
    ) -> None:
        timer = self.timer
        wrappers = None
        if deferred is not None:

            def build(top: Operation) -> Operation | None:
                try:
                    wrapper = deferred(top)
                except AbiError as error:
                    raise located(error, table, module) from None
                if wrapper is not None:
                    module.body.block.insert_op_before(wrapper, top)
                    verifier.new(wrapper)
                return wrapper

            def write(top: Operation, printer: Printer) -> str | None:
                try:
                    return deferred.text(top, printer, "  ")  # (a top-level op)
                except AbiError as error:
                    raise located(error, table, module) from None

            wrappers = Wrappers(deferred, build, write)
        timer.charge(None)
        self._printer(sink, carried, wrappers).print_module(module, ctx.loaded_dialects)
        timer.charge("Output")

    def _parse(
        self, chunk: Chunk, table: LocationTable
    ) -> tuple[ModuleOp, Carried | None, Context]:
        """Scan, plan, read headers and parse with carried text; everything when
        ``--parse-all`` is given or when the chunk has a shape the scanner does not
        know. Also the context the module was parsed in (its dialects hold the module's
        resources)."""
        implicit = self.options.implicit_module
        if self.carry:
            try:
                layout = scan(chunk.text)
            except ScanError:
                layout = None
            except StringEscapeError as error:
                failed = Diagnostic("error", error.message, chunk.base + error.offset)
                raise Failure(failed) from None
            if layout is not None:
                plan = make_plan(layout, self.body_access)
                carried = Carried(layout, plan.parsed)
                module = parse_carried(
                    self._carry_ctx, chunk, plan, carried, table, implicit_module=implicit
                )
                if module is not None:
                    return module, carried, self._carry_ctx
        options = self.options
        option = next(
            (
                flag
                for flag, given in (
                    ("--parse-all", options.parse_all),
                    ("--print-op-generic", options.print_op_generic),
                    ("--print-debuginfo", options.print_debuginfo),
                )
                if given
            ),
            None,
        )
        module = parse_whole(self.ctx, chunk, table, implicit_module=implicit, option=option)
        return module, None, self.ctx

    def _printer(
        self, stream: TextIO, carried: Carried | None, wrappers: Wrappers | None = None
    ) -> ModulePrinter:
        return ModulePrinter(
            stream,
            carried=carried,
            wrappers=wrappers,
            generic=self.options.print_op_generic,
            debuginfo=self.options.print_debuginfo,
        )

    def _dumper(self, stream: TextIO, carried: Carried | None, ctx: Context) -> Dump:
        def dump(name: str, module: ModuleOp) -> None:
            stream.write(f"// -----// IR Dump After {name} //----- //\n")
            self._printer(stream, carried).print_module(module, ctx.loaded_dialects)

        return dump


def run_pipeline(
    text: str | bytes,
    pipeline: str = "",
    *,
    name: str = "<input>",
    allow_unregistered_dialect: bool = False,
    parse_all: bool = False,
    print_op_generic: bool = False,
    print_debuginfo: bool = False,
    implicit_module: bool = True,
) -> str:
    """Run ``pipeline`` (`abi-opt -p` text, e.g. ``"iree-abi-v1"``; empty: parse, verify
    and print) on MLIR ``text`` and return the output. Errors raise one `PipelineError`
    carrying every diagnostic (``file:line:col`` positions name the input ``name``);
    warnings are given to `warnings.warn` as `PipelineWarning`s. A ``text`` that is not a
    string or bytes, a ``pipeline`` or ``name`` that is not a string: `TypeError`."""
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"run_pipeline: text must be MLIR as str or bytes, not {type(text).__name__}"
        )
    for argument, value in (("pipeline", pipeline), ("name", name)):
        if not isinstance(value, str):
            raise TypeError(f"run_pipeline: {argument} must be a str, not {type(value).__name__}")
    if isinstance(text, str):
        source = checked_source(name, text.removeprefix("\ufeff"))
    else:
        source = read_source(bytes(text), name)
    options = Options(
        allow_unregistered_dialect=allow_unregistered_dialect,
        parse_all=parse_all,
        print_op_generic=print_op_generic,
        print_debuginfo=print_debuginfo,
        implicit_module=implicit_module,
    )
    runner = Pipeline.parse(pipeline, options)
    sink = io.StringIO()
    found = runner.run(source, sink)
    if any(item.severity == "error" for item in found):
        raise PipelineError(found)
    for item in found:
        warnings.warn(PipelineWarning(item), stacklevel=2)
    return sink.getvalue()
