#!/usr/bin/python3
"""Export a KernelBench-style problem's Model to TorchScript, for kaudit's C++ side.

usage: export_reference.py PROBLEM_PY INIT_ARGS_JSON OUTPUT_PT [--example-inputs JSON]

  PROBLEM_PY       path to problem.py (defines Model; get_inputs/get_init_inputs are not called)
  INIT_ARGS_JSON   the Model.__init__ arguments as a JSON list, e.g. '[1024, 1e-05]'
  OUTPUT_PT        where to write the TorchScript file (written to a temporary file in the same
                   folder, then renamed: readers never see a half-written file)
  --example-inputs JSON list of {"shape": [...], "dtype": "float32"|"float16"|"bfloat16"|"int64"}, used
                   only if torch.jit.script fails and the Model has to be traced instead; a
                   {"value": number} entry (a number argument) refuses the trace

The Model is built with torch.manual_seed(0) just before construction so that its parameters are
the same on every run, then put in eval() mode. On success one line of JSON goes to stdout:
  {"ok": true, "method": "script"|"trace", "parameters": [{"name", "shape", "dtype"}],
   "buffers": [...], "torch_version": "...", ...}
Anything problem.py prints is redirected to stderr so that stdout stays parseable.
On failure: a message "export_reference: error: <problem.py>:<line>: <exception>" (the line is
the innermost frame inside problem.py) and the traceback go to stderr; the exit code is 1
(2 for a usage error).

Run it with the interpreter that has torch (Debian: /usr/bin/python3 with python3-torch).
"""

import contextlib
import importlib.util
import json
import os
import re
import secrets
import sys
import traceback

# Never write __pycache__ next to the corpus' problem.py files.
sys.dont_write_bytecode = True

PROG = "export_reference"


class ExportError(Exception):
    """An error already formatted for the user (message, optional line in problem.py)."""

    def __init__(self, message, line=None, details=""):
        super().__init__(message)
        self.line = line
        self.details = details


def usage_error(msg):
    sys.stderr.write(f"{PROG}: usage error: {msg}\n")
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(2)


