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
        ok = all(torch.allclose(o, r, rtol=1e-4, atol=1e-4)
                 for o, r in zip(trial.outputs, trial.reference_fp32))
        return ok, "" if ok else "outputs differ"     # or just a bool

    kaudit_checker.serve(judge)

kaudit puts this file's folder on PYTHONPATH when it starts a checker. Print nothing else on
stdout (it is the protocol's channel): log to stderr. Tensors come as NumPy .npy files, read here
without NumPy (the Debian Python kaudit uses has none).
"""
import ast
import json
import sys

import torch

_DTYPES = {
    "<f4": torch.float32, "<f8": torch.float64, "<f2": torch.float16, "<i8": torch.int64,
    "<i4": torch.int32, "<i2": torch.int16, "|i1": torch.int8, "|u1": torch.uint8, "|b1": torch.bool,
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
    dtype = _DTYPES[header["descr"]]
    shape = tuple(header["shape"])
    body = bytearray(data[10 + header_len:])
    if not body:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(body, dtype=dtype).reshape(shape)


class Trial:
    """One judge request: what the checker is asked about."""

    def __init__(self, request):
        self.request = request
        self.task = request["task"]
        self.problem = request["problem"]
        self.trial = request["trial"]
        self.trial_name = request["trial_name"]
        self.dims = request.get("dims", {})
        self.outcome = request.get("outcome", "ok")
        self.inputs = [load_npy(p) for p in request["inputs"]]
        self.reference_fp32 = [load_npy(p) for p in request["reference_fp32"]]
        self.reference_fp64 = [load_npy(p) for p in request["reference_fp64"]]
        self.outputs = [load_npy(p) for p in request["outputs"]]


def _reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(judge):
    """Answers kaudit's requests until stdin closes. judge(Trial) returns a bool or (bool, reason)."""
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        rid, op = request.get("id"), request.get("op")
        if op == "hello":
            _reply({"id": rid, "ok": request.get("protocol") == 1})
        elif op == "judge":
            verdict = judge(Trial(request))
            passed, reason = (verdict, "") if isinstance(verdict, bool) else verdict
            _reply({"id": rid, "pass": bool(passed), "reason": str(reason)})
        else:
            _reply({"id": rid, "error": f"unknown op {op!r}"})
