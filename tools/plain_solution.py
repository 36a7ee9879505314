#!/usr/bin/env python3
"""A corpus kernel as a plain KernelBench solution file: the form model-written solutions take, which
`kaudit import kernelbench` reads back to the same kernel text, entry and binding
(`kaudit export-mutants` writes one per original, beside the switchable files it scores harnesses on).

usage: plain_solution.py --problem PROBLEM_PY --kernel-source CU --kernel-json KERNEL_JSON
                         --task-json TASK_JSON --name EXTENSION --out FILE

The file has:
  cuda_source  the kernel's text, unchanged;
  cpp_source   the entry's declaration, read off its definition in that text;
  an extension built by load_inline with functions=[entry];
  ModelNew     the problem's Model.__init__ (so its modules and parameters are the Model's, under the
               harness's seed), and a forward that calls the entry with the kernel's binding: inputs
               by Model.forward's parameter names, parameters as self.<module>.<name>, dims as
               x.size(i) of an input that has them, else an __init__ argument kept as self.kaudit_<dim>,
               literals as they are.
Exit status 1 with one line on stderr when the kernel or problem cannot be written so (no definition
of the entry in the text, no Model class). Only the Python standard library is used.
"""
import argparse
import ast
import json
import re
import sys


def declaration(source, entry):
    """`ret entry(params);` from the entry's definition in the kernel text."""
    m = re.search(r"(^|\n)([^\n;{}#]*?\b" + re.escape(entry) + r"\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\))\s*\{", source)
    if not m:
        raise ValueError(f"no definition of the entry `{entry}` in the kernel text")
    return " ".join(m.group(2).split()) + ";"


def solution(problem_text, kernel_source, kernel, task, name):
    module = ast.parse(problem_text)
    model = next((n for n in module.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    if model is None:
        raise ValueError("the problem has no class Model")
    init = next((n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    forward = next((n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if forward is None:
        raise ValueError("Model has no forward()")
    forward_params = [a.arg for a in forward.args.args[1:]]
    init_params = [a.arg for a in init.args.args[1:]] if init else []
    inputs, init_inputs = task["inputs"], task.get("init_inputs", [])
    kept, args = [], []
    for a in kernel["args"]:
        if isinstance(a, bool):
            args.append("True" if a else "False")
        elif isinstance(a, (int, float)):
            args.append(repr(a))
        elif a.startswith("param:"):
            args.append("self." + a[len("param:"):])
        elif a.startswith("dim:"):
            dim = a[len("dim:"):]
            where = next(((i, axis) for i, x in enumerate(inputs) for axis, s in enumerate(x.get("shape", [])) if s == dim), None)
            if where is not None:
                args.append(f"{forward_params[where[0]]}.size({where[1]})")
            elif dim in init_inputs and init_inputs.index(dim) < len(init_params):
                line = f"        self.kaudit_{dim} = {init_params[init_inputs.index(dim)]}"
                if line not in kept:
                    kept.append(line)
                args.append(f"self.kaudit_{dim}")
            else:
                raise ValueError(f"dim `{dim}` is neither in an input's shape nor an init input")
        else:
            args.append(forward_params[next(i for i, x in enumerate(inputs) if x["name"] == a)])
    init_text = (ast.get_source_segment(problem_text, init) if init
                 else "def __init__(self):\n        super().__init__()")
    init_text = init_text.replace("super(Model, self)", "super(ModelNew, self)")
    lines = ["# A plain KernelBench solution written by `kaudit export-mutants` (tools/plain_solution.py):",
             f"# a corpus kernel's text, entry and binding, unchanged (extension {name}).",
             "import torch", "import torch.nn as nn", "from torch.utils.cpp_extension import load_inline", "",
             "cuda_source = " + json.dumps(kernel_source, ensure_ascii=False), "",
             "cpp_source = " + json.dumps(declaration(kernel_source, kernel["entry"])), "",
             f"kaudit_ext = load_inline(name={json.dumps(name)}, cpp_sources=cpp_source, cuda_sources=cuda_source,",
             f"                         functions=[{json.dumps(kernel['entry'])}], verbose=False)", "", "",
             "class ModelNew(nn.Module):", "    " + init_text] + kept + [
             "", f"    def forward(self, {', '.join(forward_params)}):",
             f"        return kaudit_ext.{kernel['entry']}({', '.join(args)})", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for flag in ("--problem", "--kernel-source", "--kernel-json", "--task-json", "--name", "--out"):
        ap.add_argument(flag, required=True)
    a = ap.parse_args()
    try:
        with open(a.kernel_json, encoding="utf-8") as f:
            kernel = json.load(f)
        with open(a.task_json, encoding="utf-8") as f:
            task = json.load(f)
        with open(a.problem, encoding="utf-8") as f:
            problem = f.read()
        with open(a.kernel_source, encoding="utf-8") as f:
            source = f.read()
        text = solution(problem, source, kernel, task, a.name)
    except (OSError, ValueError, SyntaxError, KeyError, StopIteration, json.JSONDecodeError) as e:
        sys.stderr.write(f"plain_solution.py: {type(e).__name__}: {e}\n")
        return 1
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
