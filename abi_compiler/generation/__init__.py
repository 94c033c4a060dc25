"""Text in, text out from a compiled language model: the generation loop above a loaded
module (`abi_compiler.calling`), driven by the job the module records (`abi.generation`,
`abi.tokenizer`: docs/formats.md) — no per-architecture code, no side file, no torch or
transformers (the tokenizer runs with the `tokenizers` package: the `[generate]` extra).

    module = abi_iree.load("model.vmfb")
    module.generate("The capital of France is", max_new_tokens=16)
    for piece in module.generate(messages=[{"role": "user", "content": "Hi"}], stream=True):
        print(piece, end="", flush=True)

`Module.generate` and `Session.generate` call `generate` here (docs/calling.md,
"Generating text").
"""

from __future__ import annotations

from abi_compiler.generation.job import GenerationJob
from abi_compiler.generation.loop import (
    FinishReason,
    GeneratedText,
    GeneratedTokens,
    GenerationStream,
    generate,
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
