"""A measured prototype: what an optional native path would cost.

IREE's compiler package ships MLIR's Python bindings (`iree.compiler.ir`): parsing and
printing in C++. The prototype reads a module through them, builds the ABI model of every
exported function from the native types' text (`TypeReader`, falling back to xDSL's
parser), writes `iree.reflection = {iree.abi = …}` through the bindings and prints the
module natively: what `abi-opt -p materialize-iree-abi` does, without xDSL's parser and
printer. It does not lower structured signatures (wrappers and flattened bodies would
need the rewrite through the bindings too); it checks that its JSON is the pipeline's.

Every figure is a ratio of CPU seconds (`time.process_time`) measured in this process,
the commands interleaved round by round, median of ``--repeat``:

* native floor: parse and print through the bindings alone (what `iree-opt` does);
* prototype: the same plus the ABI model and the reflection;
* `abi_compiler.run_pipeline(text, "materialize-iree-abi")`: the pipeline today.

    python bench/native_prototype.py [--functions 1000,10000] [--repeat 3]

Needs `iree-base-compiler` (the `iree` extra). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import iree.compiler.ir as ir
from bench_native import structured_module
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Region
from xdsl.parser import Parser

import abi_compiler
from abi_compiler.attribute_names import IREE_ABI, REFLECTION
from abi_compiler.passes.materialize import iree_abi_json
from abi_compiler.pipeline.dialects import context
from abi_compiler.text_to_ir.type_reader import TypeReader


class Model:
    """Native types' text to xDSL attributes: the type reader, else xDSL's parser."""

    def __init__(self) -> None:
        self.ctx = context(allow_unregistered=True)
        self.reader = TypeReader(self.ctx)

    def type(self, text: str) -> Attribute:
        found = self.reader.read_type(text)
        return found if found is not None else Parser(self.ctx, text).parse_type()

    def dictionary(self, text: str) -> DictionaryAttr:
        entries = self.reader.read_dictionary(text)
        if entries is not None:
            return DictionaryAttr(entries)
        parsed = Parser(self.ctx, text).parse_attribute()
        assert isinstance(parsed, DictionaryAttr)
        return parsed


def native_floor(text: str) -> str:
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ir.Module.parse(text, ctx).operation.get_asm()


def prototype(text: str) -> tuple[str, list[str]]:
    model = Model()
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    module = ir.Module.parse(text, ctx)
    written = []
    with ctx:
        for op in module.body.operations:
            operation = op.operation
            if operation.name != "func.func":
                continue
            attrs = operation.attributes
            if "sym_visibility" in attrs:
                continue
            function_type = ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value)
            arg_attrs = (
                ArrayAttr([model.dictionary(str(d)) for d in ir.ArrayAttr(attrs["arg_attrs"])])
                if "arg_attrs" in attrs
                else None
            )
            res_attrs = (
                ArrayAttr([model.dictionary(str(d)) for d in ir.ArrayAttr(attrs["res_attrs"])])
                if "res_attrs" in attrs
                else None
            )
            func = FuncOp(
                ir.StringAttr(attrs["sym_name"]).value,
                FunctionType.from_lists(
                    [model.type(str(t)) for t in function_type.inputs],
                    [model.type(str(t)) for t in function_type.results],
                ),
                Region(),
                arg_attrs=arg_attrs,
                res_attrs=res_attrs,
            )
            abi = iree_abi_json(func)
            written.append(abi)
            attrs[REFLECTION] = ir.DictAttr.get({IREE_ABI: ir.StringAttr.get(abi)})
        return module.operation.get_asm(), written


def pipeline(text: str) -> str:
    return abi_compiler.run_pipeline(text, "materialize-iree-abi")


def cpu(call: Callable[[str], object], text: str) -> float:
    start = time.process_time()
    call(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"# native prototype, Python {sys.version.split()[0]}, load {os.getloadavg()}")
    for count in (int(n) for n in args.functions.split(",")):
        text = structured_module(count, 2025)
        # The JSON the prototype writes is the pipeline's, function by function.
        _, written = prototype(text)
        ours = pipeline(text)
        assert all(json_text.replace('"', "\\22") in ours for json_text in written[:50])
        times: dict[str, list[float]] = {"native floor": [], "prototype": [], "pipeline": []}
        for _ in range(args.repeat):
            times["native floor"].append(cpu(native_floor, text))
            times["prototype"].append(cpu(prototype, text))
            times["pipeline"].append(cpu(pipeline, text))
        median = {name: statistics.median(values) for name, values in times.items()}
        floor = median["native floor"]
        print(f"## {count} structured functions, materialize-iree-abi")
        for name, value in median.items():
            print(f"  {name:<14} {value:7.3f} s cpu  {value / floor:7.2f}x native floor")
        print(f"  pipeline / prototype = {median['pipeline'] / median['prototype']:.2f}")


if __name__ == "__main__":
    main()
