"""Write a checker kaudit can grade: the Python side of kaudit's external-checker protocol.

A spec with "kind": "external" (docs/ORACLES.md, "External checkers") names a command; kaudit
starts it and sends it one JSON request per line on stdin, and reads one JSON reply per line on
stdout. This module speaks that protocol, so a checker is a function:

    import kaudit_checker

    def judge(trial):
        # trial.outputs: the candidate's output tensors (torch, on the CPU)
        # trial.reference_fp32 / trial.reference_fp64: the task's Model in float32 / float64
        # trial.inputs: the trial's input tensors; trial.task, trial.trial, trial.trial_name,
        # trial.dims, trial.problem (path of problem.py)
        # what the run did: trial.launches (kernels launched), trial.library_calls (torch
        # matmul/addmm/... calls), trial.launch_log (per launch: grid, block, shared_bytes,
        # stream), trial.unwritten (output elements left unwritten, when probed); None where
        # the backend recorded nothing
        ok = all(torch.allclose(o, r, rtol=1e-4, atol=1e-4)
                 for o, r in zip(trial.outputs, trial.reference_fp32))
        return ok, "" if ok else "outputs differ"     # or just a bool

    kaudit_checker.serve(judge)

Runs that did not complete (trial.outcome "crash", "timeout", "exception", "launch-error", ...;
trial.message says why; no outputs) go to judge_incomplete(trial) when serve() is given one, and
are failed otherwise, as a harness that lets the error end the check does.

kaudit puts this file's folder on PYTHONPATH when it starts a checker. Print nothing else on
stdout (it is the protocol's channel): log to stderr. Tensors come as NumPy .npy files, read here
without NumPy (the Debian Python kaudit uses has none).
"""
import ast
import ctypes
import json
import os
import sys

import torch

_DTYPES = {
    "<f4": torch.float32, "<f8": torch.float64, "<f2": torch.float16, "<i8": torch.int64,
    "<i4": torch.int32, "<i2": torch.int16, "|i1": torch.int8, "|u1": torch.uint8, "|b1": torch.bool,
    # NumPy has no bfloat16: kaudit writes its bits as two opaque bytes per element (oracle/npy.h).
    "|V2": torch.bfloat16,
}


def load_npy(path):
    """A tensor from a .npy file written by kaudit (version 1.0, C order, little-endian)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    header_len = int.from_bytes(data[8:10], "little")
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    if header.get("fortran_order"):
        raise ValueError(f"{path}: Fortran order is not supported")
    dtype = _DTYPES["|V2" if header["descr"] == "<V2" else header["descr"]]
    shape = tuple(header["shape"])
    body = bytearray(data[10 + header_len:])
    if not body:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(body, dtype=dtype).reshape(shape)


_DESCRS = {v: k for k, v in _DTYPES.items()}


def save_npy(path, tensor):
    """Writes a CPU tensor as a .npy file (version 1.0, C order) that kaudit reads."""
    t = tensor.detach().to("cpu").contiguous()
    shape = f"({t.shape[0]},)" if t.dim() == 1 else "(" + ", ".join(str(d) for d in t.shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (_DESCRS[t.dtype], shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    nbytes = t.numel() * t.element_size()
    data = ctypes.string_at(t.data_ptr(), nbytes) if nbytes else b""
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1") + data)


class _Request:
    """What every request says: the task, its problem.py, the trial and the dims."""

    def __init__(self, request):
        self.request = request
        self.task = request["task"]
        self.problem = request["problem"]
        self.trial = request["trial"]
        self.trial_name = request["trial_name"]
        self.dims = request.get("dims", {})


class Inputs(_Request):
    """One inputs request: the tensors a trial of a task needs, to be made by the checker."""

    def __init__(self, request):
        super().__init__(request)
        self.seed = request.get("seed", 0)
        # [{"name", "dtype" (task.json's: float32, float16, int64, bool), "shape": [ints],
        #   "domain" (real, positive, probability, index, ...), "bound" (index inputs)}]
        self.inputs = request["inputs"]


_TORCH_DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "int64": torch.int64,
    "bool": torch.bool,
}


def torch_dtype(name):
    """The torch dtype of a task.json dtype name."""
    return _TORCH_DTYPES[name]


class Trial(_Request):
    """One judge request: what the checker is asked about."""

    def __init__(self, request):
        super().__init__(request)
        run = request.get("run") or {}
        self.outcome = run.get("outcome", request.get("outcome", "ok"))
        self.message = run.get("message", "")
        self.launches = run.get("launches")
        self.library_calls = run.get("library_calls")
        self.unwritten = run.get("unwritten")
        self.launch_log = run.get("launch_log") or []
        self.inputs = [load_npy(p) for p in request["inputs"]]
        self.reference_fp32 = [load_npy(p) for p in request["reference_fp32"]]
        self.reference_fp64 = [load_npy(p) for p in request["reference_fp64"]]
        self.outputs = [load_npy(p) for p in request["outputs"]]


def _reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _failed_run(trial):
    return False, f"the run did not complete: {trial.outcome}" + (f" ({trial.message})" if trial.message else "")


def serve(judge, make_inputs=None, judge_incomplete=_failed_run):
    """Answers kaudit's requests until stdin closes. judge(Trial) returns a bool, (bool, reason)
    or (bool, reason, cause) for a run that completed, where cause names a gate the checker
    applied ("no-launch", "library-compute", "unwritten-output") or "wrong-output"/"nan-inf"; judge_incomplete(Trial) the same for one that did not (default: it
    fails); make_inputs(Inputs), for specs whose trials say "distribution": "checker", returns one
    tensor per task input, of its dtype and shape."""
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        rid, op = request.get("id"), request.get("op")
        if op == "hello":
            _reply({"id": rid, "ok": request.get("protocol") == 1})
        elif op == "judge":
            trial = Trial(request)
            verdict = (judge if trial.outcome == "ok" else judge_incomplete)(trial)
            verdict = (verdict, "") if isinstance(verdict, bool) else tuple(verdict)
            reply = {"id": rid, "pass": bool(verdict[0]), "reason": str(verdict[1])}
            if len(verdict) > 2 and verdict[2]:
                reply["cause"] = str(verdict[2])
            _reply(reply)
        elif op == "inputs" and make_inputs is not None:
            tensors = make_inputs(Inputs(request))
            files = []
            for i, t in enumerate(tensors):
                path = os.path.join(request["dir"], f"{i}.npy")
                save_npy(path, t)
                files.append(path)
            _reply({"id": rid, "files": files})
        else:
            _reply({"id": rid, "error": f"this checker does not answer {op!r} requests"})
