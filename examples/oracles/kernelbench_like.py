"""KernelBench's correctness check written as a checker (the `kernelbench` built-in spec's rule):
every output must have the reference's shape and pass torch.allclose against the Model run in
float32, at the tolerance of the precision the task is evaluated in (KernelBench's
get_tolerance_for_precision: 1e-4 for float32, 1e-2 for float16 and bfloat16), which is the dtype
of its floating inputs (kaudit's evaluation_precision). Run by kaudit through
examples/oracles/kernelbench_like.json.

The comparison is made in float64, as kaudit's own comparator makes it (oracle/compare.cpp): on
half outputs torch.allclose in float16 would round the tolerance itself.

With --swallow OUTCOMES (a comma-separated list: exception, crash, timeout, launch-error) it plants
a harness bug for kaudit's tests (tests/fixtures/external_checkers/swallows_exceptions.json,
passes_crashes.json): a trial whose run ended so is skipped as passed, as a loop around
`try: ... except Exception: continue` skips a candidate that threw.
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


SWALLOWED = sys.argv[sys.argv.index("--swallow") + 1].split(",") if "--swallow" in sys.argv[1:-1] else []


def incomplete(trial):
    if trial.outcome in SWALLOWED:
        return True, f"skipped: {trial.outcome}"
    return False, f"the run did not complete: {trial.outcome}" + (f" ({trial.message})" if trial.message else "")


kaudit_checker.serve(judge, judge_incomplete=incomplete)
