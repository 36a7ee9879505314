#!/usr/bin/env python3
"""Does a KernelBench-style float32 check accept an exact float32 result on this GPU?

KernelBench runs the reference Model in float32 on the GPU with PyTorch's defaults (no TF32 flag
is set: ../shared/FACTS.md, section 2b), and PyTorch's default lets cuDNN use TF32 for float32
convolutions. kaudit's CUDA backend runs references the same way (oracle/reference.h). This probe
says, per task, how far that float32 reference lies from the float64 Model rounded to float32 (what
a correct float32 kernel approximates), and whether torch.allclose at 1e-4 and 1e-2 (KernelBench
now and v0.1) accepts the rounded float64 result against it, with PyTorch's defaults and with TF32
turned off. Inputs: the problem's own get_inputs() after torch.manual_seed(0), on the CPU, moved to
the GPU.

Usage: python3 tools/gpu/tf32_probe.py corpus/tasks/conv2d [more task folders...]  (JSON lines out)
"""
import importlib.util
import json
import sys

import torch


def load(problem):
    spec = importlib.util.spec_from_file_location("problem", problem)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def probe(task_dir):
    mod = load(f"{task_dir}/problem.py")
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).cuda().eval()
    torch.manual_seed(0)
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
    with torch.no_grad():
        exact = model.double()(*[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                                 for x in inputs]).float()
        model.float()
        row = {"task": task_dir.rstrip("/").split("/")[-1],
               "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
               "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32}
        for label, tf32 in (("default", torch.backends.cudnn.allow_tf32), ("tf32_off", False)):
            saved = torch.backends.cudnn.allow_tf32
            torch.backends.cudnn.allow_tf32 = tf32
            ref = model(*inputs)
            torch.backends.cudnn.allow_tf32 = saved
            diff = (ref - exact).abs()
            row[label] = {
                "max_abs_diff": diff.max().item(),
                # KernelBench: torch.allclose(ref, new, atol=tol, rtol=tol): |ref - new| <= tol + tol |new|
                "accepts_at_1e-4": bool(torch.allclose(ref, exact, atol=1e-4, rtol=1e-4)),
                "accepts_at_1e-2": bool(torch.allclose(ref, exact, atol=1e-2, rtol=1e-2)),
                "elements_over_1e-4": int((diff > 1e-4 + 1e-4 * exact.abs()).sum().item()),
                "elements": exact.numel(),
            }
    return row


if __name__ == "__main__":
    print(json.dumps({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0),
                      "cudnn": torch.backends.cudnn.version()}), flush=True)
    for d in sys.argv[1:]:
        try:
            print(json.dumps(probe(d)), flush=True)
        except Exception as e:  # a task whose Model does not run here: say so and go on
            print(json.dumps({"task": d, "error": str(e)}), flush=True)
