"""`abi-sig`: decode a mangled signature or an `iree.abi` JSON and print it readably
(``raw``, ``sip``, ``json``), show the calling convention of a module's functions
(``show``), and compare two versions of a module (``diff``); ``--format json`` prints the
decoded model for scripts. The output forms, exit statuses and the JSON shapes are in
docs/formats.md ("The `abi-sig` command"); streams are handled as in `abi-opt`
(`abi_compiler.commands.output`). No xDSL import here: start-up time matters for a
command-line decoder (reading an MLIR module imports it,
`module_signatures.read_functions`).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from abi_compiler.call_model import OriginalCall
from abi_compiler.codecs.call_json import format_call, format_relations, format_updates
from abi_compiler.codecs.generation_json import encode_generation, format_generation
from abi_compiler.codecs.json_abi import decode_json, format_declaration
from abi_compiler.codecs.lexical import printable
from abi_compiler.codecs.provenance_json import format_provenance, format_target
from abi_compiler.codecs.python_api import PythonApi, StubFunction, StubGeneration
from abi_compiler.codecs.raw import decode_raw, format_raw
from abi_compiler.codecs.sip import decode_sip, format_sip
from abi_compiler.codecs.state_json import encode_state, format_state
from abi_compiler.commands import output, status
from abi_compiler.devices.targets import is_target_flag
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Dict,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    ValueType,
)
from abi_compiler.signatures.generation_diff import diff_generation
from abi_compiler.signatures.module_signatures import (
    FunctionSignature,
    ReadError,
    is_vmfb,
    read_module,
)
from abi_compiler.signatures.signature_diff import Finding, diff_functions
from abi_compiler.versions import package_version

PROG = "abi-sig"


def type_to_json(t: ValueType | None) -> dict[str, Any] | None:
    """The ``--format json`` shape of a value type."""
    if t is None:
        return None
    if isinstance(t, Scalar):
        return {"type": "scalar", "kind": t.kind, "width": t.width}
    if isinstance(t, NDArray):
        dims = None if t.dims is None else list(t.dims)
        return {"type": "ndarray", "element": type_to_json(t.element), "dims": dims}
    if isinstance(t, ListRef):
        return {"type": "list", "element": type_to_json(t.element)}
    return {"type": "unknown"}


def node_to_json(node: Node | None) -> dict[str, Any] | None:
    """The ``--format json`` shape of a structure node (``None``: empty root or gap)."""
    if node is None:
        return None
    if isinstance(node, Leaf):
        return {"node": "leaf", "index": node.index, "type": type_to_json(node.type)}
    if isinstance(node, Sequence):
        return {
            "node": "sequence",
            "kind": node.kind,
            "items": [node_to_json(i) for i in node.items],
        }
    if isinstance(node, Dict):
        return {"node": "dict", "items": [[key, node_to_json(item)] for key, item in node.items]}
    raise TypeError(f"not a structure node: {node!r}")


def _raw(text: bytes, as_json: bool) -> str:
    sig = decode_raw(text)
    if not as_json:
        return format_raw(sig) + "\n"
    return _dump(
        {
            "encoding": "raw",
            "inputs": [type_to_json(t) for t in sig.inputs],
            "results": [type_to_json(t) for t in sig.results],
        }
    )


def _sip(text: bytes, as_json: bool) -> str:
    sig = decode_sip(text)
    if not as_json:
        return f"inputs:\n{format_sip(sig.inputs)}results:\n{format_sip(sig.results)}"
    return _dump(
        {
            "encoding": "sip",
            "inputs": node_to_json(sig.inputs),
            "results": node_to_json(sig.results),
        }
    )


def _json(text: bytes, as_json: bool) -> str:
    sig = decode_json(text)
    if not as_json:
        return printable(format_declaration(sig)) + "\n"
    return _dump({"encoding": "json", **signature_to_json(sig)})


def signature_to_json(sig: Signature) -> dict[str, Any]:
    """The ``--format json`` shape of a signature: its arguments and result records."""
    return {
        "arguments": [
            {"key": arg.key, "name": arg.name, "node": node_to_json(arg.node)}
            for arg in sig.arguments
        ],
        "results": [node_to_json(node) for node in sig.results],
    }


def _dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


_DECODERS: dict[str, Callable[[bytes, bool], str]] = {"raw": _raw, "sip": _sip, "json": _json}


# -- show and diff -------------------------------------------------------------------------


def _read_file(argument: str) -> tuple[str, bytes]:
    """The display name and contents of a FILE argument (``-``: standard input)."""
    if argument == "-":
        return "<stdin>", output.read_stdin()
    try:
        with open(argument, "rb") as stream:
            return argument, stream.read()
    except OSError as error:
        raise ReadError(
            f"could not open input file '{argument}': {error.strerror or error}"
        ) from None


def _functions(argument: str, everything: bool) -> tuple[str, list[FunctionSignature]]:
    name, data = _read_file(argument)
    return name, _module_functions(name, data, everything)


def _module_functions(name: str, data: bytes, everything: bool) -> list[FunctionSignature]:
    try:
        found = read_module(data, name)
    except (ReadError, KeyboardInterrupt, output.StreamError):
        raise
    except AbiError as error:
        raise ReadError(str(error), name) from None
    except Exception as error:  # a defect of ours: still a diagnostic, never a traceback
        message = " ".join(str(error).split())
        raise ReadError(f"internal error: {type(error).__name__}: {message}", name) from None
    return [function for function in found if everything or function.caller_visible]


def _function_to_json(function: FunctionSignature) -> dict[str, Any]:
    return {
        "name": function.name,
        "source": function.source,
        "caller_visible": function.caller_visible,
        "declaration": format_declaration(function.signature),
        **signature_to_json(function.signature),
        **({"call": format_call(function.call)} if function.call is not None else {}),
        **(
            {"where": format_relations(function.call)}
            if function.call is not None and format_relations(function.call)
            else {}
        ),
        **(
            {"updates": format_updates(function.call)}
            if function.call is not None and function.call.updates
            else {}
        ),
        **(
            {"state": json.loads(encode_state(list(function.state)))["globals"]}
            if function.state is not None
            else {}
        ),
        **(
            {"generation": json.loads(encode_generation(function.generation))}
            if function.generation is not None
            else {}
        ),
    }


def _show(args: argparse.Namespace) -> int:
    shown: list[tuple[str, list[FunctionSignature]]] = []
    errors: list[str] = []
    for argument in args.files:
        try:
            shown.append(_functions(argument, args.all))
        except ReadError as error:
            errors += error.lines(PROG)
    if errors:
        for line in errors:
            output.write_stderr(line)
        return 1
    if args.format == "json":
        text = _dump(
            {
                "files": [
                    {"file": name, "functions": [_function_to_json(f) for f in functions]}
                    for name, functions in shown
                ]
            }
        )
    else:
        lines: list[str] = []
        for name, functions in shown:
            if len(shown) > 1:
                lines.append(f"{name}:")
            for function in functions:
                lines.append(function.line())
                if function.call is not None:
                    lines.append(f"  called as {function.name}{format_call(function.call)}")
                    relations = format_relations(function.call)
                    if relations:
                        lines.append(f"  where {relations}")
                    if function.call.updates:
                        lines.append(f"  updates in place: {format_updates(function.call)}")
                if function.state is not None:
                    lines.append(f"  state: {format_state(list(function.state))}")
                if function.generation is not None:
                    lines.append(f"  generation: {format_generation(function.generation)}")
            if args.provenance:
                lines += _provenance_lines(functions)
            else:
                lines += _target_lines(functions)
        text = "".join(printable(line) + "\n" for line in lines)
    _write(text)
    return 0


def _target_lines(functions: list[FunctionSignature]) -> list[str]:
    """Where the module runs: the executable targets its provenance records (with their
    CPU features under ``--provenance``), one line; none when it records none."""
    made = next((f.provenance for f in functions if f.provenance is not None), None)
    if made is None or not made.targets:
        return []
    return [f"targets: {'; '.join(format_target(target) for target in made.targets)}"]


def _provenance_lines(functions: list[FunctionSignature]) -> list[str]:
    """How the module was made (`abi.provenance`): once when every function says the
    same, else per function."""
    made = [function.provenance for function in functions]
    if not functions or all(item is None for item in made):
        return ["provenance: none recorded"]
    if all(item == made[0] for item in made):
        assert made[0] is not None
        return ["provenance:", *(f"  {line}" for line in format_provenance(made[0]))]
    lines: list[str] = []
    for function, item in zip(functions, made, strict=True):
        lines.append(f"provenance of {function.name}:")
        body = ["none recorded"] if item is None else format_provenance(item)
        lines += [f"  {line}" for line in body]
    return lines


def _provenance_changes(old: list[FunctionSignature], new: list[FunctionSignature]) -> list[str]:
    """What `diff` says, as information, of how the two modules were made: the compilers'
    versions, the target, the iree-compile flags, the frameworks' versions."""
    before = next((f.provenance for f in old if f.provenance is not None), None)
    after = next((f.provenance for f in new if f.provenance is not None), None)
    if before is None or after is None:
        return []
    found: list[str] = []

    def compare(what: str, a: object, b: object) -> None:
        if a != b:
            found.append(f"info: {what}: {a} -> {b}")

    compare("abi-compiler", before.abi_compiler, after.abi_compiler)
    compare("IREE compiler", before.iree_compiler, after.iree_compiler)
    compare("target", before.target, after.target)
    # The flags besides the target's (said above): those removed and those added.
    old_flags = [flag for flag in before.flags if not is_target_flag(flag)]
    new_flags = [flag for flag in after.flags if not is_target_flag(flag)]
    removed = [flag for flag in old_flags if flag not in new_flags]
    added = [flag for flag in new_flags if flag not in old_flags]
    if removed or added:
        found.append(
            "info: iree-compile flags: "
            + ", ".join(
                [*(f"removed {flag}" for flag in removed), *(f"added {flag}" for flag in added)]
            )
        )
    old_versions = dict(v for item in before.inputs for v in item.versions)
    new_versions = dict(v for item in after.inputs for v in item.versions)
    for package in sorted(old_versions.keys() & new_versions.keys()):
        compare(package, old_versions[package], new_versions[package])
    return found


