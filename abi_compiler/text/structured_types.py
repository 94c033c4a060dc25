"""Which types and ops are structured to the passes, as the text readers see them: the one
table carried text asks (`carry`: whether a function's signature or body makes a pass
rewrite it). The IR side decides the same from types (`passes/structure.py`)."""

from __future__ import annotations

#: The builtin type with a structure (`tuple<…>`).
STRUCTURED_BUILTIN_TYPE = "tuple"
#: Dialect types a lowering pass rewrites: `!abi.dict` is a structure, the legacy
#: `!iree.list` becomes `!util.list`.
STRUCTURED_DIALECT_TYPES = ("!abi.dict", "!iree.list")
#: Any type of the `abi` dialect (in a body, one of its types means structured values).
ABI_TYPE_PREFIX = "!abi."
#: Element types that make a tensor an ND-array of references (docs/spec.md §8.3).
REFERENCE_TYPES = frozenset(("!util.list", "!iree.list"))
#: The ops that build and take apart structured values.
STRUCTURED_OP_PREFIXES = ("abi.tuple.", "abi.dict.", "abi.ref_array.")
