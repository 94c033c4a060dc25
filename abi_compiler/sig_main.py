"""`abi-sig`: decode a mangled signature or an `iree.abi` JSON and print it readably.

Usage::

    abi-sig raw  'I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64'
    abi-sig sip  'I12!S9!k0_0k1_1R3!_0'
    abi-sig json '{"a":["i32"],"r":[],"v":1}'
    abi-sig --format json raw - < signature.txt

The text forms are SPEC §9's (docs/formats.md): ``raw`` prints one line, ``sip`` prints ``inputs:``, the
inputs text, ``results:``, the results text, ``json`` prints the declaration form. SIG
``-`` reads the signature from standard input (one trailing newline is ignored).
Malformed input: ``abi-sig: error: <message> (at offset N)`` on standard error, exit
status 1 (usage errors: exit status 2). Closed or full standard streams are handled as
in `abi-opt` (`abi_compiler.driver.output`): a closed stdin or stdout, or a write error
on stdout, is a one-line error with exit status 1; Ctrl-C exits with 130, silently.

``--format json`` prints the decoded model instead, as a JSON document (indented, keys
sorted) for scripts. Its shape, stable across releases:

* raw: ``{"encoding": "raw", "inputs": [<type>...], "results": [<type>...]}``
* sip: ``{"encoding": "sip", "inputs": <node or null>, "results": <node or null>}``
* json: ``{"encoding": "json", "arguments": [{"key": k, "name": "x" | null,
  "node": <node>}...], "results": [<node>...]}``

where a ``<type>`` is one of

* ``{"type": "scalar", "kind": "i" | "si" | "ui" | "f" | "bf", "width": 32}``
* ``{"type": "ndarray", "element": <type>, "dims": [4, null] | null}`` (``null`` dims:
  unranked; a ``null`` dim is dynamic)
* ``{"type": "list", "element": <type>}``
* ``{"type": "unknown"}``

and a ``<node>`` is one of

* ``{"node": "leaf", "index": 0, "type": <type> | null}`` (SIP leaves and JSON ``null``
  records have no type)
* ``{"node": "sequence", "kind": "list" | "tuple", "items": [<node> | null...]}``
  (``null``: a gap)
* ``{"node": "dict", "items": [["key", <node>]...]}`` (keys sorted)

No xDSL import here: start-up time matters for a command-line decoder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from abi_compiler.codecs.json_abi import decode_json, format_declaration
from abi_compiler.codecs.raw import decode_raw, format_raw
from abi_compiler.codecs.sip import decode_sip, format_sip
from abi_compiler.driver import output
from abi_compiler.errors import AbiError
from abi_compiler.model import Dict, Leaf, ListRef, NDArray, Node, Scalar, Sequence, ValueType

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
        return format_declaration(sig) + "\n"
    return _dump(
        {
            "encoding": "json",
            "arguments": [
                {"key": arg.key, "name": arg.name, "node": node_to_json(arg.node)}
                for arg in sig.arguments
            ],
            "results": [node_to_json(node) for node in sig.results],
        }
    )


def _dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


_DECODERS: dict[str, Callable[[bytes, bool], str]] = {"raw": _raw, "sip": _sip, "json": _json}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Decode an IREE ABI signature and print it in readable form.",
        epilog="The encodings and their readable forms: docs/formats.md in abi-compiler's "
        "repository.",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: the readable form (default); json: the decoded model",
    )
    parser.add_argument(
        "encoding",
        choices=tuple(_DECODERS),
        help="raw: an `f` signature; sip: a `sip` signature; json: an `iree.abi` value",
    )
    parser.add_argument("signature", metavar="SIG", help="the signature, or - for stdin")
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
    try:
        output.check_stdout()
        text = _read_signature(args.signature)
        readable = _DECODERS[args.encoding](text, args.format == "json")
        data = readable.encode("utf-8", "backslashreplace")
        output.write_stdout(lambda stream: stream.buffer.write(data))
    except AbiError as error:
        output.write_stderr(f"{PROG}: error: {error}")
        return 1
    except output.StreamError as error:
        output.write_stderr(f"{PROG}: error: {error.message}")
        return 1
    except BrokenPipeError:  # the reader went away (`abi-sig … | head -0`)
        output.forget_stdout_buffer()
        return 1
    except OSError as error:
        output.write_stderr(f"{PROG}: error: cannot read the signature: {error.strerror}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
