// `abi-sig stub`: a typed Python module for a module's functions, read from their original
// call (`abi.call`): a dataclass and a namedtuple of the recorded names (in TYPES, which
// load() passes as types=), string-keyed dicts as TypedDicts (the functional form for a key
// that is not an identifier), an int-keyed dict as dict[int, …], a class whose field is not
// an identifier as Any, an array argument as whatever the call takes (ArrayLike; a result
// or a recorded class's field as NDArray of its dtype), a specialized constant as a
// Literal, positional parameters before / and keywords after *, and a CompiledSession of
// the same functions that session() returns. Read from standard input, load() has no
// default path.
// RUN: abi-opt -p iree-abi-v1 %s | abi-sig stub - | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-opt -p iree-abi-v1 %s -o %t.mlir
// RUN: abi-sig stub %t.mlir -o %t.py
// RUN: filecheck %s --match-full-lines --strict-whitespace --check-prefix=FILE --input-file=%t.py
// FILE:def load(path: str | os.PathLike[str], **options: Any) -> CompiledModule:
// The output is never the input:
// RUN: not abi-sig stub %t.mlir -o %t.mlir 2>&1 | filecheck %s --check-prefix=SAME
// SAME:abi-sig: error: the output '{{.*}}.mlir' is the input
// RUN: not abi-sig stub %t.missing 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING:abi-sig: error: could not open input file '{{.*}}.missing': No such file or directory

// CHECK:"""Typed API of the compiled module '<stdin>'.
// CHECK-EMPTY:
// CHECK-NEXT:Written by `abi-sig stub` (abi-compiler {{.*}}); write it anew when the
// CHECK-NEXT:module changes. `load()` loads the module with `abi_compiler.iree.load`: every
// CHECK-NEXT:function takes and returns what the model's framework did, with numpy arrays
// CHECK-NEXT:for arrays and this module's classes for the recorded namedtuples and
// CHECK-NEXT:dataclasses."""
// CHECK-EMPTY:
// CHECK-NEXT:from __future__ import annotations
// CHECK-EMPTY:
// CHECK-NEXT:import dataclasses
// CHECK-NEXT:import os
// CHECK-NEXT:from collections.abc import KeysView
// CHECK-NEXT:from typing import Any, Literal, NamedTuple, Protocol, TypedDict, cast
// CHECK-EMPTY:
// CHECK-NEXT:import numpy
// CHECK-NEXT:import numpy.typing
// CHECK-EMPTY:
// CHECK-NEXT:__all__ = ['Params', 'TrainState', 'Aux', 'Out', 'CompiledModule', 'CompiledSession', 'load']
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:class Params(TypedDict):
// CHECK-NEXT:    w: numpy.typing.NDArray[numpy.float32]
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:@dataclasses.dataclass(frozen=True)
// CHECK-NEXT:class TrainState:
// CHECK-NEXT:    step: numpy.typing.NDArray[numpy.int32]
// CHECK-NEXT:    params: Params
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:Aux = TypedDict('Aux', {'a-b': numpy.typing.NDArray[numpy.float32], 'c': None})
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:class Out(NamedTuple):
// CHECK-NEXT:    loss: numpy.typing.NDArray[numpy.float32]
// CHECK-NEXT:    aux: Aux
// CHECK-NEXT:    extra: Any
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:class CompiledSession(Protocol):
// CHECK-NEXT:    """The functions of '<stdin>' with state of their own (`session()`)."""
// CHECK-EMPTY:
// CHECK-NEXT:    def step(
// CHECK-NEXT:        self,
// CHECK-NEXT:        state: TrainState,
// CHECK-NEXT:        batch: dict[int, numpy.typing.ArrayLike],
// CHECK-NEXT:        /,
// CHECK-NEXT:        *,
// CHECK-NEXT:        lr: numpy.typing.ArrayLike,
// CHECK-NEXT:        mode: Literal['greedy'],
// CHECK-NEXT:    ) -> Out: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def reset(self) -> None: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def close(self) -> None: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def __enter__(self) -> CompiledSession: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def __exit__(self, *exc: object) -> None: ...
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:class CompiledModule(Protocol):
// CHECK-NEXT:    """The functions of '<stdin>'."""
// CHECK-EMPTY:
// CHECK-NEXT:    def step(
// CHECK-NEXT:        self,
// CHECK-NEXT:        state: TrainState,
// CHECK-NEXT:        batch: dict[int, numpy.typing.ArrayLike],
// CHECK-NEXT:        /,
// CHECK-NEXT:        *,
// CHECK-NEXT:        lr: numpy.typing.ArrayLike,
// CHECK-NEXT:        mode: Literal['greedy'],
// CHECK-NEXT:    ) -> Out: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def session(self) -> CompiledSession: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def close(self) -> None: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def __enter__(self) -> CompiledModule: ...
// CHECK-EMPTY:
// CHECK-NEXT:    def __exit__(self, *exc: object) -> None: ...
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:# The recorded class names and the classes above that results are built as.
// CHECK-NEXT:TYPES: dict[str, type] = {
// CHECK-NEXT:    'flax.training.train_state.TrainState': TrainState,
// CHECK-NEXT:    'Out': Out,
// CHECK-NEXT:}
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT:def load(path: str | os.PathLike[str], **options: Any) -> CompiledModule:
// CHECK-NEXT:    """Load the module (`abi_compiler.iree.load`; its options are taken as they
// CHECK-NEXT:    are, with ``types=TYPES`` and ``results="numpy"`` unless given)."""
// CHECK-NEXT:    from abi_compiler import iree
// CHECK-EMPTY:
// CHECK-NEXT:    options.setdefault('types', TYPES)
// CHECK-NEXT:    options.setdefault('results', 'numpy')
// CHECK-NEXT:    return cast('CompiledModule', iree.load(path, **options))
// CHECK-NOT:{{.}}

