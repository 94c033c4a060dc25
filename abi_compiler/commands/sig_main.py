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
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from abi_compiler.call_model import OriginalCall
from abi_compiler.codecs.call_json import format_call, format_relations
from abi_compiler.codecs.json_abi import decode_json, format_declaration
from abi_compiler.codecs.lexical import printable
from abi_compiler.codecs.raw import decode_raw, format_raw
from abi_compiler.codecs.sip import decode_sip, format_sip
from abi_compiler.commands import output
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
from abi_compiler.signatures.module_signatures import FunctionSignature, ReadError, read_module
from abi_compiler.signatures.signature_diff import Finding, diff_functions

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
    try:
        found = read_module(data, name)
    except (ReadError, KeyboardInterrupt, output.StreamError):
        raise
    except AbiError as error:
        raise ReadError(str(error), name) from None
    except Exception as error:  # a defect of ours: still a diagnostic, never a traceback
        message = " ".join(str(error).split())
        raise ReadError(f"internal error: {type(error).__name__}: {message}", name) from None
    return name, [function for function in found if everything or function.caller_visible]


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
        text = "".join(printable(line) + "\n" for line in lines)
    _write(text)
    return 0


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
    errors: list[str] = []
    for argument in (args.old, args.new):
        try:
            _, functions = _functions(argument, args.all)
        except ReadError as error:
            errors += error.lines(PROG)
            continue
        modules.append({function.name: function.signature for function in functions})
        calls.append({f.name: f.call for f in functions if f.call is not None})
    if errors:
        for line in errors:
            output.write_stderr(line)
        return 2
    findings = diff_functions(modules[0], modules[1], calls[0], calls[1], strict=args.strict)
    breaking = any(finding.breaking for finding in findings)
    if args.format == "json":
        text = _dump(
            {"breaking": breaking, "findings": [_finding_to_json(item) for item in findings]}
        )
    else:
        text = "".join(printable(finding.line()) + "\n" for finding in findings)
    _write(text)
    return 1 if breaking else 0


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
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return 130


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    # A failure of the tool itself: 1, except for diff, whose 1 means "breaking".
    failed = 2 if args.command == "diff" else 1
    files: list[str] = []
    if args.command == "show":
        files = args.files
    elif args.command == "diff":
        files = [args.old, args.new]
    if files.count("-") > 1:
        # (the second would read what the first left of it: nothing)
        output.write_stderr(f"{PROG}: error: standard input ('-') is given more than once")
        return failed
    try:
        output.check_stdout()
        if args.command == "show":
            return _show(args)
        if args.command == "diff":
            return _diff(args)
        text = _read_signature(args.signature)
        _write(_DECODERS[args.command](text, args.format == "json"))
    except AbiError as error:
        output.write_stderr(f"{PROG}: error: {error}")
        return 1
    except output.StreamError as error:
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
