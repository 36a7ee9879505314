#!/usr/bin/env python3
"""A harness that evaluates one KernelBench solution file the way KernelBench's correctness check
does, for `kaudit audit --oracle-command` (solutions/command_oracle.h) on a GPU machine.

usage: kernelbench_eval.py SOLUTION PROBLEM [--protocol head|v0.1] [--trials N] [--tol T]

It is this project's own replica of the loop ../shared/FACTS.md section 2b reads in KernelBench
(src/kernelbench/eval.py at 423217d), written so that its choices can be checked against it:
  - seeds: torch.manual_seed(42), then N draws of torch.randint(0, 2**32 - 1) give the trial seeds;
  - init inputs from get_init_inputs() after set_seed(42) (tensors moved to the GPU); the Model is
    built after set_seed(42), then ModelNew after set_seed(42) again (so it can draw the same
    parameters); KernelBench also casts both models with .to(dtype=precision), a no-op for the
    float32 models here, which this replica leaves out;
  - per trial: set_seed(trial seed), inputs = get_inputs() (drawn on the CPU by the problem file),
    with --protocol head floating inputs cast to float32 (HEAD casts to the eval precision; it casts
    integer targets too, KernelBench issue #151, which this replica does not copy, as it would break
    every integer-target task), then moved to the GPU; the Model runs first, then ModelNew, on the
    same uncloned tensors; a shape mismatch fails at once; torch.allclose(output, output_new,
    atol=T, rtol=T); any exception fails;
  - --protocol head: tolerance 1e-4 (fp32), v0.1: 1e-2 and inputs only moved by .cuda().
The verdict is the last line on stdout: {"pass": bool, "cause": ..., "reason": ...}; exit 0 when
it passes, 1 when it does not. A CUDA error in the candidate poisons the context: the verdict is
printed before the process ends. An error of the harness itself (the problem file, the reference
Model, no GPU) is exit status 2 with no verdict line: kaudit then stops instead of counting it.
"""

import argparse
import json
import sys


def set_seed(torch, seed):
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)


def load(path, name):
    ns = {"__name__": name}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def classify(e):
    text = str(e)
    if any(c in text for c in ("illegal memory access", "misaligned address", "unspecified launch failure",
                               "illegal instruction", "device-side assert", "hardware stack error")):
        return "crash"
    if any(c in text for c in ("invalid configuration argument", "too many resources requested",
                               "launch out of resources")):
        return "launch-error"
    return "exception"


def verdict(ok, cause="", reason=""):
    print(json.dumps({"pass": ok, "cause": cause, "reason": reason[:400]}), flush=True)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("solution")
    ap.add_argument("problem")
    ap.add_argument("--protocol", choices=["head", "v0.1"], default="head")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--tol", type=float, default=None)
    args = ap.parse_args()
    tol = args.tol if args.tol is not None else (1e-4 if args.protocol == "head" else 1e-2)

    import torch
    problem = load(args.problem, "kernelbench_problem")
    set_seed(torch, 42)
    trial_seeds = [int(s) for s in torch.randint(0, 2 ** 32 - 1, (args.trials,))]
    set_seed(torch, 42)
    init_inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in problem["get_init_inputs"]()]
    with torch.no_grad():
        set_seed(torch, 42)
        model = problem["Model"](*init_inputs).cuda()
        try:
            solution = load(args.solution, "kernelbench_solution")
            set_seed(torch, 42)
            model_new = solution["ModelNew"](*init_inputs).cuda()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 (a solution that does not build or load fails)
            return verdict(False, classify(e), "loading the solution: " + str(e).splitlines()[0] if str(e) else repr(e))
        for t, seed in enumerate(trial_seeds):
            set_seed(torch, seed)
            inputs = problem["get_inputs"]()
            if args.protocol == "head":
                inputs = [x.float() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
            inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in inputs]
            output = model(*inputs)
            torch.cuda.synchronize()
            try:
                output_new = model_new(*inputs)
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                return verdict(False, classify(e), f"trial {t + 1}: " + (str(e).splitlines()[0] if str(e) else repr(e)))
            if output.shape != output_new.shape:
                return verdict(False, "wrong-output", f"trial {t + 1}: shape {tuple(output_new.shape)} vs {tuple(output.shape)}")
            if not torch.allclose(output, output_new, atol=tol, rtol=tol):
                nan = bool((~torch.isfinite(output_new) & torch.isfinite(output)).any().item())
                diff = torch.max(torch.abs(output - output_new)).item()
                return verdict(False, "nan-inf" if nan else "wrong-output", f"trial {t + 1}: max difference {diff:.3g}")
    return verdict(True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 (the harness's own failure, not the candidate's)
        import traceback
        traceback.print_exc()
        sys.stderr.write(f"kernelbench_eval.py: the harness itself failed: {type(e).__name__}: {e}\n")
        sys.exit(2)
