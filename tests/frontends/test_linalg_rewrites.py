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
    without_activation_hints,
)
from abi_compiler.frontends.linalg_rewrites import (  # noqa: E402
    DATA_TILING_HINT,
    MIN_HINTED_ROWS,
    MIN_HINTED_WEIGHT,
    hint_activation_products,
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


# A prompt's attention (scores of a dynamic number of rows and keys, then their product by
# the values), a `linear`'s weight, a decode step's 2 rows by its keys, an integer product,
# and 16 static rows by dynamic columns.
ACTIVATIONS = """
func.func @main(%q: tensor<2x?x64xf32>, %k: tensor<2x64x?xf32>, %v: tensor<2x?x64xf32>,
                %x: tensor<1x?x64xf32>, %w: tensor<1x64x64xf32>, %d: tensor<2x2x64xf32>,
                %i: tensor<?x8xi32>, %j: tensor<8x?xi32>, %s: tensor<16x8xf32>,
                %t: tensor<8x?xf32>)
    -> (tensor<2x?x64xf32>, tensor<1x?x64xf32>, tensor<2x2x?xf32>, tensor<?x?xi32>,
        tensor<16x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %m = tensor.dim %q, %c1 : tensor<2x?x64xf32>
  %n = tensor.dim %k, %c2 : tensor<2x64x?xf32>
  %e0 = tensor.empty(%m, %n) : tensor<2x?x?xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %scores = linalg.batch_matmul ins(%q, %k : tensor<2x?x64xf32>, tensor<2x64x?xf32>)
              outs(%f0 : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %e1 = tensor.empty(%m) : tensor<2x?x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x?x64xf32>) -> tensor<2x?x64xf32>
  %out = linalg.batch_matmul ins(%scores, %v : tensor<2x?x?xf32>, tensor<2x?x64xf32>)
           outs(%f1 : tensor<2x?x64xf32>) -> tensor<2x?x64xf32>
  %r = tensor.dim %x, %c1 : tensor<1x?x64xf32>
  %e2 = tensor.empty(%r) : tensor<1x?x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  %lin = linalg.batch_matmul ins(%x, %w : tensor<1x?x64xf32>, tensor<1x64x64xf32>)
           outs(%f2 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  %e3 = tensor.empty(%n) : tensor<2x2x?xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x2x?xf32>) -> tensor<2x2x?xf32>
  %step = linalg.batch_matmul ins(%d, %k : tensor<2x2x64xf32>, tensor<2x64x?xf32>)
            outs(%f3 : tensor<2x2x?xf32>) -> tensor<2x2x?xf32>
  %ri = tensor.dim %i, %c0 : tensor<?x8xi32>
  %ci = tensor.dim %j, %c1 : tensor<8x?xi32>
  %e4 = tensor.empty(%ri, %ci) : tensor<?x?xi32>
  %f4 = linalg.fill ins(%izero : i32) outs(%e4 : tensor<?x?xi32>) -> tensor<?x?xi32>
  %int = linalg.matmul ins(%i, %j : tensor<?x8xi32>, tensor<8x?xi32>)
           outs(%f4 : tensor<?x?xi32>) -> tensor<?x?xi32>
  %ct = tensor.dim %t, %c1 : tensor<8x?xf32>
  %e5 = tensor.empty(%ct) : tensor<16x?xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<16x?xf32>) -> tensor<16x?xf32>
  %wide = linalg.matmul ins(%s, %t : tensor<16x8xf32>, tensor<8x?xf32>)
            outs(%f5 : tensor<16x?xf32>) -> tensor<16x?xf32>
  return %out, %lin, %step, %int, %wide
    : tensor<2x?x64xf32>, tensor<1x?x64xf32>, tensor<2x2x?xf32>, tensor<?x?xi32>,
      tensor<16x?xf32>
}
"""


# What the attention of `ACTIVATIONS` becomes (after its fills): the scores' operands
# behind barriers, the scores behind theirs, which the values' product then takes.
ATTENTION_HINTED = [
    "%c1_1 = arith.constant 1 : index",
    "%dim_2 = tensor.dim %arg0, %c1_1 : tensor<2x?x64xf32>",
    "%2 = iree_tensor_ext.compute_barrier.start %arg0 : tensor<2x?x64xf32>{%dim_2}"
    " -> tensor<2x?x64xf32>",
    "%c2_3 = arith.constant 2 : index",
    "%dim_4 = tensor.dim %arg1, %c2_3 : tensor<2x64x?xf32>",
    "%3 = iree_tensor_ext.compute_barrier.start %arg1 : tensor<2x64x?xf32>{%dim_4}"
    " -> tensor<2x64x?xf32>",
    "%4 = linalg.batch_matmul {abi.activation_product, iree.opt.data_tiling} ins(%2, %3 :"
    " tensor<2x?x64xf32>, tensor<2x64x?xf32>) outs(%1 : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>",
    "%c1_5 = arith.constant 1 : index",
    "%dim_6 = tensor.dim %4, %c1_5 : tensor<2x?x?xf32>",
    "%c2_7 = arith.constant 2 : index",
    "%dim_8 = tensor.dim %4, %c2_7 : tensor<2x?x?xf32>",
    "%5 = iree_tensor_ext.compute_barrier.end %4 : tensor<2x?x?xf32>{%dim_6, %dim_8}"
    " -> tensor<2x?x?xf32>",
    "%6 = tensor.empty(%dim) : tensor<2x?x64xf32>",
    "%7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x?x64xf32>) -> tensor<2x?x64xf32>",
    "%c1_9 = arith.constant 1 : index",
    "%dim_10 = tensor.dim %5, %c1_9 : tensor<2x?x?xf32>",
    "%c2_11 = arith.constant 2 : index",
    "%dim_12 = tensor.dim %5, %c2_11 : tensor<2x?x?xf32>",
    "%8 = iree_tensor_ext.compute_barrier.start %5 : tensor<2x?x?xf32>{%dim_10, %dim_12}"
    " -> tensor<2x?x?xf32>",
    "%c1_13 = arith.constant 1 : index",
    "%dim_14 = tensor.dim %arg2, %c1_13 : tensor<2x?x64xf32>",
    "%9 = iree_tensor_ext.compute_barrier.start %arg2 : tensor<2x?x64xf32>{%dim_14}"
    " -> tensor<2x?x64xf32>",
    "%10 = linalg.batch_matmul {abi.activation_product, iree.opt.data_tiling} ins(%8, %9 :"
    " tensor<2x?x?xf32>, tensor<2x?x64xf32>) outs(%7 : tensor<2x?x64xf32>)"
    " -> tensor<2x?x64xf32>",
    "%c1_15 = arith.constant 1 : index",
    "%dim_16 = tensor.dim %10, %c1_15 : tensor<2x?x64xf32>",
    "%11 = iree_tensor_ext.compute_barrier.end %10 : tensor<2x?x64xf32>{%dim_16}"
    " -> tensor<2x?x64xf32>",
]


def _activations_hinted() -> str:
    from iree.compiler import ir

    with ir.Context():
        module = ir.Module.parse(ACTIVATIONS)
        assert hint_weight_products(module) == 1
        assert hint_activation_products(module) == 3
        assert module.operation.verify()
        return str(module)


def test_the_products_of_two_activations_of_many_rows_are_hinted_behind_barriers() -> None:
    """The attention's two products and the 16 static rows: hinted, marked, each operand
    behind a `compute_barrier.start` and the result behind a `compute_barrier.end`, with
    their dynamic sizes; the weight's product keeps its hint alone, the decode step's 2
    rows and the integer product are left as they are."""
    text = _activations_hinted()
    assert MIN_HINTED_ROWS == 16
    marks = "{abi.activation_product, iree.opt.data_tiling}"
    products = _products(text)
    assert [line.split(" ins(")[0] for line in products] == [
        f"linalg.batch_matmul {marks}",
        f"linalg.batch_matmul {marks}",
        "linalg.batch_matmul {iree.opt.data_tiling}",
        "linalg.batch_matmul",
        "linalg.matmul",
        f"linalg.matmul {marks}",
    ]
    lines = [line.strip() for line in text.splitlines()]
    first = lines.index("%c1_1 = arith.constant 1 : index")
    assert lines[first : first + len(ATTENTION_HINTED)] == ATTENTION_HINTED
    assert text.count("compute_barrier.start") == 6 and text.count("compute_barrier.end") == 3


def test_without_activation_hints_keeps_the_weights_hints() -> None:
    text = _activations_hinted().encode()
    stripped = without_activation_hints(text)
    assert stripped.count(b"{abi.activation_product}") == 3
    assert stripped.count(DATA_TILING_HINT.encode()) == 1
    assert b"linalg.batch_matmul {iree.opt.data_tiling} ins(%arg3, %arg4" in stripped
    assert compile_flags(stripped)[-len(DATA_TILING_FLAGS) :] == DATA_TILING_FLAGS
    # Either order of the entries, and a dictionary with more.
    assert without_activation_hints(
        b"linalg.matmul {iree.opt.data_tiling, abi.activation_product, x = 1} ins("
    ) == (b"linalg.matmul {abi.activation_product, x = 1} ins(")


# A weight's product (data-tiled) and a prompt's product of two activations, the module as
# the torch frontend hints it; the compile of the latter's hint is made to fail below.
MIXED = """
func.func @main(%x: tensor<?x256xf32>, %y: tensor<256x?xf32>)
    -> (tensor<?x512xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = arith.constant dense<WEIGHT> : tensor<256x512xf32>
  %m = tensor.dim %x, %c0 : tensor<?x256xf32>
  %n = tensor.dim %y, %c1 : tensor<256x?xf32>
  %zero = arith.constant 0.0 : f32
  %o = tensor.empty(%m) : tensor<?x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<?x512xf32>) -> tensor<?x512xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x256xf32>, tensor<256x512xf32>)
         outs(%f : tensor<?x512xf32>) -> tensor<?x512xf32>
  %o2 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%o2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.matmul ins(%x, %y : tensor<?x256xf32>, tensor<256x?xf32>)
         outs(%f2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r, %s : tensor<?x512xf32>, tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("weights_fail", [False, True])
def test_a_failing_activation_hint_is_taken_back_before_the_weights(
    monkeypatch: pytest.MonkeyPatch, weights_fail: bool
) -> None:
    """iree-compile made to fail on a module whose products of two activations carry the
    hint: `compile_vmfb` compiles it again without those hints, the weight's product still
    data-tiled (its kernel named as one); where that fails too, with `plain_flags` (every
    product generalized). Either way the values are numpy's."""
    from iree.compiler import ir

    from abi_compiler.calling import compiling
    from abi_compiler.errors import CompileError

    w = (np.arange(256 * 512, dtype=np.float32) % 5 - 2).reshape(256, 512)
    weight = "[" + ",".join("[" + ",".join(f"{v:.1f}" for v in row) + "]" for row in w) + "]"
    with ir.Context():
        module = ir.Module.parse(MIXED.replace("WEIGHT", weight))
        assert (hint_weight_products(module), hint_activation_products(module)) == (1, 1)
        text = str(module)
    compiled: list[bytes] = []
    real = compiling.run_tool

    def failing(command: list[str], source: bytes, stage: str) -> bytes:
        compiled.append(source)
        hinted = b"abi.activation_product, iree.opt.data_tiling" in source
        tiled = "--iree-opt-data-tiling=true" in command
        if tiled and (hinted or weights_fail):
            raise CompileError("iree-compile", "error: made to fail\n")
        return real(command, source, stage)

    monkeypatch.setattr(compiling, "run_tool", failing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        vmfb = abi_iree.compile_vmfb(text, pipeline=None)
    assert len(compiled) == 3 if weights_fail else 2
    assert b"{abi.activation_product}" in compiled[1]
    assert compiled[1].count(DATA_TILING_HINT.encode()) == 1
    module = abi_iree.load(vmfb)
    provenance = module.main.reflection["abi.provenance"]
    if weights_fail:
        assert "--iree-opt-generalize-matmul=true" in provenance
        assert b"matmul_like_Dx512x256_f32" in vmfb
    else:
        assert "--iree-opt-data-tiling=true" in provenance
        assert b"matmul_Dx512x256_f32" in vmfb and b"matmul_like_Dx512x256_f32" not in vmfb
    x = (np.arange(3 * 256, dtype=np.float32) % 7 - 3).reshape(3, 256)
    y = (np.arange(256 * 5, dtype=np.float32) % 3 - 1).reshape(256, 5)
    product, activations = module.main(x, y)
    np.testing.assert_array_equal(product, x @ w)
    np.testing.assert_array_equal(activations, x @ y)


def test_a_prompts_attention_is_data_tiled_with_the_same_logits() -> None:
    """A tiny Llama's prompt program (transformers' recipe, the prompt length dynamic):
    its four attention products are hinted and compiled so in one iree-compile (no
    fallback), and the logits of a 40-token prompt are bitwise those of the module
    compiled without the rule."""
    from unittest import mock

    from tests.generation import fixtures

    fixtures.needs_the_recipe()
    from abi_compiler.calling import compiling
    from abi_compiler.frontends import torch as torch_frontend

    tokenizer = fixtures.train_tokenizer()
    model = fixtures.tiny_llama(tokenizer.get_vocab_size())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = fixtures.export_prompt_recipe(model)
        compiled: list[bytes] = []
        real = compiling.run_tool

        def spy(command: list[str], source: bytes, stage: str) -> bytes:
            compiled.append(source)
            return real(command, source, stage)

        with mock.patch.object(compiling, "run_tool", spy):
            hinted = abi_iree.compile(program, results="numpy")
        with mock.patch.object(torch_frontend, "hint_activation_products", lambda module: 0):
            untiled = abi_iree.compile(program, results="numpy")
    assert len(compiled) == 1
    assert compiled[0].count(b"{abi.activation_product, iree.opt.data_tiling}") == 4
    ids = np.array([[(7 * i + 3) % 300 for i in range(40)]])
    positions = np.arange(40)
    logits = hinted.main(input_ids=ids, cache_position=positions)
    np.testing.assert_array_equal(logits, untiled.main(input_ids=ids, cache_position=positions))
