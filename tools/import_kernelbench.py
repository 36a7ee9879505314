#!/usr/bin/env python3
"""Reads a KernelBench solution file (and its problem file) without running them, and prints what
`kaudit import kernelbench` needs to write a corpus entry, as JSON on stdout.

Why static analysis: a solution file compiles CUDA through torch.utils.cpp_extension.load_inline at
import time, which needs a GPU toolchain and runs untrusted code. Python's own `ast` module reads
the file exactly as Python would, so the common forms (sources built from variables and f-strings,
several load_inline calls, a ModelNew holding nn modules) are understood without executing them.

Output (one JSON object):
  {"ok": true, "task": {task.json fields} | null, "problem_sha256": ...,
   "kernel": {"source": .cu text, "entry": name, "args": [...], "glue": bool,
              "extensions": [...], "functions": [...]},
   "notes": [...]}
or {"ok": false, "file": path, "line": N, "column": C, "construct": short name, "message": why, "fix": hint}.
Only the Python standard library is used.
"""
import argparse
import ast
import copy
import hashlib
import json
import math
import re
import sys


class Unsupported(Exception):
    """A construct the importer does not handle; names the file and the place."""

    def __init__(self, path, node, construct, message, fix=""):
        super().__init__(message)
        self.path = path
        self.line = getattr(node, "lineno", 0) if node is not None else 0
        self.column = (getattr(node, "col_offset", -1) + 1) if node is not None else 0
        self.construct = construct
        self.message = message
        self.fix = fix


NUMBER_TESTS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
                ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def dotted(node):
    """'torch.utils.cpp_extension.load_inline' for an attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def src_of(text, node):
    seg = ast.get_source_segment(text, node)
    return seg if seg is not None else ast.dump(node)


# ---- constant evaluation -----------------------------------------------------------------------
class Consts:
    """Module-level constants (numbers, strings, tuples of them), evaluated in file order."""

    def __init__(self, path, text):
        self.path = path
        self.text = text
        self.values = {}
        self.nodes = {}

    def eval(self, node):
        """The value of a constant expression; raises KeyError/ValueError when it is not one."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.values:
                return self.values[node.id]
            raise KeyError(node.id)
        if isinstance(node, (ast.Tuple, ast.List)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    out.extend(self.eval(e.value))
                else:
                    out.append(self.eval(e))
            return tuple(out)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.eval(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = self.eval(node.left), self.eval(node.right)
            # Bounded before computing: `10 ** 10 ** 9` or `1 << 10 ** 9` would take minutes and
            # gigabytes; no shape or constant of a real problem comes near these (issue 21).
            if isinstance(node.op, (ast.Pow, ast.LShift)) and isinstance(b, (int, float)) and abs(b) > 256:
                raise ValueError("exponent or shift too large")
            if isinstance(node.op, ast.Mult) and isinstance(a, (str, tuple)) != isinstance(b, (str, tuple)):
                count = b if isinstance(a, (str, tuple)) else a
                if isinstance(count, int) and count > 1_000_000:
                    raise ValueError("repetition too large")
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Div: lambda: a / b, ast.Mod: lambda: a % b,
                   ast.Pow: lambda: a ** b, ast.LShift: lambda: a << b}
            for k, f in ops.items():
                if isinstance(node.op, k):
                    if isinstance(node.op, ast.Mod) and isinstance(a, str):
                        return a % b
                    v = f()
                    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 1 << 63:
                        raise ValueError("integer beyond 64 bits")
                    return v
            raise ValueError("operator")
        if isinstance(node, ast.JoinedStr):  # f-string with constant fields
            out = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    out.append(str(v.value))
                elif isinstance(v, ast.FormattedValue):
                    val = self.eval(v.value)
                    spec = self.eval(v.format_spec) if v.format_spec is not None else ""
                    out.append(format(val, spec))
                else:
                    raise ValueError("f-string part")
            return "".join(out)
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in ("textwrap.dedent", "dedent") and len(node.args) == 1:
                import textwrap
                return textwrap.dedent(self.eval(node.args[0]))
            if name in ("int", "float", "str") and len(node.args) == 1:
                return {"int": int, "float": float, "str": str}[name](self.eval(node.args[0]))
            if name in ("math.sqrt",) and len(node.args) == 1:
                return math.sqrt(self.eval(node.args[0]))
            if isinstance(node.func, ast.Attribute) and node.func.attr == "format":
                base = self.eval(node.func.value)
                args = [self.eval(a) for a in node.args]
                kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
                return base.format(*args, **kwargs)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "join" and len(node.args) == 1:
                return self.eval(node.func.value).join(self.eval(node.args[0]))
        raise ValueError("not a constant")

    def collect(self, module):
        for stmt in module.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                try:
                    self.values[stmt.targets[0].id] = self.eval(stmt.value)
                    self.nodes[stmt.targets[0].id] = stmt
                except (KeyError, ValueError, TypeError, ZeroDivisionError):
                    pass
            elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                  and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == len(stmt.value.elts)
                  and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts)):
                # `height, width = 32, 32` (KernelBench's level-2 problem files): each name its value
                for t, v in zip(stmt.targets[0].elts, stmt.value.elts):
                    try:
                        self.values[t.id] = self.eval(v)
                        self.nodes[t.id] = ast.Assign(targets=[t], value=v)
                    except (KeyError, ValueError, TypeError, ZeroDivisionError):
                        pass
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in self.values:
                try:
                    cur = self.values[stmt.target.id]
                    add = self.eval(stmt.value)
                    if isinstance(stmt.op, ast.Add):
                        self.values[stmt.target.id] = cur + add
                except (KeyError, ValueError, TypeError):
                    pass


def find_class(module, name):
    for stmt in module.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return stmt
    return None


def find_function(scope, name):
    for stmt in scope.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


def params_of(fn):
    names = [a.arg for a in fn.args.args]
    return names[1:] if names and names[0] == "self" else names


class _Substitute(ast.NodeTransformer):
    """Names of earlier local assignments replaced by (copies of) their values."""

    def __init__(self, local):
        self.local = local

    def visit_Name(self, node):
        if node.id in self.local:
            return copy.deepcopy(self.local[node.id])
        return node


def returned_list(path, fn):
    """The expressions of `return [a, b, ...]`, with local assignments substituted: a name
    re-assigned from itself (`A = (A + A.T) / 2`, `A = torch.tril(A)`) refers to its value before."""
    local = {}
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            local[stmt.targets[0].id] = _Substitute(local).visit(copy.deepcopy(stmt.value))
        elif isinstance(stmt, ast.Return):
            v = stmt.value
            if isinstance(v, (ast.List, ast.Tuple)):
                return [_Substitute(local).visit(copy.deepcopy(e)) for e in v.elts]
            raise Unsupported(path, stmt, "return", f"{fn.name}() must return a list literal")
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        else:
            raise Unsupported(path, stmt, "statement", f"cannot read this statement in {fn.name}()")
    raise Unsupported(path, fn, "return", f"{fn.name}() has no return statement")


