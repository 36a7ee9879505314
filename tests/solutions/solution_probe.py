"""Loads KernelBench solution files written by `kaudit export-mutants` on a machine without a GPU:
load_inline and the extension's operator are stand-ins that record what the solution asks of them.
Prints, as JSON, the library it builds, the switch it sets, and what its forward passes to the
entry: each tensor as "input:I" (the very object the harness passed), "param:NAME" (equal to the
Model's parameter or buffer NAME, the Model built under the same seed), or "other".

usage: solution_probe.py SOLUTION PROBLEM INIT_JSON SHAPES_JSON   (a number instead of a shape: that number)
       solution_probe.py --batch CASES_JSON   (a list of {solution, problem, init, inputs: [{shape,
                                               dtype}]}; prints a list of results, an "error" for
                                               a case that raised)
"""
import json
import re
import sys
import types

import torch
import torch.utils.cpp_extension as cpp_extension

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "int64": torch.int64,
          "bool": torch.bool}


class Op:
    def __init__(self, seen):
        self.seen = seen

    def set_mutant(self, m):
        self.seen["switch"] = int(m)

    def entry(self, tensors, values, kinds):
        self.seen["entry"] = (tensors, values, kinds)
        return [torch.zeros(1)]


def probe(solution, problem, init, inputs):
    seen = {}
    source = open(solution).read()
    lib = re.search(r'^_LIB = "([^"]+)"', source, re.M).group(1)
    cpp_extension.load_inline = lambda **kw: seen.setdefault("built", kw["name"])
    torch.ops = types.SimpleNamespace(**{lib: Op(seen)})
    ns = {"__name__": "solution"}
    exec(compile(source, solution, "exec"), ns)
    pns = {"__name__": "problem"}
    exec(compile(open(problem).read(), problem, "exec"), pns)
    torch.manual_seed(42)
    reference = pns["Model"](*init)
    torch.manual_seed(42)
    model_new = ns["ModelNew"](*init)
    model_new(*inputs)
    named = dict(reference.named_parameters())
    named.update(dict(reference.named_buffers()))
    own = dict(model_new.reference.named_parameters())  # ModelNew's own Model: the name by identity
    own.update(dict(model_new.reference.named_buffers()))
    tensors, values, kinds = seen["entry"]
    described = []
    for t in tensors:
        if t is None:
            described.append(None)
        elif any(t is x for x in inputs):
            described.append("input:%d" % next(i for i, x in enumerate(inputs) if t is x))
        else:
            name = next((n for n, p in own.items() if p is t), None)
            if name is None:
                described.append("other")
            else:  # ... and equal to the harness's Model's (the same seed drew it)
                same = name in named and torch.equal(named[name], t)
                described.append("param:" + name if same else "param:" + name + " (not the Model's)")
    return {"built": seen.get("built"), "lib": lib, "switch": seen.get("switch"), "tensors": described,
            "values": values, "kinds": kinds}


def main():
    if sys.argv[1] == "--batch":
        results = []
        for case in json.load(open(sys.argv[2])):
            inputs = [torch.rand(*i["shape"]).to(DTYPES[i["dtype"]]) for i in case["inputs"]]
            try:
                results.append(probe(case["solution"], case["problem"], case["init"], inputs))
            except Exception as e:  # noqa: BLE001 (reported per case)
                results.append({"error": f"{type(e).__name__}: {e}"})
        print(json.dumps(results))
        return
    solution, problem, init, shapes = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
    # a number in SHAPES_JSON is passed as that number (a constant argument of forward)
    inputs = [s if isinstance(s, (int, float)) else torch.rand(*s) for s in shapes]
    print(json.dumps(probe(solution, problem, init, inputs)))


if __name__ == "__main__":
    main()