def _finding_to_json(finding: Finding) -> dict[str, Any]:
    return {
        "severity": "breaking" if finding.breaking else "compatible",
        "function": finding.function,
        "side": finding.side,
        "path": list(finding.path),
        "what": finding.what,
        "old": finding.old,
        "new": finding.new,
        "line": finding.line(),
    }


def _diff(args: argparse.Namespace) -> int:
    """Exit status 0: nothing breaks, 1: something does, 2: an input cannot be read."""
    modules: list[dict[str, Signature]] = []
    calls: list[dict[str, OriginalCall]] = []
    read: list[list[FunctionSignature]] = []
    errors: list[str] = []
    for argument in (args.old, args.new):
        try:
            _, functions = _functions(argument, args.all)
        except ReadError as error:
            errors += error.lines(PROG)
            continue
        read.append(functions)
        modules.append({function.name: function.signature for function in functions})
        calls.append({f.name: f.call for f in functions if f.call is not None})
    if errors:
        for line in errors:
            output.write_stderr(line)
        return 2
    states = [{f.name: f.state for f in functions if f.state is not None} for functions in read]
    findings = diff_functions(
        modules[0],
        modules[1],
        calls[0],
        calls[1],
        strict=args.strict,
        old_state=states[0],
        new_state=states[1],
    )
    jobs = [
        next(((f.name, f.generation) for f in functions if f.generation is not None), None)
        for functions in read
    ]
    findings = sorted(  # (stable: breaking ones first, the job's after the functions')
        [*findings, *diff_generation(jobs[0], jobs[1])], key=lambda finding: not finding.breaking
    )
    breaking = any(finding.breaking for finding in findings)
    information = _provenance_changes(read[0], read[1])
    if args.format == "json":
        text = _dump(
            {
                "breaking": breaking,
                "findings": [_finding_to_json(item) for item in findings],
                "information": information,
            }
        )
    else:
        lines = [finding.line() for finding in findings] + information
        text = "".join(printable(line) + "\n" for line in lines)
    _write(text)
    return 1 if breaking else 0


