"""Text in, text out from a compiled language model: the generation loop above a loaded
module (`abi_compiler.calling`), driven by the job the module records (`abi.generation`,
`abi.tokenizer`: docs/formats.md) — no per-architecture code, no side file, no torch or
transformers (the tokenizer runs with the `tokenizers` package: the `[generate]` extra).

    module = abi_iree.load("model.vmfb")
    module.generate("The capital of France is", max_new_tokens=16)
    for piece in module.generate(messages=[{"role": "user", "content": "Hi"}], stream=True):
        print(piece, end="", flush=True)

`generate(module_or_session, …)` is what `Module.generate` and `Session.generate` call
(`abi_compiler.calling.sessions.generate_text`: the caller's side tells a session from a
module, and hands the loop, `loop.generate_on`, both; docs/calling.md, "Generating
text").
"""

from __future__ import annotations

from abi_compiler.calling.sessions import generate_text as generate
from abi_compiler.generation.job import GenerationJob
from abi_compiler.generation.loop import (
    FinishReason,
    GeneratedText,
    GeneratedTokens,
    GenerationStream,
)
from abi_compiler.generation.sampling import Sampling, distribution, next_token

__all__ = [
    "FinishReason",
    "GeneratedText",
    "GeneratedTokens",
    "GenerationJob",
    "GenerationStream",
    "Sampling",
    "distribution",
    "generate",
    "next_token",
]
