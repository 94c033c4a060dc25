"""The names of the attributes the ABI is read from and written as, and of the entries of a
function's reflection (docs/spec.md §2 to §7): the one home of these spellings, for the passes and
dialects, for the frontends that write them with MLIR's own Python bindings, and for the
runtime side (`abi_compiler.iree`, `abi_compiler.signatures.module_signatures`) that reads them from
a compiled module. No imports: importing it loads nothing.
"""

from __future__ import annotations

from typing import Final

# -- IREE's function attributes (docs/spec.md §2, §7), which no dialect here declares ---------------

#: The dictionary of reflection entries IREE copies into the compiled module.
REFLECTION: Final = "iree.reflection"
#: The V1 JSON signature (docs/spec.md §4), an entry of `iree.reflection` (or, as a frontend
#: writes it, a function attribute of its own that the pipeline moves there).
IREE_ABI: Final = "iree.abi"
#: The original call of a framework's function (docs/formats.md), an entry of
#: `iree.reflection` beside `iree.abi`, written by the frontends.
ABI_CALL: Final = "abi.call"
#: How a compiled module was made (docs/formats.md), an entry of `iree.reflection` on every
#: exported function, written by `compile_vmfb` just before iree-compile.
ABI_PROVENANCE: Final = "abi.provenance"
#: The file name of the parameter archive a module reads its weights from, beside it
#: (docs/formats.md), an entry of `iree.reflection` written by `abi-compile --parameters`.
ABI_PARAMETERS: Final = "abi.parameters"
#: The module state (mutable globals) a function reads or writes (docs/formats.md), an
#: entry of `iree.reflection` written by `compile_vmfb` just before iree-compile.
ABI_STATE: Final = "abi.state"
#: A language model's generation job (docs/formats.md): which arguments take the token ids
#: and positions, the cache length, end-of-sequence ids, defaults; an entry of
#: `iree.reflection` written by `compile_vmfb(…, tokenizer=…)` just before iree-compile.
ABI_GENERATION: Final = "abi.generation"
#: The tokenizer's `tokenizer.json`, verbatim, beside `abi.generation`.
ABI_TOKENIZER: Final = "abi.tokenizer"
#: Exports a function that is not public.
MODULE_EXPORT: Final = "iree.module.export"
#: Keeps a function out of the ABI (not exported).
ABI_NONE: Final = "iree.abi.none"
#: Marks a function whose ABI is already the one IREE calls (a wrapper).
ABI_STUB: Final = "iree.abi.stub"
#: On an argument: the index of the result whose value is stored into the argument's
#: buffer (IREE's native ABI; `wrap-entry-points` writes the `hal.tensor.alias`).
ABI_OUTPUT: Final = "iree.abi.output"
#: IREE's own declaration of a function it gave its ABI (a compiled module's reflection).
ABI_DECLARATION: Final = "iree.abi.declaration"

# -- Legacy reflection entries (docs/spec.md §5, §6) ------------------------------------------------

#: The raw (flat) signature, and its version entry.
RAW: Final = "f"
RAW_VERSION: Final = "fv"
#: The structured index path signature, its version entry, and the entry naming its ABI.
SIP: Final = "sip"
SIP_VERSION: Final = "sipv"
SIP_ABI: Final = "abi"

#: The values the version entries hold.
RAW_VERSION_VALUE: Final = "1"
SIP_VERSION_VALUE: Final = "1"
SIP_ABI_VALUE: Final = "sip"

#: The entries each legacy pass writes: `materialize-raw-abi`, `materialize-sip-abi`.
RAW_KEYS: Final = (RAW, RAW_VERSION)
SIP_KEYS: Final = (SIP_ABI, SIP, SIP_VERSION)

# -- This project's argument and result attributes (the `abi` dialect, docs/spec.md §3) ------------

ABI_INDEX_PATH: Final = "abi.index_path"
ABI_NAME: Final = "abi.name"

# -- JAX's (docs/spec.md §3.2, §3.3) ----------------------------------------------------------------

JAX_ARG_INFO: Final = "jax.arg_info"
JAX_RESULT_INFO: Final = "jax.result_info"
JAX_GLOBAL_CONSTANT: Final = "jax.global_constant"
JAX_TOKEN: Final = "jax.token"
#: JAX's donation of an argument's buffer to a result (`donate_argnums`), as XLA reads it.
ALIASING_OUTPUT: Final = "tf.aliasing_output"

# -- TensorFlow saved models (the `tf_saved_model` dialect, docs/spec.md §3.2) ---------------------

TF_INDEX_PATH: Final = "tf_saved_model.index_path"
TF_EXPORTED_NAMES: Final = "tf_saved_model.exported_names"
TF_SEMANTICS: Final = "tf_saved_model.semantics"
TF_BOUND_INPUT: Final = "tf_saved_model.bound_input"

# -- Named parameters ---------------------------------------------------------------------------

#: The scope of the parameters a frontend leaves out of the text, which a module reads as
#: `#flow.parameter.named<"model"::"<name>">` and `load` provides (docs/calling.md, "Big weights").
PARAMETER_SCOPE: Final = "model"
