"""The RL gym's correctness check (seed document 000, gym v8/v9; ../shared/FACTS.md section 2)
written as a checker: five hidden cases (the trials of gym_hidden_cases.json: a normal input, x3,
x0.01, sign-flipped and |x|), each output within 1e-4 scaled by the output's magnitude of the
Model run in float32. "Scaled by magnitude" is read as |out - ref| <= 1e-4 |ref| + 1e-4 max(1,
max |ref|), as the built-in gym-v9 spec reads it (suites/gym-v9.json), so the two must agree.

The gym's v5 partial credit (a case within 1e-2 but not 1e-4) is a reward, not a pass: the case
fails here and the reason says it would have earned partial credit.

With --gates it also applies the gym's two gates (seed document 000) to what kaudit recorded of
each run, before the comparison, as the built-in spec examples/oracles/gym_v9_gates.json does:
the kernel must actually launch (trial.launches), and no fallback to library compute
(trial.library_calls); the reply names the gate as the kill's cause.
"""
import sys

import torch

import kaudit_checker


def within(out, ref, tol):
    finite = ref.double()[torch.isfinite(ref.double())]
    scale = max(1.0, finite.abs().max().item()) if finite.numel() else 1.0
    out, ref = out.double(), ref.to(out.dtype).double()  # the reference cast to the output dtype
    allowed = tol * ref.abs() + tol * scale
    close = (out == ref) | ((out - ref).abs() <= allowed)
    return bool(close.all())


GATES = "--gates" in sys.argv[1:]


def judge(trial):
    # None: the backend recorded nothing, which fails no gate.
    if GATES and trial.launches == 0:
        return False, "the candidate launched no kernel (the gym's gate)", "no-launch"
    if GATES and (trial.library_calls or 0) > 0:
        return False, f"the candidate made {trial.library_calls} library compute calls (the gym's gate)", "library-compute"
    if len(trial.outputs) != len(trial.reference_fp32):
        return False, f"{len(trial.outputs)} outputs, the reference has {len(trial.reference_fp32)}"
    for i, (out, ref) in enumerate(zip(trial.outputs, trial.reference_fp32)):
        if out.shape != ref.shape:
            return False, f"output {i}: shape {tuple(out.shape)}, reference {tuple(ref.shape)}"
        if not within(out, ref, 1e-4):
            credit = " (within 1e-2: partial credit in gym v5+)" if within(out, ref, 1e-2) else ""
            return False, f"hidden case {trial.trial_name}: output {i} beyond 1e-4 x magnitude{credit}"
    return True


kaudit_checker.serve(judge)
