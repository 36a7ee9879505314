#!/usr/bin/env python3
"""kaudit's GPU calibration of oracle mode (docs/ORACLES.md, Calibration).

usage: calibrate.py run BUNDLE OUT [--reps N] [--jobs J] [--timeout S] [--limit N] [--fresh-process] [--dry-run]
       calibrate.py agree BUNDLE GPU_RESULTS OUT
       calibrate.py probe OUT

Runs where a GPU is: PyTorch with CUDA and nvcc, nothing of kaudit's C++ build. `run` builds each
kernel source of a bundle written by `kaudit gpu-bundle` with nvcc (the entry registered as a torch
operator: runtime/cuda/include/kaudit_gpu_entry.h), then evaluates every mutant, and each kernel's original,
under a replica of KernelBench's correctness loop (run_and_check_correctness, as FACTS.md section
2b reads it: per trial the inputs are moved to the GPU, the Model runs first, then ModelNew on the
same uncloned tensors, shapes are compared, then torch.allclose; an exception ends the loop, a
mismatch does not), once per check of the bundle and repetition. Evaluations run in --jobs worker
processes; before each one the worker gives every cached block back to the driver
(torch.cuda.empty_cache(), cuBLAS's workspaces too), which on the H200 leaves the allocator as a
new checker process has it: blocks allocated afterwards read as zeros, at the same addresses
(`probe` measures it). A hung evaluation is killed after --timeout seconds (a timeout), a CUDA
error ends its worker (the context is unusable) and a new worker goes on. Writes to OUT:
  gpu-results.json  per mutant and check: kills out of repetitions, causes, first failing trial
  agreement.json    per family: how often the CPU's verdicts (oracle mode, witness mode) equal the
  agreement.md      GPU's (killed in at least half of the repetitions), the disagreements listed
  build-log.txt     nvcc's output for the builds that failed
`agree` recomputes the agreement from a finished run's gpu-results.json against the CPU verdicts
of a (new) bundle of the same mutants, on any machine: the GPU's verdicts do not change when the
CPU's model does. `probe` measures the facts about PyTorch's allocator and the machine that
oracle mode models and writes OUT/probe.json.
"""

import argparse
import concurrent.futures
import gc
import json
import select
import os
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "runtime", "cuda", "include")  # shared with kaudit --backend cuda

try:  # `agree` needs neither (it reads stored results): it runs where PyTorch is not installed
    import numpy as np  # noqa: E402
    import torch  # noqa: E402  (imported before any fork; CUDA is initialised in the children only)
except ImportError:
    np = torch = None

DTYPES = {} if torch is None else {
    "float": torch.float32, "double": torch.float64, "c10::Half": torch.float16, "half": torch.float16,
    "long int": torch.int64, "int64_t": torch.int64, "int": torch.int32, "bool": torch.bool,
    "unsigned char": torch.uint8, "c10::BFloat16": torch.bfloat16, "signed char": torch.int8,
    "short int": torch.int16}


_MODULES = {}
_INPUTS = {}


def trial_inputs(bundle, trial):
    """A trial's inputs, regenerated from their recipes by the module `kaudit export` wrote (the
    audit's own tensors, bit for bit), cached on disk next to the bundle's builds: generating them
    in Python takes seconds for the larger ones."""
    key = (trial["module"], trial["case"])
    if key in _INPUTS:
        return [t.clone() for t in _INPUTS[key]]
    cache = os.path.join(bundle, ".inputs-cache", os.path.basename(trial["module"]) + f".{trial['case']}.pt")
    if os.path.exists(cache):
        tensors = torch.load(cache)
    else:
        path = os.path.join(bundle, trial["module"])
        if path not in _MODULES:
            ns = {"__name__": "kaudit_inputs"}
            with open(path) as f:
                exec(compile(f.read(), path, "exec"), ns)
            _MODULES[path] = ns
        tensors = _MODULES[path]["make_inputs"](_MODULES[path]["CASES"][trial["case"]])
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        torch.save(tensors, cache + ".tmp")
        os.replace(cache + ".tmp", cache)
    _INPUTS[key] = tensors
    return [t.clone() for t in tensors]


def load_tensor(bundle, meta):
    dtype = DTYPES[meta["dtype"]]
    with open(os.path.join(bundle, meta["file"]), "rb") as f:
        raw = f.read()
    t = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
    return t.view(dtype).reshape(meta["shape"]).clone()