# ---- the problem file: inputs, init inputs, dims -------------------------------------------------
TORCH_DTYPES = {"float32": "float32", "float": "float32", "float16": "float16", "half": "float16",
                "bfloat16": "bfloat16", "int64": "int64", "long": "int64", "bool": "bool"}


def dtype_of(node):
    name = dotted(node) or ""
    short = name.split(".")[-1]
    return TORCH_DTYPES.get(short)


class Problem:
    def __init__(self, path, text):
        self.path = path
        self.text = text
        self.module = ast.parse(text, filename=path)
        self.consts = Consts(path, text)
        self.consts.collect(self.module)
        self.model = find_class(self.module, "Model")
        if self.model is None:
            raise Unsupported(path, None, "Model", "no `class Model` in the problem file",
                              "a KernelBench problem defines class Model(nn.Module)")
        fwd = find_function(self.model, "forward")
        init = find_function(self.model, "__init__")
        if fwd is None:
            raise Unsupported(path, self.model, "Model.forward", "Model has no forward()")
        self.forward_params = params_of(fwd)
        self.init_params = params_of(init) if init else []
        self.attributes = self._attributes(init)
        self.dims = {}        # name -> kernelbench value
        self.shrinkable = set()
        self.inputs = self._inputs()
        self.init_inputs = self._init_inputs()

    def _attributes(self, init):
        """self.<name> assigned in Model.__init__ (nn modules, parameters, constants)."""
        out = set()
        if init is None:
            return out
        for node in ast.walk(init):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        out.add(t.attr)
            if isinstance(node, ast.Call) and dotted(node.func) in ("self.register_buffer", "self.register_parameter"):
                if node.args and isinstance(node.args[0], ast.Constant):
                    out.add(node.args[0].value)
        return out

    def _dim(self, node, shrink):
        """A shape entry: a constant name becomes a dim, an integer literal stays a literal."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return [node.value]
        if isinstance(node, ast.Name) and node.id in self.consts.values:
            v = self.consts.values[node.id]
            if isinstance(v, bool) or not isinstance(v, (int, tuple)):
                raise Unsupported(self.path, node, "shape", f"`{node.id}` is not an integer")
            if isinstance(v, tuple):  # a shape tuple: one dim per element
                node_def = self.consts.nodes.get(node.id)
                if node_def is not None and isinstance(node_def.value, ast.Tuple):
                    # (num_classes,) keeps the element's own name, so equal dims stay one dim
                    out = []
                    for e in node_def.value.elts:
                        out += self._dim(e, shrink)
                    return out
                names = []
                for i, e in enumerate(v):
                    n = f"{node.id}_{i}"
                    self.dims[n] = int(e)
                    if shrink:
                        self.shrinkable.add(n)
                    names.append(n)
                return names
            self.dims[node.id] = int(v)
            if shrink:
                self.shrinkable.add(node.id)
            return [node.id]
        raise Unsupported(self.path, node, "shape", "a tensor dimension must be a module-level integer constant "
                          f"or a literal, not `{src_of(self.text, node)}`")

    def _shape_of(self, node):
        """The shape of another generated tensor, for `x.shape` / `x.size()` (x substituted by its
        value in get_inputs()), else None."""
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            x = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
                and not node.args:
            x = node.func.value
        else:
            return None
        while isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and dotted(x.func) is None:
            x = x.func.value  # x.cuda(), x.half(): the same shape
        fn = dotted(x.func) if isinstance(x, ast.Call) else None
        if fn in ("torch.randn", "torch.rand"):
            return self._shape(x.args)
        if fn == "torch.randint" and len(x.args) in (2, 3):
            return self._shape([x.args[-1]])
        return None

    def _shape(self, args):
        if len(args) == 1:
            other = self._shape_of(args[0])
            if other is not None:
                return other
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = args[0].elts
        shape = []
        for a in args:
            if isinstance(a, ast.Starred):
                shape += self._dim(a.value, True)
            else:
                shape += self._dim(a, True)
        return shape

    @staticmethod
    def _transposed(node):
        """X for `X.T`, `X.t()`, `X.mT` or `X.transpose(0, 1)` / `(-1, -2)` / `(-2, -1)`, else None."""
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            return node.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            if node.func.attr == "t" and not node.args:
                return node.func.value
            if node.func.attr == "transpose" and len(node.args) == 2 and all(
                    isinstance(a, (ast.Constant, ast.UnaryOp)) for a in node.args):
                pair = sorted(ast.literal_eval(a) for a in node.args)
                if pair in ([0, 1], [-2, -1]):
                    return node.func.value
        return None

    def _structured(self, node):
        """(domain, X) for a symmetric or triangular matrix built from the tensor expression X:
        `(X + X.T) / 2` (or `* 0.5`, `0.5 * (...)`, `X.T + X`), `torch.tril(X)`, `torch.triu(X)`."""
        fn = dotted(node.func) if isinstance(node, ast.Call) else None
        if fn in ("torch.tril", "torch.triu") and len(node.args) == 1 and not node.keywords:
            return ("lower-triangular" if fn == "torch.tril" else "upper-triangular"), node.args[0]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mult)):
            halves = [(node.left, node.right)] if isinstance(node.op, ast.Div) else \
                [(node.left, node.right), (node.right, node.left)]
            for total, factor in halves:
                try:
                    f = self.consts.eval(factor)
                except (KeyError, ValueError):
                    continue
                if f != (2 if isinstance(node.op, ast.Div) else 0.5):
                    continue
                if isinstance(total, ast.BinOp) and isinstance(total.op, ast.Add):
                    for x, xt in ((total.left, total.right), (total.right, total.left)):
                        inner = self._transposed(xt)
                        if inner is not None and ast.dump(inner) == ast.dump(x):
                            return "symmetric", x
        return None

    def _input(self, name, node):
        try:  # `s = 3.14; return [A, s]`: a number, the same on every call
            c = self.consts.eval(node)
        except (KeyError, ValueError, TypeError):
            c = None
        if isinstance(c, (int, float)) and not isinstance(c, bool):
            if isinstance(c, float) and not math.isfinite(c):
                raise Unsupported(self.path, node, "get_inputs", f"input `{name}` is {c}, not a finite number")
            if isinstance(c, int) and abs(c) > 1 << 53:
                raise Unsupported(self.path, node, "get_inputs", f"input `{name}` = {c} does not fit a double exactly")
            if isinstance(node, ast.Name):
                self.constant_sources[node.id] = node  # checked against the dims once all inputs are read
            return {"name": name, "value": c}
        spec = {"name": name, "dtype": "float32", "shape": [], "domain": "real"}
        chain = []
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and dotted(node.func) is None \
                and self._transposed(node) is None:
            chain.append(node)  # method calls on a tensor expression: x.cuda(), .half(), .softmax(...)
            node = node.func.value
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.Gt, ast.Lt, ast.GtE, ast.LtE)):  # torch.rand(...) > 0.5
            spec = self._input(name, node.left)
            if spec["dtype"] not in ("float32", "float16", "bfloat16") or spec["domain"] != "real":
                raise Unsupported(self.path, node, "mask", f"cannot generate input `{src_of(self.text, node)}`",
                                  "a mask compares torch.rand/randn(...) with a number")
            spec["dtype"], spec["domain"] = "bool", "mask"
            return self._methods(spec, chain)
        structured = self._structured(node)
        if structured is not None:
            domain, inner = structured
            spec = self._input(name, inner)
            if spec["domain"] != "real" or spec["dtype"] not in ("float32", "float16", "bfloat16") or len(spec["shape"]) < 2:
                raise Unsupported(self.path, node, domain, f"cannot generate input `{src_of(self.text, node)}`",
                                  f"a {domain} input is built from a real float matrix (torch.randn/rand)")
            if domain == "symmetric" and spec["shape"][-1] != spec["shape"][-2]:
                raise Unsupported(self.path, node, domain, f"`{src_of(self.text, node)}` is not square")
            spec["domain"] = domain
            return self._methods(spec, chain)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # torch.rand(...) + c
            try:
                c = self.consts.eval(node.right)
            except (KeyError, ValueError):
                c = None
            if isinstance(c, (int, float)) and c > 0 and dotted(getattr(node.left, "func", None)) == "torch.rand":
                spec["domain"] = "positive"
                node = node.left
        if not isinstance(node, ast.Call):
            raise Unsupported(self.path, node, "get_inputs", f"cannot read input `{src_of(self.text, node)}`",
                              "inputs must be torch.rand/randn/randint(...) calls")
        fn = dotted(node.func)
        kw = {k.arg: k.value for k in node.keywords}
        if fn in ("torch.randn", "torch.rand"):
            spec["shape"] = self._shape(node.args)
            if "dtype" in kw:
                spec["dtype"] = dtype_of(kw["dtype"]) or spec["dtype"]
        elif fn == "torch.randint":
            if len(node.args) == 3:
                low, high, shape = node.args
            elif len(node.args) == 2:
                low, high, shape = None, node.args[0], node.args[1]
            else:
                raise Unsupported(self.path, node, "torch.randint", "torch.randint needs (low, high, size)")
            if low is not None and self.consts.eval(low) != 0:
                raise Unsupported(self.path, node, "torch.randint", "only class indices in [0, high) are supported")
            spec["dtype"] = "int64"
            spec["shape"] = self._shape([shape])
            bound = self._dim(high, False)
            spec["domain"] = "index:" + str(bound[0])
        else:
            raise Unsupported(self.path, node, fn or "call", f"cannot generate input `{src_of(self.text, node)}`",
                              "inputs must be torch.rand/randn/randint(...) calls")
        return self._methods(spec, chain)

    def _methods(self, spec, chain):
        """The tensor methods applied to a generated input, innermost first: dtypes and domains."""
        for call in reversed(chain):
            m = call.func.attr
            if m in ("cuda", "contiguous", "to", "detach", "requires_grad_"):
                if m == "to" and call.args and dtype_of(call.args[0]):
                    spec["dtype"] = dtype_of(call.args[0])
                    if spec["dtype"] == "bool":
                        spec["domain"] = "mask"
                continue
            if m in ("half", "bfloat16", "float", "long"):
                spec["dtype"] = {"half": "float16", "bfloat16": "bfloat16", "float": "float32", "long": "int64"}[m]
            elif m == "bool":  # torch.randint(0, 2, shape).bool(): each element true with probability 1/2
                spec["dtype"], spec["domain"] = "bool", "mask"
            elif m == "softmax":
                spec["domain"] = "probability"
            elif m == "abs":
                spec["domain"] = "positive"
            elif m in ("tril", "triu") and not call.args and spec["domain"] == "real" and len(spec["shape"]) >= 2:
                spec["domain"] = "lower-triangular" if m == "tril" else "upper-triangular"
            else:
                raise Unsupported(self.path, call, "." + m, f"cannot generate input `{src_of(self.text, call)}`")
        return spec

    def _inputs(self):
        fn = find_function(self.module, "get_inputs")
        if fn is None:
            raise Unsupported(self.path, None, "get_inputs", "no get_inputs() in the problem file")
        exprs = returned_list(self.path, fn)
        if len(exprs) != len(self.forward_params):
            raise Unsupported(self.path, fn, "get_inputs",
                              f"get_inputs() returns {len(exprs)} tensors but Model.forward takes {len(self.forward_params)}")
        self.constant_sources = {}
        out = [self._input(n, e) for n, e in zip(self.forward_params, exprs)]
        for dim, node in self.constant_sources.items():
            if dim in self.dims:  # `return [torch.randn(N), N]`: the number would not follow the shape
                raise Unsupported(self.path, node, "get_inputs", f"`{dim}` is passed as a number and is a dim of an input",
                                  "kaudit keeps numbers among the inputs fixed while presets change the dims")
        return out

    def _init_inputs(self):
        fn = find_function(self.module, "get_init_inputs")
        if fn is None:
            return []
        out = []
        for e in returned_list(self.path, fn):
            if isinstance(e, ast.Name) and e.id in self.consts.values:
                v = self.consts.values[e.id]
                if isinstance(v, bool):
                    out.append(int(v))
                elif isinstance(v, int):
                    self._dim(e, False)
                    out.append(e.id)
                elif isinstance(v, float):
                    out.append(v)
                else:
                    raise Unsupported(self.path, e, "get_init_inputs",
                                      f"init input `{e.id}` is a {type(v).__name__}; only numbers are supported")
            else:
                try:
                    v = self.consts.eval(e)
                except (KeyError, ValueError):
                    raise Unsupported(self.path, e, "get_init_inputs", f"cannot read init input `{src_of(self.text, e)}`")
                if isinstance(v, bool):
                    v = int(v)
                if not isinstance(v, (int, float)):
                    raise Unsupported(self.path, e, "get_init_inputs", f"init input `{src_of(self.text, e)}` is not a number")
                out.append(v)
        return out

    # Presets: the native sizes, and a "small" one the CPU backend runs in well under a second.
    def task_json(self, name):
        native = dict(self.dims)
        small = dict(native)
        budget = 1 << 18  # elements over all inputs

        def elements(assign):
            total = 0
            for spec in self.inputs:
                if "value" in spec:  # a constant number
                    continue
                n = 1
                for s in spec["shape"]:
                    n *= assign[s] if isinstance(s, str) else s
                total += n
            return total

        while elements(small) > budget:
            cands = [d for d in sorted(self.shrinkable) if small[d] > 1]
            if not cands:
                break
            biggest = max(cands, key=lambda d: (small[d], d))
            small[biggest] = max(1, small[biggest] // 2)
        odd1, odd2 = dict(small), dict(small)
        for d in sorted(self.shrinkable):
            v = small[d]
            if v > 2:
                odd1[d] = v - 1 if v % 2 == 0 else v
                if odd1[d] % 32 == 0:
                    odd1[d] -= 1
                odd2[d] = max(1, v // 3 + 1)
        # Constants only passed to __init__ (a reduction axis, a kernel size) keep their value in every
        # preset; their minimum must admit it (dim = 0, dim = -1).
        dims = {d: {"min": min(1, native[d])} for d in sorted(native)}
        task = {
            "name": name,
            "description": f"imported from KernelBench problem {self.path.split('/')[-1]}",
            "inputs": self.inputs,
            "init_inputs": self.init_inputs,
            "dims": dims,
            "presets": {"small": small, "kernelbench": native},
            "odd_shapes": [odd1, odd2] if odd1 != odd2 else [odd1, dict(odd1)],
            "notes": ("imported by kaudit import kernelbench: dims are the problem's module-level constants; "
                      "'small' halves the largest input dims until the inputs hold at most 2^18 elements; "
                      "input domains are read from get_inputs() (rand/randn: real; softmax: probability; "
                      "abs or rand()+c: positive; (A + A.T) / 2: symmetric; torch.tril/triu: triangular; "
                      ".bool() or rand() > c: mask, true with probability 1/2; a number: a constant passed "
                      "on every call)"),
        }
        return task


# ---- the solution file -----------------------------------------------------------------------------
NOOP_METHODS = {"contiguous", "cuda", "detach"}
# Torch compute a forward may do around its extension calls, by ATen in the generated C++ entry: the
# operators and functions kaudit's torch facades forward to ATen (not library compute: docs/ORACLES.md).
TORCH_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
TORCH_REDUCTIONS = {"sum", "mean", "amax", "amin"}
TORCH_FUNCTIONS = TORCH_REDUCTIONS | {"pow", "sqrt", "rsqrt", "exp", "log", "abs", "tanh", "sigmoid", "relu",
                                      "neg", "maximum", "minimum"}


class Solution:
    def __init__(self, path, text, problem, task):
        self.path = path
        self.text = text
        self.problem = problem
        self.task = task
        self.task_is_new = True  # the importer sets it: False when binding to an existing task.json
        self.module = ast.parse(text, filename=path)
        self.consts = Consts(path, text)
        self.consts.collect(self.module)
        self.notes = []
        self.extensions = self._extensions()

    def err(self, node, construct, message, fix=""):
        return Unsupported(self.path, node, construct, message, fix)

    def _sources(self, node, what):
        try:
            v = self.consts.eval(node)
        except (KeyError, ValueError, TypeError):
            raise self.err(node, what, f"cannot read {what} statically (`{src_of(self.text, node)[:60]}`)",
                           "build the source from string literals, module-level string variables, "
                           "concatenation or f-strings of constants")
        if isinstance(v, str):
            return v
        if isinstance(v, tuple) and all(isinstance(s, str) for s in v):
            return "\n".join(v)
        raise self.err(node, what, f"{what} is not a string or a list of strings")

    def _extensions(self):
        """name -> {"source", "functions", "line"} for each `X = load_inline(...)`."""
        exts = {}
        for stmt in self.module.body:
            if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
                continue
            fn = dotted(stmt.value.func) or ""
            if fn.split(".")[-1] != "load_inline":
                continue
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                raise self.err(stmt, "load_inline", "assign load_inline(...) to one module-level name")
            kw = {k.arg: k.value for k in stmt.value.keywords}
            if "cuda_sources" not in kw:
                raise self.err(stmt, "load_inline", "load_inline without cuda_sources")
            source = self._sources(kw["cuda_sources"], "cuda_sources")
            functions = None
            if "functions" in kw:
                f = self.consts.eval(kw["functions"]) if not isinstance(kw["functions"], (ast.List, ast.Tuple)) else \
                    tuple(self.consts.eval(e) for e in kw["functions"].elts)
                functions = [f] if isinstance(f, str) else list(f)
            elif "cpp_sources" in kw:
                cpp = self._sources(kw["cpp_sources"], "cpp_sources")
                functions = re.findall(r"([A-Za-z_]\w*)\s*\([^;{]*\)\s*;", cpp)
            exts[stmt.targets[0].id] = {"source": source, "functions": functions or [], "line": stmt.lineno}
        if not exts:
            raise self.err(None, "load_inline", "no `X = load_inline(..., cuda_sources=...)` in the solution",
                           "kaudit imports solutions that build their CUDA with torch.utils.cpp_extension.load_inline")
        return exts

    # ModelNew.__init__: what each self attribute is.
    def _model_attributes(self, cls):
        """What each self attribute set in ModelNew.__init__ is. The body is walked in order with the
        __init__ arguments bound to their values (get_init_inputs(), else the defaults), so
        `if stride is None: stride = kernel_size` and `self.s = s if s is not None else k` resolve."""
        init = find_function(cls, "__init__")
        attrs = {}
        if init is None:
            return attrs
        params = params_of(init)
        defaults = init.args.defaults
        given = self.task["init_inputs"]
        env = {}
        for i, name in enumerate(params):
            if i < len(given):
                env[name] = ("dim", given[i]) if isinstance(given[i], str) else ("literal", given[i])
            else:
                d = i - (len(params) - len(defaults))
                env[name] = self._symbolic(defaults[d], env) if d >= 0 else ("other", None)

        def attribute(t, v):
            if isinstance(v, ast.Name) and v.id in self.extensions:
                return ("ext", v.id)
            if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id in self.extensions:
                return ("fn", v.value.id, v.attr)  # self.op = ext.op_cuda
            if isinstance(v, ast.Call) and (dotted(v.func) or "").split(".")[-1] == "Parameter":
                return ("param", t.attr)
            if isinstance(v, ast.Call) and (dotted(v.func) or "").startswith(("nn.", "torch.nn.")):
                return ("module", t.attr)
            return ("value", self._symbolic(v, env))

        def walk(body):
            for stmt in body:
                if isinstance(stmt, ast.If):
                    test = self._truth(self._symbolic(stmt.test, env))
                    if test is None:
                        # undecidable: take the attributes of both branches as unknown
                        for n in ast.walk(stmt):
                            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                                attrs.setdefault(n.attr, ("value", ("other", None)))
                        continue
                    walk(stmt.body if test else stmt.orelse)
                elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    t = stmt.targets[0]
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        attrs[t.attr] = attribute(t, stmt.value)
                    elif isinstance(t, ast.Name):
                        env[t.id] = self._symbolic(stmt.value, env)
        walk(init.body)
        return attrs

    def _symbolic(self, node, env):
        """An __init__-time value: ("dim", name), ("literal", v), ("none",) or ("other", node)."""
        if isinstance(node, ast.Constant):
            if node.value is None:
                return ("none",)
            if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                return ("literal", node.value)
            if isinstance(node.value, bool):
                return ("literal", int(node.value))
            return ("other", node)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.consts.values and isinstance(self.consts.values[node.id], (int, float)):
                return ("literal", self.consts.values[node.id])
            return ("other", node)
        if isinstance(node, ast.IfExp):
            t = self._truth(self._symbolic(node.test, env))
            if t is None:
                return ("other", node)
            return self._symbolic(node.body if t else node.orelse, env)
        if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None):
            v = self._symbolic(node.left, env)
            if v[0] == "other":
                return ("other", node)
            is_none = v[0] == "none"
            return ("literal", int(is_none if isinstance(node.ops[0], ast.Is) else not is_none))
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            for part in node.values:
                v = self._symbolic(part, env)
                t = self._truth(v)
                if t is None:
                    return ("other", node)
                if t:
                    return v
            return v
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self._symbolic(node.operand, env)
            return ("literal", -v[1]) if v[0] == "literal" else ("other", node)
        try:
            v = self.consts.eval(node)
            if isinstance(v, (int, float)):
                return ("literal", v)
        except (KeyError, ValueError, TypeError, ZeroDivisionError):
            pass
        return ("other", node)

    @staticmethod
    def _truth(v):
        if v[0] == "none":
            return False
        if v[0] == "literal":
            return bool(v[1])
        if v[0] == "dim":
            return True  # dims are at least 1 where they size anything
        return None

    def analyse(self):
        cls = find_class(self.module, "ModelNew")
        if cls is None:
            raise self.err(None, "ModelNew", "no `class ModelNew` in the solution")
        fwd = find_function(cls, "forward")
        if fwd is None:
            raise self.err(cls, "ModelNew.forward", "ModelNew has no forward()")
        attrs = self._model_attributes(cls)
        fparams = params_of(fwd)
        inputs = self.task["inputs"]
        if len(fparams) != len(inputs):
            raise self.err(fwd, "ModelNew.forward",
                           f"ModelNew.forward takes {len(fparams)} inputs, the task has {len(inputs)}")
        # A constant number argument (task.json {"name", "value"}) is its literal wherever forward uses it.
        env = {p: ("literal", inputs[i]["value"]) if "value" in inputs[i] else ("input", inputs[i]["name"], inputs[i])
               for i, p in enumerate(fparams)}
        used_exts = []
        calls = []   # (result var or None, ext, fn, [arg values])

        def ext_call(call):
            """(extension, function) when `call` calls a load_inline extension's function, else None."""
            f = call.func
            if not isinstance(f, ast.Attribute):
                return None
            base = f.value
            if isinstance(base, ast.Name) and base.id == "self" and attrs.get(f.attr, ("",))[0] == "fn":
                ext, name = attrs[f.attr][1], attrs[f.attr][2]  # self.op(x) with self.op = ext.op_cuda
            elif isinstance(base, ast.Name) and base.id in self.extensions:
                ext, name = base.id, f.attr
            elif (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self"
                  and attrs.get(base.attr, ("",))[0] == "ext"):
                ext, name = attrs[base.attr][1], f.attr
            else:
                return None
            funcs = self.extensions[ext]["functions"]
            if funcs and name not in funcs:
                raise self.err(call, name, f"`{name}` is not among the functions of extension `{ext}` ({', '.join(funcs)})")
            return ext, name

        def value(node):
            """A forward-time expression as a binding value."""
            contiguous = False
            while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and node.func.attr in NOOP_METHODS and not node.args):
                contiguous = contiguous or node.func.attr == "contiguous"
                node = node.func.value
            # Transposed views (A.T, A.t(), A.transpose(0, 1)) are made in the generated C++ entry, and
            # made contiguous there when the solution asks (a view's data_ptr is the original layout).
            view = base = None
            if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
                view, base = "t()", node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
                if node.func.attr == "t" and not node.args:
                    view, base = "t()", node.func.value
                elif node.func.attr == "transpose" and len(node.args) == 2:
                    try:
                        a, b = (int(self.consts.eval(x)) for x in node.args)
                    except (KeyError, ValueError, TypeError):
                        a = b = None
                    if a is not None:
                        view, base = f"transpose({a}, {b})", node.func.value
            if view is not None:
                b = value(base)
                if b[0] not in ("input", "param", "tensor", "view"):
                    raise self.err(node, "view", f"cannot transpose `{src_of(self.text, base)}`: not a tensor")
                v = ("view", b, view)
                return ("view", v, "contiguous()") if contiguous else v
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "float" \
                    and not node.args:
                inner = value(node.func.value)
                if inner[0] == "input" and inner[2]["dtype"] == "float32":
                    return inner
                raise self.err(node, ".float()", "`.float()` changes the dtype; only a no-op on float32 inputs is supported")
            if isinstance(node, ast.Name):
                if node.id in env:
                    return env[node.id]
                if node.id in self.consts.values and isinstance(self.consts.values[node.id], (int, float)):
                    return ("literal", self.consts.values[node.id])
                raise self.err(node, node.id, f"cannot bind `{node.id}` to a task input, parameter or constant")
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
                return ("literal", node.value)
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                v = value(node.operand)
                if v[0] == "literal":
                    return ("literal", -v[1])
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                kind = attrs.get(node.attr)
                if kind is None:
                    raise self.err(node, "self." + node.attr, f"`self.{node.attr}` is not set in ModelNew.__init__")
                if kind[0] == "param":
                    return self._param(node, node.attr)
                if kind[0] == "value" and kind[1][0] in ("dim", "literal"):
                    return kind[1]
                raise self.err(node, "self." + node.attr, f"cannot pass `self.{node.attr}` to the kernel: its value in "
                               "ModelNew.__init__ is not a number or an init input",
                               "set it from a literal, a module constant or an __init__ argument")
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and isinstance(node.value.value, ast.Name) and node.value.value.id == "self"):
                owner = node.value.attr
                if attrs.get(owner, ("",))[0] == "module":
                    return self._param(node, owner + "." + node.attr)
                raise self.err(node, "self." + owner, f"`self.{owner}` is not an nn module set in ModelNew.__init__")
            # x.size(i) / x.shape[i]
            idx_node = base = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
                    and len(node.args) == 1:
                base, idx_node = node.func.value, node.args[0]
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                base, idx_node = node.value.value, node.slice
            if base is not None:
                t = value(base)
                if t[0] != "input":
                    raise self.err(node, "size", "only the sizes of task inputs can be passed")
                idx = number_of(idx_node)
                if not isinstance(idx, int) or not -len(t[2]["shape"]) <= idx < len(t[2]["shape"]):
                    raise self.err(node, "size", f"cannot tell which dim `{src_of(self.text, node)}` is",
                                   "index the shape with a constant or an init input that is one")
                shape = t[2]["shape"]
                entry = shape[idx]
                return ("dim", entry) if isinstance(entry, str) else ("literal", entry)
            expr = torch_expr(node)
            if expr is not None:
                return expr
            raise self.err(node, "argument", f"cannot pass `{src_of(self.text, node)}` to the kernel",
                           "pass inputs, parameters (self.<module>.weight), constants, x.size(i) or torch "
                           "arithmetic and reductions of them")

        def number_of(node):
            """A number forward sees that is known before it runs (None otherwise): a literal, a module
            constant, or an init input whose value is the same in every preset and odd shape of the
            task (a reduction axis, `self.dim`), which is the value the harness passes."""
            try:
                return self.consts.eval(node)
            except (KeyError, ValueError, TypeError):
                pass
            try:
                v = value(node)
            except Unsupported:
                return None
            if v[0] == "literal":
                return v[1]
            if v[0] == "dim":
                seen = {a.get(v[1]) for a in list(self.task["presets"].values()) + list(self.task["odd_shapes"])}
                if len(seen) == 1 and None not in seen:
                    fixed = seen.pop()
                    # Decided here, so the task must not let it vary: pinned in a new task's
                    # task.json, required pinned in an existing one.
                    dim = self.task["dims"].setdefault(v[1], {})
                    if self.task_is_new:
                        dim["min"] = dim["max"] = fixed
                    elif not (dim.get("min") == fixed and dim.get("max") == fixed):
                        raise self.err(node, v[1], f"`{src_of(self.text, node)}` decides what forward does, "
                                       f"but task.json lets dim `{v[1]}` vary",
                                       f"pin it in task.json: \"{v[1]}\": {{\"min\": {fixed}, \"max\": {fixed}}}")
                    return fixed
            return None

        def from_extension(v):
            """Whether a binding value is computed from some extension call's result."""
            if v[0] == "tensor":
                return v[2]
            if v[0] == "view":
                return from_extension(v[1])
            if v[0] == "torch":
                operands = [v[3], v[4]] if v[1] == "binop" else ([v[3]] if v[3] is not None else []) + list(v[4])
                return any(from_extension(o) for o in operands)
            return False

        def torch_expr(node):
            """Torch arithmetic and reductions on tensors around the extension calls (a loss's final
            `.mean()`, `torch.log(p)` as an argument): ("torch", form, ...) values the generated C++
            entry computes with the same ATen operators (the CPU facade's and the GPU builds'
            <torch/extension.h> have them all); None for anything else."""
            def tensorish(v):
                return v[0] in ("input", "param", "tensor", "view", "torch")
            if isinstance(node, ast.BinOp) and type(node.op) in TORCH_BINOPS:
                left, right = value(node.left), value(node.right)
                if tensorish(left) or tensorish(right):
                    return ("torch", "binop", TORCH_BINOPS[type(node.op)], left, right)
                return None
            if not isinstance(node, ast.Call):
                return None
            name = dotted(node.func)
            if name is not None and name.startswith("torch.") and name[len("torch."):] in TORCH_FUNCTIONS:
                fn, operands = name[len("torch."):], node.args
                base = None
            elif (isinstance(node.func, ast.Attribute) and node.func.attr in TORCH_FUNCTIONS
                  and not (name or "").startswith(("torch.", "F.", "nn."))):  # x.mean(), not torch.nn's
                fn, operands = node.func.attr, node.args
                base = value(node.func.value)
                if not tensorish(base):
                    return None
            else:
                return None
            args = [value(a) for a in operands] if fn not in TORCH_REDUCTIONS else []
            if fn in TORCH_REDUCTIONS:  # (input, dim=None, keepdim=False): dims as an IntArrayRef
                rest = list(operands)
                if base is None:
                    if not rest:
                        return None
                    args.append(value(rest.pop(0)))
                kw = {k.arg: k.value for k in node.keywords}
                if set(kw) - {"dim", "keepdim"} or len(rest) > 2:
                    raise self.err(node, fn, f"cannot import `{src_of(self.text, node)[:60]}`",
                                   "reductions take dim and keepdim only")
                dim = rest[0] if rest else kw.get("dim")
                keep = rest[1] if len(rest) > 1 else kw.get("keepdim")
                if dim is not None:
                    try:
                        d = self.consts.eval(dim)
                    except (KeyError, ValueError, TypeError):
                        raise self.err(node, fn, f"`{src_of(self.text, dim)}` is not a constant dimension",
                                       "reduce over literal or module-constant dims")
                    dims = list(d) if isinstance(d, (tuple, list)) else [d]
                    if not all(isinstance(x, int) and not isinstance(x, bool) for x in dims):
                        raise self.err(node, fn, f"`{src_of(self.text, dim)}` is not a constant dimension")
                    args.append(("dims", dims))
                    if keep is not None:
                        try:
                            args.append(("literal", bool(self.consts.eval(keep))))
                        except (KeyError, ValueError, TypeError):
                            raise self.err(node, fn, f"`{src_of(self.text, keep)}` is not a constant keepdim")
                elif keep is not None:
                    raise self.err(node, fn, "keepdim without dim is not supported")
            elif node.keywords:
                raise self.err(node, fn, f"keyword arguments to `{fn}` are not supported")
            if base is None and not any(tensorish(a) for a in args):
                return None
            return ("torch", "method" if base is not None else "function", fn, base, args)

        def record_call(target, call, index=None):
            ec = ext_call(call)
            if ec is None:
                raise self.err(call, dotted(call.func) or "call",
                               f"`{src_of(self.text, call)[:60]}` is not a call of a load_inline extension",
                               "ModelNew.forward may only call the extension's functions (and torch arithmetic "
                               "and reductions around them)")
            if call.keywords:
                raise self.err(call, "keyword", "keyword arguments to an extension function are not supported")
            args = [value(a) for a in call.args]
            if ec[0] not in used_exts:
                used_exts.append(ec[0])
            calls.append((target, ec[0], ec[1], args, index))
            if target is not None:
                env[target] = ("tensor", target, True)  # (kind, C++ name, made from an extension's result)

        def peel(v):
            """An extension call behind no-op methods, and the constant index of `call(...)[k]`."""
            while (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                   and v.func.attr in NOOP_METHODS and not v.args):
                v = v.func.value
            index = None
            if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Call):
                try:
                    index = int(self.consts.eval(v.slice))
                    v = v.value
                except (KeyError, ValueError, TypeError):
                    pass
            if isinstance(v, ast.Call) and ext_call(v) is not None:
                return v, index
            return None, None

        def noop_guard(stmt):
            """`if not x.is_cuda: x = x.cuda()` and the like: only re-binds names to no-op views."""
            for b in stmt.body + stmt.orelse:
                if isinstance(b, ast.Pass):
                    continue
                if not (isinstance(b, ast.Assign) and len(b.targets) == 1 and isinstance(b.targets[0], ast.Name)):
                    return False
                inner = b.value
                while (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                       and inner.func.attr in NOOP_METHODS):
                    inner = inner.func.value
                if not (isinstance(inner, ast.Name) and inner.id == b.targets[0].id):
                    return False
            return True

        def as_run(test):
            """What a condition is when the harness calls forward (None: not known here): inputs
            are contiguous CUDA tensors of the task's dtypes."""
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                t = as_run(test.operand)
                return None if t is None else not t
            if isinstance(test, ast.BoolOp):
                parts = [as_run(v) for v in test.values]
                if isinstance(test.op, ast.And):
                    return False if False in parts else (None if None in parts else True)
                return True if True in parts else (None if None in parts else False)
            def input_of(node):
                return env.get(node.id) if isinstance(node, ast.Name) and env.get(node.id, ("",))[0] == "input" else None
            if isinstance(test, ast.Attribute) and test.attr == "is_cuda" and input_of(test.value):
                return True
            if (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and not test.args
                    and test.func.attr == "is_contiguous" and input_of(test.func.value)):
                return True
            if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Attribute)
                    and test.left.attr == "dtype" and input_of(test.left.value)
                    and isinstance(test.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))):
                want = dtype_of(test.comparators[0])
                if want is None:
                    return None
                same = input_of(test.left.value)[2]["dtype"] == want
                return same if isinstance(test.ops[0], (ast.Eq, ast.Is)) else not same
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in NUMBER_TESTS:
                # `self.dim == 1`: numbers the task fixes (an init input with one value in every shape)
                a, b = number_of(test.left), number_of(test.comparators[0])
                if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                    return NUMBER_TESTS[type(test.ops[0])](a, b)
            return None

        body = list(fwd.body)
        returned = False
        while body:
            stmt = body.pop(0)
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, (ast.Assert, ast.Pass)) or (isinstance(stmt, ast.If) and noop_guard(stmt)):
                continue
            if isinstance(stmt, ast.If) and as_run(stmt.test) is not None:
                # A dispatch on the device, the dtype or the layout of the inputs: the branch the
                # harness takes (`if x.is_cuda and x.dtype == torch.float32: ... else: torch op`).
                body = (stmt.body if as_run(stmt.test) else stmt.orelse) + body
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                target = stmt.targets[0].id
                call, index = peel(stmt.value)
                if call is not None:
                    record_call(target, call, index)
                else:
                    v = value(stmt.value)
                    if v[0] == "torch":  # computed where forward computes it, once
                        calls.append((target, None, v, [], None))
                        v = ("tensor", target, from_extension(v))
                    env[target] = v
                continue
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                    and all(isinstance(e, ast.Name) for e in stmt.targets[0].elts)):
                # `M, K = A.shape` / `M, K = A.size()`: each name one dim of a task input
                v, base = stmt.value, None
                if isinstance(v, ast.Attribute) and v.attr == "shape":
                    base = v.value
                elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "size" \
                        and not v.args:
                    base = v.func.value
                t = value(base) if base is not None else None
                names = stmt.targets[0].elts
                if t is None or t[0] != "input" or len(t[2]["shape"]) != len(names):
                    raise self.err(stmt, "unpacking", f"cannot import `{src_of(self.text, stmt)[:60]}`",
                                   "only the shape of a task input unpacks, one name per dim")
                for n, entry in zip(names, t[2]["shape"]):
                    env[n.id] = ("dim", entry) if isinstance(entry, str) else ("literal", entry)
                continue
            if isinstance(stmt, ast.Return):
                v = stmt.value
                call, index = peel(v)
                if call is not None:
                    record_call(None, call, index)
                elif isinstance(v, ast.Name) and v.id in env and env[v.id][0] == "tensor":
                    if not env[v.id][2]:
                        raise self.err(stmt, "return", f"`{v.id}` is not made from an extension call's result",
                                       "the kernel under audit must compute what forward returns")
                    calls.append((None, None, v.id, [], None))
                elif (expr := torch_expr(v)) is not None:
                    if not from_extension(expr):
                        raise self.err(stmt, "return", f"`return {src_of(self.text, v)[:60]}` uses no extension "
                                       "call's result", "the kernel under audit must compute what forward returns")
                    calls.append((None, None, expr, [], None))
                else:
                    raise self.err(stmt, "return", f"cannot import `return {src_of(self.text, stmt.value)[:60]}`",
                                   "forward must return the result of an extension call")
                returned = True
                break
            raise self.err(stmt, type(stmt).__name__, f"cannot import this statement of ModelNew.forward: "
                           f"`{src_of(self.text, stmt)[:60]}`",
                           "forward may assign extension-call results and return one")
        if not returned:
            raise self.err(fwd, "return", "ModelNew.forward has no return statement")
        if not used_exts:  # torch alone: no kernel of the solution's would run
            raise self.err(fwd, "ModelNew.forward", "ModelNew.forward calls no function of a load_inline extension",
                           "the kernel under audit must be called from forward")
        return self._binding(used_exts, calls)

    def _param(self, node, name):
        top = name.split(".")[0]
        if top not in self.problem.attributes:
            raise self.err(node, "parameter", f"ModelNew's `{name}` has no counterpart in the problem's Model "
                           f"(Model sets: {', '.join(sorted(self.problem.attributes)) or 'nothing'})",
                           "kaudit binds parameters by name to the reference Model's; name them as Model does")
        return ("param", name)

    # The source and the binding.
    def _binding(self, used_exts, calls):
        namespaced = len(used_exts) > 1
        parts, includes = [], []
        for i, ext in enumerate(used_exts):
            src = self.extensions[ext]["source"]
            if namespaced:
                body = []
                for line in src.split("\n"):
                    if line.lstrip().startswith("#include"):
                        includes.append(line.strip())
                        body.append("")  # keep line numbers close to the original
                    else:
                        body.append(line)
                parts.append(f"namespace kaudit_ext_{i} {{  // extension `{ext}`\n" + "\n".join(body) + "\n}")
            else:
                parts.append(src)
        source = ("\n".join(dict.fromkeys(includes)) + "\n" if includes else "") + "\n".join(parts)
        if not source.endswith("\n"):
            source += "\n"
        prefix = {ext: (f"kaudit_ext_{i}::" if namespaced else "") for i, ext in enumerate(used_exts)}
        final = calls[-1]
        direct = (len(calls) == 1 and final[0] is None and final[1] is not None and final[4] is None
                  and all(a[0] in ("input", "param", "dim", "literal") for a in final[3]))
        if direct:
            return {"source": source, "entry": final[2], "args": [self._arg_json(a) for a in final[3]],
                    "glue": False, "extensions": used_exts, "functions": [final[2]]}
        # Glue: a C++ function that makes the same calls in the same order.
        params, args_json, seen = [], [], {}

        def cxx(a):
            if a[0] == "tensor":
                return a[1]
            if a[0] == "torch":
                if a[1] == "binop":
                    return f"({cxx(a[3])} {a[2]} {cxx(a[4])})"
                args = ", ".join(cxx(x) for x in a[4])
                return f"{cxx(a[3])}.{a[2]}({args})" if a[1] == "method" else f"torch::{a[2]}({args})"
            if a[0] == "dims":  # spelled out: a bare {0, 1} is ambiguous with a DimnameList in ATen
                return "torch::IntArrayRef{" + ", ".join(str(d) for d in a[1]) + "}"
            if a[0] == "literal" and isinstance(a[1], bool):
                return "true" if a[1] else "false"
            if a[0] == "view":
                return cxx(a[1]) + "." + a[2]
            if a[0] == "literal":
                return repr(a[1]) if isinstance(a[1], float) else str(a[1])
            key = (a[0], a[1])
            if key not in seen:
                seen[key] = f"kaudit_a{len(seen)}"
                ctype = "torch::Tensor" if a[0] in ("input", "param") else "int64_t"
                params.append(f"{ctype} {seen[key]}")
                args_json.append(self._arg_json(a))
            return seen[key]

        body = []
        for target, ext, fn, args, index in calls:
            if ext is None:  # a torch expression (or a returned name) of forward's own
                rhs = cxx(fn) if isinstance(fn, tuple) else fn
                body.append(f"  auto {target} = {rhs};" if target else f"  return {rhs};")
                continue
            call = f"{prefix[ext]}{fn}(" + ", ".join(cxx(a) for a in args) + ")"
            if index is not None:
                call += f"[{index}]"
            body.append(f"  auto {target} = {call};" if target else f"  return {call};")
        glue = ("\n// Added by kaudit import: ModelNew.forward's calls of the extension functions, in order.\n"
                "auto kaudit_forward(" + ", ".join(params) + ") {\n" + "\n".join(body) + "\n}\n")
        return {"source": source + glue, "entry": "kaudit_forward", "args": args_json, "glue": True,
                "extensions": used_exts, "functions": [c[2] for c in calls if c[1] is not None]}

    @staticmethod
    def _arg_json(a):
        kind, v = a[0], a[1]
        if kind == "input":
            return v
        if kind == "param":
            return "param:" + v
        if kind == "dim":
            return "dim:" + v
        return v


