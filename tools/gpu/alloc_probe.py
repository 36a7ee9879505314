# Does a block PyTorch's caching allocator gets from the driver after empty_cache() hold what an
# earlier tensor of the same process left there? (KernelBench empties the cache between kernels:
# src/kernelbench/eval.py, graceful_eval_cleanup.)
import torch
dev = torch.device("cuda")
for mib in (1, 4, 64, 1024):
    n = mib * (1 << 20) // 4
    a = torch.full((n,), 1234.5, device=dev); torch.cuda.synchronize(); ptr_a = a.data_ptr()
    del a
    same_cached = torch.empty(n, device=dev)
    reuse_cached = bool((same_cached == 1234.5).all())
    del same_cached
    torch.cuda.empty_cache()
    b = torch.empty(n, device=dev); torch.cuda.synchronize()
    frac_stale = float((b == 1234.5).float().mean()); frac_zero = float((b == 0).float().mean())
    print(f"{mib} MiB: cached reuse holds old values: {reuse_cached}; after empty_cache: same address {b.data_ptr() == ptr_a}, "
          f"old values {frac_stale:.3f}, zeros {frac_zero:.3f}")
    del b
    torch.cuda.empty_cache()
