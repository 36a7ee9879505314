"""Loads a KernelBench solution file written by `kaudit export-mutants` on a machine without a GPU:
load_inline and the extension's operator are stand-ins that record what the solution asks of them.
Prints, as JSON, the library it builds, the switch it sets, and what its forward passes to the
entry: each tensor as "input:I" (the very object the harness passed), "param:NAME" (equal to the
Model's parameter or buffer NAME, the Model built under the same seed), or "other".

usage: solution_probe.py SOLUTION PROBLEM INIT_JSON SHAPES_JSON
"""
import json
import re
import sys
import types

import torch
import torch.utils.cpp_extension as cpp_extension

solution, problem, init, shapes = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
seen = {}


class Op:
    def set_mutant(self, m):
        seen["switch"] = int(m)

    def entry(self, tensors, values, kinds):
        seen["entry"] = (tensors, values, kinds)
        return [torch.zeros(1)]


source = open(solution).read()
lib = re.search(r'^_LIB = "([^"]+)"', source, re.M).group(1)
cpp_extension.load_inline = lambda **kw: seen.setdefault("built", kw["name"])
torch.ops = types.SimpleNamespace(**{lib: Op()})

ns = {"__name__": "solution"}
exec(compile(source, solution, "exec"), ns)
pns = {"__name__": "problem"}
exec(compile(open(problem).read(), problem, "exec"), pns)
torch.manual_seed(42)
reference = pns["Model"](*init)
torch.manual_seed(42)
model_new = ns["ModelNew"](*init)
inputs = [torch.rand(*s) for s in shapes]
model_new(*inputs)
named = dict(reference.named_parameters())
named.update(dict(reference.named_buffers()))
tensors, values, kinds = seen["entry"]
described = []
for t in tensors:
    if t is None:
        described.append(None)
    elif any(t is x for x in inputs):
        described.append("input:%d" % next(i for i, x in enumerate(inputs) if t is x))
    else:
        match = [n for n, p in named.items() if p.shape == t.shape and torch.equal(p, t)]
        described.append("param:" + match[0] if match else "other")
print(json.dumps({"built": seen.get("built"), "lib": lib, "switch": seen.get("switch"), "tensors": described,
                  "values": values, "kinds": kinds}))