def sanitize(name):
    s = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    return s or "kernel"


def task_name_from(problem_path):
    stem = problem_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    stem = re.sub(r"^\d+_", "", stem)
    return sanitize(stem)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("solution")
    ap.add_argument("--problem", required=True)
    ap.add_argument("--task", default="")
    ap.add_argument("--task-json", default="", help="an existing task.json to bind against")
    a = ap.parse_args()
    current = a.problem
    try:
        with open(a.problem, encoding="utf-8") as f:
            ptext = f.read()
        current = a.solution
        with open(a.solution, encoding="utf-8") as f:
            stext = f.read()
        current = a.problem
        problem = Problem(a.problem, ptext)
        name = a.task or task_name_from(a.problem)
        if a.task_json:
            with open(a.task_json, encoding="utf-8") as f:
                task = json.load(f)
            new_task = None
        else:
            task = problem.task_json(name)
            new_task = task
        current = a.solution
        solution = Solution(a.solution, stext, problem, task)
        solution.task_is_new = new_task is not None
        kernel = solution.analyse()
        out = {"ok": True, "task": new_task, "task_name": name,
               "problem_sha256": hashlib.sha256(ptext.encode()).hexdigest(),
               "solution_sha256": hashlib.sha256(stext.encode()).hexdigest(),
               "kernel": kernel}
    except Unsupported as e:
        out = {"ok": False, "file": e.path, "line": e.line, "column": e.column, "construct": e.construct,
               "message": e.message, "fix": e.fix}
    except SyntaxError as e:
        out = {"ok": False, "file": e.filename or current, "line": e.lineno or 0, "column": e.offset or 0,
               "construct": "syntax", "message": "Python syntax error: " + str(e.msg), "fix": ""}
    except OSError as e:
        out = {"ok": False, "file": e.filename or "", "line": 0, "column": 0, "construct": "file",
               "message": str(e.strerror), "fix": ""}
    except UnicodeDecodeError as e:
        with open(current, "rb") as f:
            raw = f.read()
        line = raw.count(b"\n", 0, e.start) + 1
        column = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        out = {"ok": False, "file": current, "line": line, "column": column, "construct": "encoding",
               "message": "not UTF-8 text: byte 0x%02x cannot be decoded" % raw[e.start],
               "fix": "save the file as UTF-8"}
    except (RecursionError, MemoryError, ValueError, KeyError, TypeError, ArithmeticError) as e:
        # Anything the analysis did not foresee: one line naming the file, never a traceback.
        out = {"ok": False, "file": current, "line": 0, "column": 0, "construct": "analysis",
               "message": "cannot analyse this file (%s: %s)" % (type(e).__name__, str(e)[:200]),
               "fix": "simplify the construct, or report the file to kaudit's maintainers"}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