# ---- builds --------------------------------------------------------------------------------------
def nvcc_command(src, out):
    from torch.utils import cpp_extension
    try:
        incs = cpp_extension.include_paths(device_type="cuda")
        libs = cpp_extension.library_paths(device_type="cuda")
    except TypeError:
        incs = cpp_extension.include_paths(cuda=True)
        libs = cpp_extension.library_paths(cuda=True)
    cuda_home = cpp_extension.CUDA_HOME or "/usr/local/cuda"
    nvcc = os.path.join(cuda_home, "bin", "nvcc")
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    # The flags torch.utils.cpp_extension gives every CUDA extension (KernelBench builds its
    # solutions that way), for sm_90.
    # Host code at -O0 (only the wrapper runs there), device code at ptxas's default -O3.
    cmd = [nvcc, "-std=c++17", "-O0", "-arch=sm_90", "--shared", "-Xcompiler", "-fPIC",
           "--expt-relaxed-constexpr", "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
           "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
           f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-I" + INCLUDE] + ["-I" + p for p in incs]
    cmd += [src, "-o", out]
    for p in libs:
        cmd += ["-L" + p, "-Xlinker", "-rpath," + p]
    cmd += ["-lc10", "-lc10_cuda", "-ltorch_cpu", "-ltorch_cuda", "-ltorch"]
    return cmd


def build_all(bundle, builds, outdir, jobs, log):
    os.makedirs(outdir, exist_ok=True)
    done = {}

    def one(b):
        src = os.path.join(bundle, b["file"])
        so = os.path.join(outdir, b["lib"] + ".so")
        if os.path.exists(so):
            return b["lib"], so, 0.0, ""
        t0 = time.time()
        p = subprocess.run(nvcc_command(src, so + ".tmp"), capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            return b["lib"], None, time.time() - t0, p.stdout + p.stderr
        os.replace(so + ".tmp", so)
        return b["lib"], so, time.time() - t0, ""

    seconds = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for lib, so, s, err in ex.map(one, builds):
            done[lib] = so
            if s:
                seconds.append(s)
            if err:
                log.write(f"==== {lib}\n{err[-4000:]}\n")
    return done, seconds


# ---- the checker's loop ------------------------------------------------------------------------------
def load_problem(path):
    ns = {"__name__": "kaudit_problem"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def make_models(bundle, task, kernel, op):
    ns = load_problem(os.path.join(bundle, task["problem"]))
    torch.manual_seed(0)
    model = ns["Model"](*task["init_args"])
    named = dict(model.named_parameters())
    named.update(dict(model.named_buffers()))
    with torch.no_grad():
        for p in task["parameters"]:
            named[p["name"]].data.copy_(load_tensor(bundle, p["tensor"]))
    model.eval()

    class ModelNew(torch.nn.Module):
        """A KernelBench solution's ModelNew: its own copies of the parameters, and a forward that
        calls the extension's entry function with them (the kernel's binding)."""

        def __init__(self):
            super().__init__()
            self.names = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
            self.params = torch.nn.ParameterList(
                [torch.nn.Parameter(named[n].detach().clone(), requires_grad=False) for n in self.names])

        def forward(self, *inputs):
            tensors, values, kinds = [], [], []
            for a in kernel["args"]:
                if "input" in a:
                    tensors.append(inputs[a["input"]]); values.append(0.0); kinds.append(0)
                elif "param" in a:
                    tensors.append(self.params[self.names.index(a["param"])]); values.append(0.0); kinds.append(0)
                elif "int" in a:
                    tensors.append(None); values.append(float(a["int"])); kinds.append(1)
                elif "double" in a:
                    tensors.append(None); values.append(float(a["double"])); kinds.append(2)
                else:
                    tensors.append(None); values.append(1.0 if a["bool"] else 0.0); kinds.append(3)
            out = op.entry(tensors, values, kinds)
            return out[0] if len(out) == 1 else tuple(out)

    return model, ModelNew()


def classify(e):
    text = str(e)
    crash = ("illegal memory access", "misaligned address", "unspecified launch failure", "illegal instruction",
             "an illegal", "device-side assert", "hardware stack error", "operation not permitted when stream")
    launch = ("invalid configuration argument", "too many resources requested", "invalid argument",
              "launch out of resources")
    if any(c in text for c in crash):
        return "crash"
    if any(c in text for c in launch):
        return "launch-error"
    return "exception"


def tolerance_for(check, precision):
    """(atol, rtol) for a task evaluated in `precision` (the bundle's task "precision"): the
    check's dtype_tolerance entry when it has one (KernelBench's 1e-2 for float16 and bfloat16),
    else its own; as Comparator::tolerance_for."""
    t = check.get("dtype_tolerance", {}).get(precision)
    return (t["atol"], t["rtol"]) if t else (check["atol"], check["rtol"])


def kernelbench_loop(model, model_new, trials, atol, rtol):
    """KernelBench's run_and_check_correctness, its allocation order kept: `inputs` is rebound to
    fresh CPU tensors (the previous trial's GPU inputs are freed) before they move to the GPU,
    the reference runs first, its previous output is freed when `output` is rebound, ModelNew
    gets the same tensors. Returns the first failure (trial, cause, detail) or None."""
    first = None
    with torch.no_grad():
        for t, trial in enumerate(trials):
            inputs = [x.clone() for x in trial]
            inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in inputs]
            model = model.cuda()
            model_new = model_new.cuda()
            output = model(*inputs)
            torch.cuda.synchronize()
            try:
                output_new = model_new(*inputs)
                torch.cuda.synchronize()
                if output.shape != output_new.shape:
                    return first or (t, "wrong-output", f"shape {tuple(output_new.shape)} vs {tuple(output.shape)}")
                if not torch.allclose(output, output_new, atol=atol, rtol=rtol):
                    max_diff = torch.max(torch.abs(output - output_new)).item()
                    torch.mean(torch.abs(output - output_new)).item()  # KernelBench's avg_diff
                    nan = bool((~torch.isfinite(output_new) & torch.isfinite(output)).any().item())
                    if first is None:
                        first = (t, "nan-inf" if nan else "wrong-output", f"max difference {max_diff:.3g}")
            except Exception as e:  # noqa: BLE001 (KernelBench catches everything here too)
                return first or (t, classify(e), str(e).splitlines()[0][:300])
    return first


LOADED = set()
DRY_RUN = False
DRY_RUN_OPS = {}


def fresh_allocator():
    """Puts PyTorch's caching allocator back in a new process's state: every cached block (and
    cuBLAS's workspaces, which it caches per stream) goes back to the driver. On the H200 a block
    allocated after this reads as zeros at the address it had (calibrate.py probe:
    after_empty_cache_zero), as in a fresh process. Returns the bytes still reserved (0 expected)."""
    gc.collect()
    torch.cuda.synchronize()
    if hasattr(torch._C, "_cuda_clearCublasWorkspaces"):
        torch._C._cuda_clearCublasWorkspaces()
    torch.cuda.empty_cache()
    return torch.cuda.memory_reserved()


def evaluate(bundle, manifest, so_path, lib, switch, kernel_id, check):
    """One evaluation, from a fresh allocator: returns a dict."""
    if so_path not in LOADED:
        torch.ops.load_library(so_path)
        LOADED.add(so_path)
    op = DRY_RUN_OPS.setdefault(kernel_id, DryRunOp(bundle, manifest, manifest["kernels"][kernel_id])) \
        if DRY_RUN else getattr(torch.ops, lib)
    reserved = fresh_allocator()
    kernel = manifest["kernels"][kernel_id]
    task = manifest["tasks"][kernel["task"]]
    model, model_new = make_models(bundle, task, kernel, op)
    op.set_mutant(int(switch))
    trials = [trial_inputs(bundle, tr) for tr in task["checks"][check["name"]]]
    failure = kernelbench_loop(model, model_new, trials,
                               *tolerance_for(check, task.get("precision", "float32")))
    del model, model_new, trials
    res = {"killed": False} if failure is None else {"killed": True, "trial": failure[0], "cause": failure[1],
                                                      "detail": failure[2]}
    if reserved:
        res["reserved_before"] = reserved
    return res


def start_forked(fn):
    """Forks a child that runs fn() and writes its dict result to a pipe; returns (pid, read fd).
    Only ever called from the one thread of the parent (a fork while other threads hold locks
    could leave the child hung, which would read as a timeout)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = fn()
        except Exception as e:  # noqa: BLE001
            res = {"killed": True, "trial": None, "cause": classify(e), "detail": str(e).splitlines()[0][:300],
                   "harness_error": traceback.format_exc()[-600:]}
        with os.fdopen(w, "w") as f:
            f.write(json.dumps(res))
        os._exit(0)
    os.close(w)
    return pid, r


def finish_forked(r, status):
    with os.fdopen(r) as f:
        text = f.read()
    if not text:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return {"killed": True, "trial": None, "cause": "crash", "detail": f"process died (signal {sig})"}
    return json.loads(text)


def run_many(tasks, jobs, timeout, progress=None):
    """Runs fn() for each (key, fn) in `tasks` in forked children, `jobs` at a time; a child past
    `timeout` seconds is killed (a hung kernel: a timeout). Yields (key, result)."""
    pending = list(tasks)[::-1]
    running = {}  # pid -> (key, fd, deadline)
    done = 0
    while pending or running:
        while pending and len(running) < jobs:
            key, fn = pending.pop()
            pid, fd = start_forked(fn)
            running[pid] = (key, fd, time.time() + timeout)
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            key, fd, _ = running.pop(pid)
            done += 1
            yield key, finish_forked(fd, status)
            continue
        now = time.time()
        for pid, (key, fd, deadline) in list(running.items()):
            if now > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(fd)
                del running[pid]
                yield key, {"killed": True, "trial": None, "cause": "timeout", "detail": f"no result within {timeout} s"}
        time.sleep(0.005)


def run_forked(fn, timeout):
    return next(iter(run_many([(0, fn)], 1, timeout)))[1]


class DryRunOp:
    """--dry-run: the reference Model itself stands in for the extension (every kernel is then
    correct), so a bundle and this script can be checked on a machine without a GPU."""

    def __init__(self, bundle, manifest, kernel):
        self.kernel = kernel
        self.model, _ = make_models(bundle, manifest["tasks"][kernel["task"]], kernel, None)

    def entry(self, tensors, values, kinds):
        inputs = {a["input"]: t for a, t in zip(self.kernel["args"], tensors) if "input" in a}
        out = self.model(*[inputs[i] for i in sorted(inputs)])
        return list(out) if isinstance(out, tuple) else [out]

    def set_mutant(self, m):
        pass


def dry_run_patches():
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.nn.Module.cuda = lambda self, *a, **k: self
    torch.cuda.synchronize = lambda *a, **k: None
    globals()["fresh_allocator"] = lambda: 0
    torch.ops.load_library = lambda path: None


def worker(args):
    """Serves evaluations read from stdin as JSON lines, one result line each. A CUDA error leaves
    the context unusable: the worker reports the run, then exits, and the parent starts another."""
    with open(os.path.join(args.bundle, "manifest.json")) as f:
        manifest = json.load(f)
    if args.dry_run:
        global DRY_RUN
        DRY_RUN = True
        dry_run_patches()
    else:
        torch.cuda.init()
        if not args.fresh_process:  # a fresh process's first allocation is the job's own
            torch.empty(1, device="cuda")  # the context exists before the first job's clock starts
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    checks = {c["name"]: c for c in manifest["checks"]}
    for line in sys.stdin:
        job = json.loads(line)
        try:
            res = evaluate(args.bundle, manifest, job["so"], job["lib"], job["switch"], job["kernel"],
                           checks[job["check"]])
        except Exception as e:  # noqa: BLE001
            res = {"killed": True, "trial": None, "cause": classify(e), "detail": str(e).splitlines()[0][:300],
                   "harness_error": traceback.format_exc()[-600:]}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()
        if res.get("killed") and res.get("cause") in ("crash", "launch-error") and "CUDA" in res.get("detail", ""):
            try:
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001 (a sticky error: this context is done)
                return


class Pool:
    """`n` worker processes (`calibrate.py worker`), a job at a time each; a job past `timeout`
    seconds (a hung kernel) kills its worker and is a timeout, a worker that dies is a crash of its
    job, and either way a new worker takes its place."""

    def __init__(self, bundle, n, timeout, dry_run=False, fresh=False):
        self.bundle, self.n, self.timeout, self.dry_run, self.fresh = bundle, n, timeout, dry_run, fresh
        self.workers = []

    def spawn(self):
        """A new worker, not yet ready: its jobs' clocks start once it has said so (importing torch
        and making a CUDA context take seconds, more while 16 workers start at once)."""
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker", self.bundle] +
                             (["--dry-run"] if self.dry_run else []) + (["--fresh-process"] if self.fresh else []),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        return {"p": p, "job": None, "deadline": None, "ready": False, "started": time.time()}

    def map(self, jobs, deadline=None):
        pending = list(jobs)[::-1]
        self.workers = [self.spawn() for _ in range(min(self.n, len(pending)))]
        busy = 0
        while pending or busy:
            if deadline and time.time() > deadline and pending:
                print(f"deadline: {len(pending)} evaluations not started", flush=True)
                pending = []
            for w in self.workers:
                if w["ready"] and w["job"] is None and pending:
                    w["job"] = pending.pop()
                    w["deadline"] = time.time() + self.timeout
                    w["p"].stdin.write(json.dumps(w["job"][1]) + "\n")
                    w["p"].stdin.flush()
                    busy += 1
            waiting = [w["p"].stdout for w in self.workers if w["job"] is not None or not w["ready"]]
            ready, _, _ = select.select(waiting, [], [], 0.5) if waiting else ([], [], [])
            for w in self.workers:
                if not w["ready"]:
                    if w["p"].stdout in ready:
                        w["ready"] = w["p"].stdout.readline().strip() == "ready"
                        if not w["ready"]:
                            raise RuntimeError("a worker did not start")
                    elif time.time() - w["started"] > 300:
                        raise RuntimeError("a worker did not start within 300 s")
                    continue
                if w["job"] is None:
                    continue
                res = None
                if w["p"].stdout in ready:
                    line = w["p"].stdout.readline()
                    res = json.loads(line) if line else {"killed": True, "trial": None, "cause": "crash",
                                                         "detail": "the worker died"}
                elif time.time() > w["deadline"]:
                    res = {"killed": True, "trial": None, "cause": "timeout",
                           "detail": f"no result within {self.timeout} s"}
                if res is None:
                    continue
                job = w["job"]
                w["job"] = None
                busy -= 1
                if self.fresh or res.get("cause") in ("timeout", "crash") or w["p"].poll() is not None or (
                        res.get("killed") and "CUDA" in res.get("detail", "")):
                    w["p"].kill()
                    w["p"].wait()
                    if pending:
                        w.update(self.spawn())
                    else:
                        w["p"] = None
                yield job[0], res
            self.workers = [w for w in self.workers if w["p"] is not None]
        for w in self.workers:
            w["p"].stdin.close()
            w["p"].wait()


T0 = time.time()


def run(args):
    bundle, out = args.bundle, args.out
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(bundle, "manifest.json")) as f:
        manifest = json.load(f)
    t0 = time.time()
    # Every trial's inputs, made once here (the workers load them).
    for task in manifest["tasks"].values():
        for trials in task["checks"].values():
            for trial in trials:
                trial_inputs(bundle, trial)
    print(f"inputs ready in {time.time() - t0:.0f} s", flush=True)
    t0 = time.time()
    with open(os.path.join(out, "build-log.txt"), "w") as log:
        if args.dry_run:
            built, build_seconds = {b["lib"]: "dry-run" for b in manifest["builds"]}, []
        else:
            built, build_seconds = build_all(bundle, manifest["builds"], os.path.join(args.build_dir or out, "so"),
                                             args.jobs, log)
    t_build = time.time() - t0
    print(f"built {sum(1 for v in built.values() if v)} of {len(built)} sources in {t_build:.0f} s", flush=True)
    mutants = manifest["mutants"][: args.limit] if args.limit else manifest["mutants"]
    # Jobs: each kernel's original (switch 0 of its own build) and each mutant, per check and repetition.
    jobs = []
    for kid, k in manifest["kernels"].items():
        for check in manifest["checks"]:
            for rep in range(args.reps_originals):
                jobs.append(("original", kid, k["original"], 0, kid, check, rep))
    for m in mutants:
        for check in manifest["checks"]:
            for rep in range(args.reps):
                jobs.append(("mutant", m["id"], m["lib"], m["switch"], m["kernel"], check, rep))
    results = {}
    t1 = time.time()
    runnable, unbuilt = [], []
    for job in jobs:
        kind, key, lib, switch, kid, check, rep = job
        so = built.get(lib)
        if so:
            runnable.append((job, {"so": os.path.abspath(so), "lib": lib, "switch": switch, "kernel": kid,
                                   "check": check["name"]}))
        else:
            unbuilt.append((job, {"killed": None, "cause": "build-failed"}))
    # Repetitions of one evaluation spread over the workers (a race's outcome may depend on what
    # else runs on the GPU at the time); the order is fixed, so a re-run lays them out the same.
    runnable.sort(key=lambda jr: (jr[0][6], jr[0][0], jr[0][1], jr[0][5]["name"]))
    pool = Pool(os.path.abspath(bundle), args.jobs, args.timeout, args.dry_run, args.fresh_process)
    for n, (job, res) in enumerate(list(pool.map(
            runnable, T0 + args.deadline if args.deadline else None)) + unbuilt, 1):
            kind, key, lib, switch, kid, check, rep = job
            entry = results.setdefault(kind, {}).setdefault(key, {}).setdefault(
                check["name"], {"runs": 0, "kills": 0, "causes": {}, "details": []})
            if res.get("killed") is None:
                entry["build_failed"] = True
                continue
            entry["runs"] += 1
            if res["killed"]:
                entry["kills"] += 1
                entry["causes"][res["cause"]] = entry["causes"].get(res["cause"], 0) + 1
                if len(entry["details"]) < 2:
                    entry["details"].append(f"trial {res.get('trial')}: {res.get('detail', '')}"[:300])
            if n % 500 == 0:
                print(f"{n}/{len(jobs)} evaluations, {time.time() - t1:.0f} s", flush=True)
    t_eval = time.time() - t1
    timing = {"build_seconds_wall": t_build, "builds": len(built),
              "build_seconds_per_source_median": float(np.median(build_seconds)) if build_seconds else None,
              "evaluations": len(jobs), "evaluation_seconds_wall": t_eval, "jobs": args.jobs, "fresh_process": args.fresh_process,
              "gpu": gpu_name(),
              "torch": torch.__version__}
    with open(os.path.join(out, "gpu-results.json"), "w") as f:
        json.dump({"timing": timing, "reps": args.reps, "results": results}, f, indent=1)
    agreement(manifest, results, args, out, timing)


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown (no nvidia-smi)"


# ---- agreement ----------------------------------------------------------------------------------------
def agreement(manifest, results, args, out, timing):
    rows = {}
    listed = []
    for m in manifest["mutants"]:
        for check in manifest["checks"]:
            g = results.get("mutant", {}).get(m["id"], {}).get(check["name"])
            if not g or not g["runs"]:
                continue
            share = g["kills"] / g["runs"]
            gpu = share >= 0.5
            cpu_o = bool(m["cpu"]["oracle_mode"].get(check["name"], False))
            cpu_w = bool(m["cpu"]["witness_mode"].get(check["name"], False))
            r = rows.setdefault((m["family"], check["name"]), {
                "mutants": 0, "gpu_killed": 0, "gpu_sometimes": 0, "cpu_oracle_killed": 0, "cpu_witness_killed": 0,
                "agree_oracle": 0, "agree_witness": 0, "agree_oracle_per_rep": 0.0, "ceiling_per_rep": 0.0})
            r["mutants"] += 1
            r["gpu_killed"] += gpu
            r["gpu_sometimes"] += 0 < g["kills"] < g["runs"]
            r["cpu_oracle_killed"] += cpu_o
            r["cpu_witness_killed"] += cpu_w
            r["agree_oracle"] += cpu_o == gpu
            r["agree_witness"] += cpu_w == gpu
            # Per repetition: the chance that one GPU evaluation gives the model's verdict, and the
            # most any deterministic verdict could get (a race the GPU shows in some runs only).
            r["agree_oracle_per_rep"] += share if cpu_o else 1.0 - share
            r["ceiling_per_rep"] += max(share, 1.0 - share)
            if cpu_o != gpu:
                listed.append({"id": m["id"], "kernel": m["kernel"], "family": m["family"], "rule": m["rule"],
                               "check": check["name"], "gpu_kills": g["kills"], "runs": g["runs"],
                               "gpu_causes": g["causes"], "gpu_detail": g["details"][:1], "cpu_oracle": cpu_o,
                               "cpu_cause": m["cpu"]["oracle_mode_cause"].get(check["name"], ""),
                               "cpu_witness": cpu_w})
    originals = {}
    for kid, per in results.get("original", {}).items():
        for check, g in per.items():
            if g["kills"]:
                originals.setdefault(kid, {})[check] = g
    families = sorted({f for f, _ in rows})
    checks = [c["name"] for c in manifest["checks"]]
    md = ["# GPU calibration of oracle mode", "",
          f"GPU: {timing['gpu']}; torch {timing['torch']}; {args.reps} repetitions per mutant and check, each "
          "from a fresh allocator; the GPU kills a mutant when at least half of its repetitions fail. Command: "
          "`kaudit gpu-bundle --from AUDIT --out B` here, `python3 tools/gpu/calibrate.py run B OUT` on the GPU. "
          "Agreement per repetition: the share of single GPU evaluations whose verdict equals the CPU's; its "
          "ceiling is what the best deterministic verdict per mutant would get (below 100 where a race shows "
          "in some repetitions only).", ""]
    for check in checks:
        md += [f"## {check}", "",
               "| family | mutants | GPU misses | CPU oracle mode misses | CPU witness mode misses | "
               "agreement, oracle mode | agreement, witness mode | GPU sometimes kills | "
               "agreement per repetition, oracle mode | its ceiling |",
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        tot = None
        for fam in families + ["all"]:
            if fam == "all":
                r = tot
                if r is None:
                    continue
            else:
                r = rows.get((fam, check))
                if not r:
                    continue
                tot = dict(r) if tot is None else {k: tot[k] + r[k] for k in tot}
            n = r["mutants"]
            pct = lambda x: f"{100.0 * x / n:.1f}"  # noqa: E731
            md.append(f"| {fam} | {n} | {pct(n - r['gpu_killed'])} | {pct(n - r['cpu_oracle_killed'])} | "
                      f"{pct(n - r['cpu_witness_killed'])} | {pct(r['agree_oracle'])} | {pct(r['agree_witness'])} | "
                      f"{r['gpu_sometimes']} | {pct(r['agree_oracle_per_rep'])} | {pct(r['ceiling_per_rep'])} |")
        md.append("")
    md += ["## Disagreements (CPU oracle mode against the GPU)", ""]
    for d in listed:
        md.append(f"- {d['check']}: {d['kernel']} {d['id']} ({d['family']}, {d['rule']}): GPU killed "
                  f"{d['gpu_kills']}/{d['runs']} {d['gpu_causes']} {d['gpu_detail']}; CPU oracle mode "
                  f"{'killed' if d['cpu_oracle'] else 'missed'} {d['cpu_cause']}, witness mode "
                  f"{'killed' if d['cpu_witness'] else 'missed'}")
    md += ["", "## Originals the GPU rejected (false kills)", ""]
    md += [f"- {k}: {json.dumps(v)}" for k, v in sorted(originals.items())] or ["none"]
    with open(os.path.join(out, "agreement.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "agreement.json"), "w") as f:
        json.dump({"rows": [{"family": f, "check": c, **r} for (f, c), r in sorted(rows.items())],
                   "disagreements": listed, "original_false_kills": originals, "timing": timing}, f, indent=1)
    print("\n".join(md[:60]))


# ---- probe --------------------------------------------------------------------------------------------
def probe(args):
    os.makedirs(args.out, exist_ok=True)
    facts = {"torch": torch.__version__}
    # The cost of one fresh process's evaluation setup (fork, a CUDA context, a small kernel),
    # before this process touches CUDA (a forked child cannot use a context made before the fork).
    def child():
        t0 = time.time()
        x = torch.ones(10, device="cuda")
        torch.cuda.synchronize()
        return {"killed": False, "seconds": time.time() - t0, "sum": float(x.sum().item())}
    t = time.time()
    child_res = [r for _, r in run_many([(i, child) for i in range(16)], 16, 60)]
    facts["forked_children_16_at_once_wall"] = time.time() - t
    facts["forked_child_cuda_ok"] = all("seconds" in r for r in child_res)
    facts["forked_child_seconds"] = sorted(r.get("seconds", -1) for r in child_res)
    dev = torch.device("cuda")
    t = time.time()
    torch.cuda.init()
    facts["cuda_init_seconds"] = time.time() - t
    facts["device"] = torch.cuda.get_device_name()
    # A fresh block reads as zeros; a freed block is handed back to the next request of its size
    # with its contents; after empty_cache() the memory goes back to the driver.
    a = torch.empty(1000, device=dev)
    facts["fresh_block_is_zero"] = bool((a == 0).all().item())
    a.fill_(7.0)
    pa = a.data_ptr()
    del a
    b = torch.empty(1000, device=dev)
    facts["freed_block_reused_same_address"] = b.data_ptr() == pa
    facts["freed_block_keeps_contents"] = bool((b == 7.0).all().item())
    big = torch.empty(3 << 20, device=dev)  # 12 MiB: a segment of its own
    big.fill_(5.0)
    pbig = big.data_ptr()
    del big, b
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    c = torch.empty(3 << 20, device=dev)
    facts["after_empty_cache_same_address"] = c.data_ptr() == pbig
    facts["after_empty_cache_zero"] = bool((c == 0).all().item())
    facts["after_empty_cache_stale_share"] = float((c == 5.0).float().mean().item())
    del c
    # Segments: are consecutive segments adjacent in the address space?
    xs = [torch.empty(1 << 18, device=dev) for _ in range(4)]  # 1 MiB each: two per 2 MiB segment
    facts["small_segment_deltas"] = [xs[i + 1].data_ptr() - xs[i].data_ptr() for i in range(3)]
    ys = [torch.empty(3 << 20, device=dev) for _ in range(3)]  # 12 MiB segments
    facts["large_segment_deltas"] = [ys[i + 1].data_ptr() - ys[i].data_ptr() for i in range(2)]
    del xs, ys
    with open(os.path.join(args.out, "probe.json"), "w") as f:
        json.dump(facts, f, indent=1)
    print(json.dumps(facts, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("bundle")
    r.add_argument("out")
    r.add_argument("--reps", type=int, default=10)
    r.add_argument("--reps-originals", type=int, default=3)
    r.add_argument("--jobs", type=int, default=16)
    r.add_argument("--timeout", type=float, default=60)
    r.add_argument("--limit", type=int, default=0)
    r.add_argument("--build-dir", default="")
    r.add_argument("--deadline", type=float, default=0,
                   help="seconds after the start past which no evaluation is started (results so far are written)")
    r.add_argument("--fresh-process", action="store_true",
                   help="every evaluation in a new worker process, its first CUDA allocation the check's own "
                        "(as a checker that starts a process per kernel); default: a worker serves many")
    r.add_argument("--dry-run", action="store_true",
                   help="no GPU: the reference Model stands in for every kernel (checks the bundle and this script)")
    p = sub.add_parser("probe")
    p.add_argument("out")
    a = sub.add_parser("agree")
    a.add_argument("bundle")
    a.add_argument("gpu_results", nargs="+", help="one or more gpu-results.json; their repetitions are pooled")
    a.add_argument("out")
    a.add_argument("--timeouts-only-if-all", action="store_true",
                   help="drop timed-out repetitions unless every repetition of that mutant and check timed out "
                        "(a hang); for runs whose workers timed out while starting")
    w = sub.add_parser("worker")
    w.add_argument("bundle")
    w.add_argument("--dry-run", action="store_true")
    w.add_argument("--fresh-process", action="store_true")
    args = ap.parse_args()
    if torch is None and args.cmd != "agree":
        sys.exit("calibrate.py: PyTorch is not installed here; only `agree` runs without it")
    if args.cmd == "run":
        run(args)
    elif args.cmd == "agree":
        with open(os.path.join(args.bundle, "manifest.json")) as f:
            manifest = json.load(f)
        pooled, timing, reps = {}, None, 0
        for path in args.gpu_results:
            with open(path) as f:
                g = json.load(f)
            timing = timing or g["timing"]
            reps += g["reps"]
            for kind, per_key in g["results"].items():
                for key, per_check in per_key.items():
                    for check, e in per_check.items():
                        t = pooled.setdefault(kind, {}).setdefault(key, {}).setdefault(
                            check, {"runs": 0, "kills": 0, "causes": {}, "details": []})
                        t["runs"] += e["runs"]
                        t["kills"] += e["kills"]
                        for c, n in e["causes"].items():
                            t["causes"][c] = t["causes"].get(c, 0) + n
                        t["details"] += e["details"][: 2 - len(t["details"])]
        if args.timeouts_only_if_all:
            for per_key in pooled.values():
                for per_check in per_key.values():
                    for t in per_check.values():
                        n = t["causes"].get("timeout", 0)
                        if n and n < t["runs"]:
                            t["runs"] -= n
                            t["kills"] -= n
                            del t["causes"]["timeout"]
        os.makedirs(args.out, exist_ok=True)
        args.reps = f"{reps} (pooled over {len(args.gpu_results)} runs; counted per mutant and check)"
        agreement(manifest, pooled, args, args.out, timing)
    elif args.cmd == "worker":
        worker(args)
    else:
        probe(args)


if __name__ == "__main__":
    main()