func.func @step(%arg0: tensor<i32>, %arg1: tensor<4xf32>, %arg2: tensor<?x2xbf16>, %arg3: tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<3xi64>) attributes {iree.reflection = {abi.call = "{\22args\22:[{\22c\22:[{\22dims\22:[],\22dtype\22:\22int32\22,\22i\22:0,\22t\22:\22array\22},{\22c\22:[{\22dims\22:[4],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}],\22k\22:[\22w\22],\22t\22:\22dict\22}],\22k\22:[\22step\22,\22params\22],\22name\22:\22flax.training.train_state.TrainState\22,\22t\22:\22dataclass\22},{\22c\22:[{\22dims\22:[\22b\22,2],\22dtype\22:\22bfloat16\22,\22i\22:2,\22t\22:\22array\22}],\22k\22:[7],\22t\22:\22dict\22}],\22kwargs\22:[[\22lr\22,{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:3,\22t\22:\22array\22}],[\22mode\22,{\22t\22:\22const\22,\22type\22:\22str\22,\22value\22:\22greedy\22}]],\22labels\22:[\22state\22,\22batch\22],\22result\22:{\22c\22:[{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22c\22:[{\22dims\22:[2],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22},{\22t\22:\22none\22}],\22k\22:[\22a-b\22,\22c\22],\22t\22:\22dict\22},{\22c\22:[{\22dims\22:[3],\22dtype\22:\22int64\22,\22i\22:2,\22t\22:\22array\22}],\22k\22:[\22x y\22],\22name\22:\22odd.Thing\22,\22t\22:\22dataclass\22}],\22k\22:[\22loss\22,\22aux\22,\22extra\22],\22name\22:\22Out\22,\22t\22:\22namedtuple\22},\22symbols\22:[[\22b\22,1,null]],\22v\22:1}"}} {
  %0 = arith.constant dense<0> : tensor<3xi64>
  %1 = arith.constant dense<1.0> : tensor<2xf32>
  func.return %arg3, %1, %0 : tensor<f32>, tensor<2xf32>, tensor<3xi64>
}