def _stub(args: argparse.Namespace) -> int:
    """A typed Python module for the module FILE (docs/calling.md, "Signatures and typed
    stubs"), on standard output or in ``-o``."""
    if args.output is not None:
        output.check_output_file(args.output)
        if args.file != "-":
            output.check_not_input(args.output, [args.file])
    try:
        name, data = _read_file(args.file)
        functions = _module_functions(name, data, False)
    except ReadError as error:
        for line in error.lines(PROG):
            output.write_stderr(line)
        return 1
    stubbed = [StubFunction(f.name, f.call, f.signature) for f in functions]
    source = os.path.basename(name) if args.file != "-" else "<stdin>"
    # A compiled module is loaded from where it was read, found from the stub's own folder
    # (the output's; standard output: the current one); MLIR must be compiled first.
    default = None
    if args.file != "-" and is_vmfb(data):
        folder = os.path.dirname(os.path.abspath(args.output)) if args.output else os.curdir
        default = args.file if os.path.isabs(args.file) else os.path.relpath(args.file, folder)
    job = next((f.generation for f in functions if f.generation is not None), None)
    generation = (
        None
        if job is None
        else StubGeneration(job.tokenizer is not None, job.chat_template is not None)
    )
    text = PythonApi().stub(stubbed, source, package_version(), default, generation)
    if args.output is None:
        _write(text)
    else:
        output.write_output_file(args.output, io.BytesIO(text.encode("utf-8")))
    return 0


def _write(text: str) -> None:
    data = text.encode("utf-8", "backslashreplace")
    output.write_stdout(lambda stream: stream.buffer.write(data))


