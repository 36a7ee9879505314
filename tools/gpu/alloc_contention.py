# Does emptying PyTorch's caching allocator before each harness request (what the CUDA worker
# does, as KernelBench does between kernels) make concurrent workers slow each other down?
# N processes, each its own CUDA context, loop over "requests" of five small trials (inputs,
# a reference, an output, allclose, a copy back) for S seconds, with or without
# torch.cuda.empty_cache() at the start of each request; prints requests per second in all.
# Usage: python3 tools/gpu/alloc_contention.py [SECONDS]
import multiprocessing as mp
import sys
import time

import torch


def worker(mode, seconds, shape, start, out):
    dev = torch.device("cuda")
    torch.empty(1, device=dev)
    start.wait()
    done, t0 = 0, time.time()
    while time.time() - t0 < seconds:
        if mode == "empty":
            torch.cuda.empty_cache()
        for _ in range(5):
            x = torch.rand(shape, device=dev)
            ref = torch.relu(x)
            y = torch.empty_like(x)
            y.copy_(ref)
            torch.allclose(y, ref, rtol=1e-2, atol=1e-2)
            y.cpu()
        done += 1
    out.put(done)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    ctx = mp.get_context("spawn")
    for shape in ((64, 4096), (16, 16384 * 64)):
        for mode in ("keep", "empty"):
            for procs in (1, 2, 4, 16):
                start, out = ctx.Barrier(procs + 1), ctx.Queue()
                ps = [ctx.Process(target=worker, args=(mode, seconds, shape, start, out)) for _ in range(procs)]
                for p in ps:
                    p.start()
                start.wait()
                total = sum(out.get() for _ in ps)
                for p in ps:
                    p.join()
                print(f"shape {shape}, {mode:5s} cache, {procs:2d} processes: {total / seconds:8.1f} requests/s in all",
                      flush=True)


if __name__ == "__main__":
    main()
