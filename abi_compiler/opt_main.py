"""`abi-opt`: xDSL's opt driver with abi-compiler's dialects and passes registered."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain


def register_dialects(ctx) -> None:  # type: ignore[no-untyped-def]
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.tensor import Tensor

    from abi_compiler.dialects.abi import Abi
    from abi_compiler.dialects.hal import Hal
    from abi_compiler.dialects.iree import Iree
    from abi_compiler.dialects.tf_saved_model import TfSavedModel
    from abi_compiler.dialects.util import Util

    for dialect in (Builtin, Func, Arith, Tensor, Util, Iree, Abi, Hal, TfSavedModel):
        ctx.load_dialect(dialect)


class AbiOptMain(xDSLOptMain):
    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_passes(self) -> None:
        from abi_compiler.passes.registry import pass_factories

        for name, factory in pass_factories().items():
            self.register_pass(name, factory)


def main(argv: Sequence[str] | None = None) -> int:
    AbiOptMain(description="abi-compiler's opt driver", args=argv).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
