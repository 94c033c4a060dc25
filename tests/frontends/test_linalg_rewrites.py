"""The torch frontend's data-tiling hints on the linalg module it hands iree-compile
(`abi_compiler.frontends.linalg_rewrites`), and the flags a hinted module is compiled with
(`abi_compiler.calling.compiling.compile_flags`; docs/calling.md, "Compiler flags")."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from tests.calling.conftest import needs_iree

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.calling.compiling import (  # noqa: E402
    COMPILE_FLAGS,
    DATA_TILING_FLAGS,
    compile_flags,
)
from abi_compiler.frontends.linalg_rewrites import (  # noqa: E402
    DATA_TILING_HINT,
    MIN_HINTED_WEIGHT,
    hint_weight_products,
)

# Five products: a weight's (static [K, N], 32 x 32) for a dynamic number of rows, and for
# one row (batched); two activations' (the right-hand side dynamic); mixed element types; a
# weight of 8 x 4, below `MIN_HINTED_WEIGHT`.
PRODUCTS = """
func.func @main(%x: tensor<?x32xf32>, %w: tensor<32x32xf32>, %r: tensor<1x1x32xf32>,
                %b: tensor<1x32x32xf32>, %k: tensor<?x8xf32>, %v: tensor<8x?xf32>,
                %h: tensor<2x32xf16>, %g: tensor<32x32xf16>, %s: tensor<8x4xf32>)
    -> (tensor<?x32xf32>, tensor<1x1x32xf32>, tensor<?x?xf32>, tensor<2x32xf32>,
        tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x32xf32>
  %e0 = tensor.empty(%m) : tensor<?x32xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p0 = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x32xf32>)
          outs(%f0 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %e1 = tensor.empty() : tensor<1x1x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
  %p1 = linalg.batch_matmul ins(%r, %b : tensor<1x1x32xf32>, tensor<1x32x32xf32>)
          outs(%f1 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
  %n = tensor.dim %v, %c1 : tensor<8x?xf32>
  %mk = tensor.dim %k, %c0 : tensor<?x8xf32>
  %e2 = tensor.empty(%mk, %n) : tensor<?x?xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %p2 = linalg.matmul ins(%k, %v : tensor<?x8xf32>, tensor<8x?xf32>)
          outs(%f2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %e3 = tensor.empty() : tensor<2x32xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x32xf32>) -> tensor<2x32xf32>
  %p3 = linalg.matmul ins(%h, %g : tensor<2x32xf16>, tensor<32x32xf16>)
          outs(%f3 : tensor<2x32xf32>) -> tensor<2x32xf32>
  %e4 = tensor.empty(%mk) : tensor<?x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %p4 = linalg.matmul ins(%k, %s : tensor<?x8xf32>, tensor<8x4xf32>)
          outs(%f4 : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %p0, %p1, %p2, %p3, %p4
    : tensor<?x32xf32>, tensor<1x1x32xf32>, tensor<?x?xf32>, tensor<2x32xf32>, tensor<?x4xf32>
}
"""


def _products(text: str) -> list[str]:
    return re.findall(r"linalg\.(?:batch_)?matmul[^\n]*", text)


def test_the_products_of_a_weight_are_hinted() -> None:
    from iree.compiler import ir

    with ir.Context():
        module = ir.Module.parse(PRODUCTS)
        assert hint_weight_products(module) == 2
        text = str(module)
    products = _products(text)
    assert len(products) == 5
    hinted = [DATA_TILING_HINT in line for line in products]
    assert hinted == [True, True, False, False, False]
    assert MIN_HINTED_WEIGHT == 32 * 32
    assert products[0].startswith("linalg.matmul {iree.opt.data_tiling} ins(%arg0, %arg1")
    assert products[1].startswith("linalg.batch_matmul {iree.opt.data_tiling} ins(%arg2, %arg3")


def test_a_hinted_module_is_data_tiled_not_generalized() -> None:
    generalize = "--iree-opt-generalize-matmul=true"
    assert generalize in COMPILE_FLAGS
    assert not set(DATA_TILING_FLAGS) & set(COMPILE_FLAGS)
    assert compile_flags(b"linalg.matmul ins(") == COMPILE_FLAGS
    hinted = compile_flags(b"linalg.matmul {iree.opt.data_tiling} ins(")
    assert hinted == (*(flag for flag in COMPILE_FLAGS if flag != generalize), *DATA_TILING_FLAGS)
    assert DATA_TILING_FLAGS == (
        "--iree-opt-generalize-matmul=false",
        "--iree-opt-data-tiling=true",
    )


# A `linear` of a dynamic number of rows, its weight a constant [K, N].
LINEAR = """
func.func @main(%x: tensor<?x256xf32>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<WEIGHT> : tensor<256x512xf32>
  %m = tensor.dim %x, %c0 : tensor<?x256xf32>
  %zero = arith.constant 0.0 : f32
  %o = tensor.empty(%m) : tensor<?x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<?x512xf32>) -> tensor<?x512xf32>
  %r = linalg.matmul HINT ins(%x, %w : tensor<?x256xf32>, tensor<256x512xf32>)
         outs(%f : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}
"""


O2 = ("--iree-opt-level=O2", "--iree-opt-strip-assertions=false")


@pytest.mark.parametrize(
    ("hint", "extra", "kernel", "flag"),
    [
        ("{iree.opt.data_tiling}", (), b"matmul_Dx512x256_f32", "--iree-opt-data-tiling=true"),
        # -O2 generalizes by default: not a product whose hint is on.
        ("{iree.opt.data_tiling}", O2, b"matmul_Dx512x256_f32", "--iree-opt-data-tiling=true"),
        ("", (), b"matmul_like_Dx512x256_f32", "--iree-opt-generalize-matmul=true"),
    ],
)
def test_a_hinted_product_compiles_with_its_values(
    hint: str, extra: tuple[str, ...], kernel: bytes, flag: str
) -> None:
    """The hinted product stays a named matmul (generalized, it would lose its hint) and
    gives the same values: small integers, so every sum is exact in float32."""
    w = (np.arange(256 * 512, dtype=np.float32) % 5 - 2).reshape(256, 512)
    weight = "[" + ",".join("[" + ",".join(f"{v:.1f}" for v in row) + "]" for row in w) + "]"
    text = LINEAR.replace("WEIGHT", weight).replace("HINT", hint)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        vmfb = abi_iree.compile_vmfb(text, extra_args=extra)
    assert kernel in vmfb
    module = abi_iree.load(vmfb)
    assert flag in module.main.reflection["abi.provenance"]
    x = (np.arange(3 * 256, dtype=np.float32) % 7 - 3).reshape(3, 256)
    np.testing.assert_array_equal(module.main(x), x @ w)


def test_the_torch_frontend_hints_a_linear_not_a_dynamic_or_small_product() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    from abi_compiler.frontends import program

    class Both(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(32, 32, bias=False)
            self.small = torch.nn.Linear(32, 4, bias=False)  # 128 elements: not hinted

        def forward(
            self, x: torch.Tensor, y: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return self.linear(x), torch.bmm(x, y), self.small(x)

    # The columns of ``y`` dynamic (as a prompt's keys are): its product is not hinted.
    columns = torch.export.Dim("columns", min=2, max=64)
    exported = torch.export.export(
        Both(),
        (torch.ones(1, 3, 32), torch.ones(1, 32, 5)),
        dynamic_shapes=(None, {2: columns}),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        products = _products(program(exported).mlir)
    assert sorted(DATA_TILING_HINT in line for line in products) == [False, False, True]


def test_a_module_data_tiling_cannot_compile_is_compiled_as_before() -> None:
    """A `linear` whose result a bool `where` takes: IREE 3.13's data tiling fails on it
    (`linalg.pack` refuses the mask's padding), so the module is compiled again with
    `COMPILE_FLAGS`, which its provenance records, and gives torch's values."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")

    class Masked(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(32, 32)

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return torch.where(mask, self.linear(x), 0.0)

    torch.manual_seed(0)
    model = Masked().eval()
    x, mask = torch.linspace(-1.0, 1.0, 64).reshape(2, 32), torch.arange(32) % 3 == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = abi_iree.compile(torch.export.export(model, (x, mask)), results="numpy")
    assert "--iree-opt-generalize-matmul=true" in module.main.reflection["abi.provenance"]
    with torch.no_grad():
        np.testing.assert_allclose(module.main(x, mask), model(x, mask).numpy(), rtol=1e-6)