def same_file(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (TypeError, ValueError):
        return False


def problem_line(exc, problem):
    """The line in problem.py where `exc` happened: the innermost traceback frame inside it, the
    position of a SyntaxError, or a 'File "problem.py", line N' that TorchScript puts in its
    messages."""
    if isinstance(exc, SyntaxError) and exc.filename and same_file(exc.filename, problem):
        return exc.lineno
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if same_file(frame.filename, problem):
            line = frame.lineno
    if line is None:
        for m in re.finditer(r'File "([^"]+)", line (\d+)', str(exc)):
            if same_file(m.group(1), problem):
                line = int(m.group(2))
    return line


def describe(exc):
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def load_problem(problem):
    if not os.path.isfile(problem):
        raise ExportError(f"no such file: {problem}")
    directory = os.path.dirname(os.path.abspath(problem))
    # A problem may import a helper next to it.
    sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location("kaudit_problem", problem)
    module = importlib.util.module_from_spec(spec)
    sys.modules["kaudit_problem"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 -- any failure of user code is reported the same way
        raise ExportError(f"importing problem.py failed: {describe(e)}", problem_line(e, problem),
                          traceback.format_exc()) from e
    if not hasattr(module, "Model"):
        raise ExportError("problem.py defines no class Model", None)
    return module


def example_tensors(torch, spec):
    out = []
    for i, item in enumerate(spec):
        try:
            shape = [int(s) for s in item["shape"]]
            dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                     "int64": torch.int64}[item.get("dtype", "float32")]
        except (KeyError, TypeError, ValueError) as e:
            raise ExportError(f"--example-inputs entry #{i} is malformed: {e!r}") from e
        if dtype == torch.int64:
            out.append(torch.zeros(shape, dtype=dtype))  # index 0 is legal for any class count
        else:
            # positive values: legal for every domain (log, sqrt, probabilities)
            out.append((torch.rand(shape) + 0.1).to(dtype))
    return tuple(out)


def tensor_info(name, t):
    return {"name": name, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}


def export(problem, init_args, output, example_spec):
    import torch  # imported here so that a missing torch is reported as such

    module = load_problem(problem)
    torch.manual_seed(0)
    try:
        model = module.Model(*init_args)
        model.eval()
    except Exception as e:  # noqa: BLE001
        raise ExportError(f"Model(*{init_args!r}) failed: {describe(e)}", problem_line(e, problem),
                          traceback.format_exc()) from e

    method, script_error = "script", None
    try:
        exported = torch.jit.script(model)
    except Exception as e:  # noqa: BLE001
        script_error = e
        script_tb = traceback.format_exc()
    if script_error is not None:
        if example_spec is not None and any("value" in item for item in example_spec):
            # A trace would bake the number into the graph and take only the tensors.
            raise ExportError(f"torch.jit.script failed ({describe(script_error)}) and a Model whose forward "
                              "takes numbers cannot be traced: make it scriptable",
                              problem_line(script_error, problem), script_tb)
        if example_spec is None:
            raise ExportError(f"torch.jit.script failed: {describe(script_error)}",
                              problem_line(script_error, problem), script_tb)
        method = "trace"
        try:
            with torch.no_grad():
                exported = torch.jit.trace(model, example_tensors(torch, example_spec),
                                           check_trace=False)
        except ExportError:
            raise
        except Exception as e:  # noqa: BLE001
            raise ExportError(
                f"torch.jit.script failed ({describe(script_error)}) and torch.jit.trace failed "
                f"too: {describe(e)}",
                problem_line(e, problem) or problem_line(script_error, problem),
                script_tb + "\n" + traceback.format_exc()) from e

    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    tmp = f"{output}.tmp.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        torch.jit.save(exported, tmp)
        os.replace(tmp, output)  # atomic on POSIX: concurrent exporters never corrupt the cache
    except Exception as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise ExportError(f"cannot write {output}: {describe(e)}") from e

    result = {
        "ok": True,
        "problem": os.path.abspath(problem),
        "output": os.path.abspath(output),
        "method": method,
        "init_args": init_args,
        "torch_version": torch.__version__,
        "parameters": [tensor_info(n, p) for n, p in model.named_parameters()],
        "buffers": [tensor_info(n, b) for n, b in model.named_buffers()],
    }
    if script_error is not None:
        result["script_error"] = describe(script_error)
    return result


def main(argv):
    args = list(argv[1:])
    example_spec = None
    if "--example-inputs" in args:
        i = args.index("--example-inputs")
        if i + 1 >= len(args):
            usage_error("--example-inputs needs a JSON argument")
        try:
            example_spec = json.loads(args[i + 1])
        except json.JSONDecodeError as e:
            usage_error(f"--example-inputs is not JSON: {e}")
        if not isinstance(example_spec, list):
            usage_error("--example-inputs must be a JSON list")
        del args[i:i + 2]
    if len(args) != 3:
        usage_error(f"expected 3 positional arguments, got {len(args)}")
    problem, init_json, output = args
    try:
        init_args = json.loads(init_json)
    except json.JSONDecodeError as e:
        usage_error(f"INIT_ARGS_JSON is not JSON: {e}")
    if not isinstance(init_args, list):
        usage_error("INIT_ARGS_JSON must be a JSON list")

    try:
        # problem.py may print; keep stdout for our one JSON line.
        with contextlib.redirect_stdout(sys.stderr):
            result = export(problem, init_args, output, example_spec)
    except ExportError as e:
        where = f"{problem}:{e.line}" if e.line else problem
        sys.stderr.write(f"{PROG}: error: {where}: {e}\n")
        if e.details:
            sys.stderr.write(e.details)
        return 1
    except ImportError as e:
        sys.stderr.write(f"{PROG}: error: {problem}: cannot import torch ({e}); run this script "
                         f"with a Python that has torch (Debian: apt install python3-torch, "
                         f"then /usr/bin/python3)\n")
        return 1
    except Exception as e:  # noqa: BLE001 -- last resort, still one clear line first
        sys.stderr.write(f"{PROG}: error: {problem}: unexpected {describe(e)}\n")
        sys.stderr.write(traceback.format_exc())
        return 1
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
