"""`abi-generate`: text from a compiled language model that records its generation job
(`abi_compiler.generation`; docs/calling.md, "Generating text").

    abi-generate MODEL.vmfb PROMPT [--max-new-tokens N] [--temperature T] [--top-k K]
                 [--top-p P] [--seed S] [--stop TEXT]…
    abi-generate MODEL.vmfb --chat [--system TEXT] …

The text is streamed to stdout as it is generated (flushed per piece), then a newline.
``--chat`` reads the user's turns from stdin, one per line, and answers each through the
module's chat template in one session (the conversation on one KV cache). A module
without a job, a prompt longer than the cache, a bad setting: `abi-generate: error: …`,
exit status 1; an answer cut by the end of the cache says so on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from functools import partial
from typing import Any

from abi_compiler.commands import output, status
from abi_compiler.commands.status import UsageError
from abi_compiler.errors import AbiError

PROG = "abi-generate"


def _parser() -> status.ArgumentParser:
    parser = status.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("module", metavar="MODEL.vmfb", help="a compiled module that records a generation job")
    add("prompt", nargs="?", metavar="PROMPT", help="the prompt (not with --chat)")
    add("--chat", action="store_true", help="read the user's turns from stdin, one per line")
    add("--system", metavar="TEXT", help="with --chat: a system message first")
    add("--max-new-tokens", type=int, metavar="N", help="at most N new tokens per answer")
    add("--temperature", type=float, metavar="T", help="sample with temperature T")
    add("--top-k", type=int, metavar="K", help="sample among the K most likely tokens")
    add("--top-p", type=float, metavar="P", help="sample among the most likely tokens up to P")
    add("--seed", type=int, metavar="S", help="the seed of the draws (the same text each time)")
    add("--stop", action="append", default=[], metavar="TEXT", help="stop before TEXT")
    return parser


def run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.chat == (args.prompt is not None):
        raise UsageError("give a PROMPT or --chat (turns on stdin)")
    if args.system is not None and not args.chat:
        raise UsageError("--system goes with --chat")
    if not os.path.isfile(args.module):
        raise UsageError(f"cannot read '{args.module}': no such file")
    options: dict[str, Any] = {
        "max_new_tokens": args.max_new_tokens,
        "seed": args.seed,
        "stop": args.stop,
        "top_k": args.top_k,
        "top_p": args.top_p,
        "temperature": args.temperature,
    }
    if any(options[key] is not None for key in ("temperature", "top_k", "top_p")):
        options["do_sample"] = True
    try:
        from abi_compiler import iree as abi_iree
    except ImportError:
        raise UsageError(
            "abi-generate needs IREE's runtime: pip install 'abi-compiler[generate]'"
        ) from None
    try:
        module = abi_iree.load(args.module)
        if not args.chat:
            _answer(module.generate(args.prompt, stream=True, **options))
            return 0
        session = module.session()
        messages: list[dict[str, str]] = []
        if args.system is not None:
            messages.append({"role": "system", "content": args.system})
        for line in sys.stdin:
            turn = line.rstrip("\n")
            if not turn.strip():
                continue
            messages.append({"role": "user", "content": turn})
            answer = _answer(session.generate(messages=messages, stream=True, **options))
            messages.append({"role": "assistant", "content": answer})
        return 0
    except AbiError as error:
        raise UsageError(str(error)) from None
    except ImportError as error:
        raise UsageError(str(error)) from None


def _answer(stream: Any) -> str:
    """Write the pieces of ``stream`` to stdout as they come, then a newline; a note on
    stderr when the cache ended the answer."""
    pieces: list[str] = []
    for piece in stream:
        pieces.append(piece)
        output.write_stdout(partial(_write, piece))  # (flushed)
    output.write_stdout(partial(_write, "\n"))
    if stream.finish_reason == "cache":
        output.write_stderr(f"{PROG}: note: the answer stopped at the end of the model's cache")
    return "".join(pieces)


def _write(text: str, stream: Any) -> None:
    stream.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is a message on stderr and exit status 1."""
    return status.finish(PROG, lambda: run(argv))


def console() -> None:
    """The `abi-generate` console entry point."""
    status.run_console(main)


if __name__ == "__main__":
    console()
