"""KernelBench's correctness check written as a checker (the `kernelbench` built-in spec's rule):
every output must have the reference's shape and pass torch.allclose(rtol=1e-4, atol=1e-4)
against the Model run in float32. Run by kaudit through examples/oracles/kernelbench_like.json.

The comparison is made in float64, as kaudit's own comparator makes it (oracle/compare.cpp): on
half outputs torch.allclose in float16 would round the tolerance itself.
"""
import torch

import kaudit_checker


def judge(trial):
    if len(trial.outputs) != len(trial.reference_fp32):
        return False, f"{len(trial.outputs)} outputs, the reference has {len(trial.reference_fp32)}"
    for i, (out, ref) in enumerate(zip(trial.outputs, trial.reference_fp32)):
        if out.shape != ref.shape:
            return False, f"output {i}: shape {tuple(out.shape)}, reference {tuple(ref.shape)}"
        ref = ref.to(out.dtype)  # as kaudit's comparator does (oracle/comparator.cpp)
        if not torch.allclose(out.double(), ref.double(), rtol=1e-4, atol=1e-4):
            diff = (out.double() - ref.double()).abs().nan_to_num(float("inf")).max().item()
            return False, f"output {i}: max |out - ref| {diff:.3g} beyond allclose(1e-4, 1e-4)"
    return True


kaudit_checker.serve(judge)
