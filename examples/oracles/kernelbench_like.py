"""KernelBench's correctness check written as a checker (the `kernelbench` built-in spec's rule):
every output must have the reference's shape and pass torch.allclose against the Model run in
float32, at the tolerance of the precision the task is evaluated in (KernelBench's
get_tolerance_for_precision: 1e-4 for float32, 1e-2 for float16 and bfloat16), which is the dtype
of its floating inputs (kaudit's evaluation_precision). Run by kaudit through
examples/oracles/kernelbench_like.json.

The comparison is made in float64, as kaudit's own comparator makes it (oracle/compare.cpp): on
half outputs torch.allclose in float16 would round the tolerance itself.

With --swallow-exceptions it plants a harness bug for kaudit's tests
(tests/fixtures/external_checkers/swallows_exceptions.json): a trial whose candidate threw is
skipped as passed, as a loop around `try: ... except Exception: continue` would skip it.
"""
import sys

import torch

import kaudit_checker

TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 1e-2}


def precision(inputs):
    """The dtype of the first floating input, float32 where there is none."""
    return next((x.dtype for x in inputs if x.dtype in TOLERANCE), torch.float32)


def judge(trial):
    tol = TOLERANCE[precision(trial.inputs)]
    if len(trial.outputs) != len(trial.reference_fp32):
        return False, f"{len(trial.outputs)} outputs, the reference has {len(trial.reference_fp32)}"
    for i, (out, ref) in enumerate(zip(trial.outputs, trial.reference_fp32)):
        if out.shape != ref.shape:
            return False, f"output {i}: shape {tuple(out.shape)}, reference {tuple(ref.shape)}"
        ref = ref.to(out.dtype)  # as kaudit's comparator does (oracle/comparator.cpp)
        if not torch.allclose(out.double(), ref.double(), rtol=tol, atol=tol):
            diff = (out.double() - ref.double()).abs().nan_to_num(float("inf")).max().item()
            return False, f"output {i}: max |out - ref| {diff:.3g} beyond allclose({tol:g}, {tol:g})"
    return True


def skip_exceptions(trial):
    if trial.outcome == "exception":
        return True, "skipped: the candidate threw"
    return False, f"the run did not complete: {trial.outcome}"


if "--swallow-exceptions" in sys.argv[1:]:
    kaudit_checker.serve(judge, judge_incomplete=skip_exceptions)
else:
    kaudit_checker.serve(judge)