# -- command line --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    # Usage errors exit with argparse's status 2 (for diff also the status of input it
    # cannot read).
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Decode an IREE ABI signature and print it in readable form; show the "
        "calling convention of a module's functions; compare two versions of a module.",
        epilog="The encodings, their readable forms and the show and diff output: "
        "docs/formats.md in abi-compiler's repository.",
    )
    format_help = "text: the readable form (default); json: the decoded model"
    parser.add_argument("--format", choices=("text", "json"), default="text", help=format_help)
    # Also accepted after the command (`abi-sig show --format json m.mlir`).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--format", choices=("text", "json"), default=argparse.SUPPRESS, help=format_help
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    encodings = {
        "raw": "decode an `f` signature",
        "sip": "decode a `sip` signature",
        "json": "decode an `iree.abi` value",
    }
    for name, summary in encodings.items():
        command = commands.add_parser(name, parents=[common], help=summary, description=summary)
        command.add_argument("signature", metavar="SIG", help="the signature, or - for stdin")
    everything = "also functions a caller does not call ($async variants, the VM's __init)"
    show = commands.add_parser(
        "show",
        parents=[common],
        help="one line per exported function of each module",
        description="Print one line per exported function of each module (MLIR text, MLIR "
        "bytecode or a compiled .vmfb): its name and how it is called.",
    )
    show.add_argument("--all", action="store_true", help=everything)
    show.add_argument(
        "--provenance",
        action="store_true",
        help="also print how each module was made (abi.provenance): versions, target, "
        "iree-compile flags, inputs and their sha256",
    )
    show.add_argument("files", metavar="FILE", nargs="+", help="a module, or - for stdin")
    diff = commands.add_parser(
        "diff",
        parents=[common],
        help="what changed between two versions of a module, and whether it breaks callers",
        description="Compare the functions of two modules by name. Exit status 0 when "
        "nothing breaks a caller of OLD, 1 when something does, 2 when an input cannot be "
        "read.",
    )
    diff.add_argument("--all", action="store_true", help=everything)
    diff.add_argument(
        "--strict",
        action="store_true",
        help="count a key added to a result dict as breaking (compatible by default)",
    )
    diff.add_argument("old", metavar="OLD", help="the old module, or - for stdin")
    diff.add_argument("new", metavar="NEW", help="the new module")
    stub = commands.add_parser(
        "stub",
        help="a typed Python module (typing.Protocol, NamedTuples, TypedDicts) for a module",
        description="Write a typed Python module for the functions of FILE (a compiled "
        ".vmfb, or MLIR with reflection): its namedtuples, dataclasses and string-keyed "
        "dicts as classes, a Protocol with each function's original signature, and load(), "
        "which loads the module with abi_compiler.iree.load; mypy then checks calls.",
    )
    stub.add_argument("-o", dest="output", metavar="PATH", help="write to PATH (default: stdout)")
    stub.add_argument("file", metavar="FILE", help="a module, or - for stdin")
    return parser


def _read_signature(argument: str) -> bytes:
    if argument != "-":
        # The original bytes of the argument, even when they are not valid UTF-8.
        return os.fsencode(argument)
    data = output.read_stdin()
    if data.endswith(b"\r\n"):
        return data[:-2]
    if data.endswith(b"\n"):
        return data[:-1]
    return data


def main(argv: list[str] | None = None) -> int:
    output.reopen_closed_streams()
    return status.finish(PROG, lambda: _main(argv))


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    # A failure of the tool itself: 1, except for diff, whose 1 means "breaking".
    failed = status.UNREADABLE if args.command == "diff" else status.FAILED
    files: list[str] = []
    if args.command == "show":
        files = args.files
    elif args.command == "diff":
        files = [args.old, args.new]
    try:
        if files.count("-") > 1:
            # (the second would read what the first left of it: nothing)
            raise status.UsageError("standard input ('-') is given more than once")
        output.check_stdout()
        if args.command == "show":
            return _show(args)
        if args.command == "diff":
            return _diff(args)
        if args.command == "stub":
            return _stub(args)
        text = _read_signature(args.signature)
        _write(_DECODERS[args.command](text, args.format == "json"))
    except AbiError as error:
        output.write_stderr(f"{PROG}: error: {error}")
        return status.FAILED
    except (status.UsageError, output.StreamError) as error:
        output.write_stderr(f"{PROG}: error: {error.message}")
        return failed
    except BrokenPipeError:  # the reader went away (`abi-sig … | head -0`)
        output.forget_stdout_buffer()
        return failed
    except OSError as error:
        output.write_stderr(f"{PROG}: error: cannot read the signature: {error.strerror}")
        return failed
    except Exception as error:  # a defect of ours: still one line, never a traceback
        message = " ".join(str(error).split())
        output.write_stderr(f"{PROG}: error: internal error: {type(error).__name__}: {message}")
        return failed
    return 0


if __name__ == "__main__":
    sys.exit(main())
