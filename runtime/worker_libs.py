#!/usr/bin/env python3
"""Empty stand-ins for the libraries a CPU worker maps but never uses (runtime/worker.cpp).

Every CPU kernel run is a process forked from the worker's zygote (docs/SECURITY.md), so each run
pays for the zygote's size: fork copies its memory map, the run faults pages back in, and exit
tears the map down, in proportion to the number of mappings. Debian's libtorch_cpu lists about
45 libraries it needs (NEEDED), and with theirs the worker maps about 296 libraries, 1,600
mappings. Many are linked without being used: libtorch_cpu imports no symbol at all from
OpenCV's, FFmpeg's, ZeroMQ's, OpenCL's or LevelDB's libraries, which alone bring in about 200
more (GDAL, Qt, Poppler, codecs...).

This script writes, for each such library, an empty shared object with the same SONAME into OUT.
The worker is started with OUT first on LD_LIBRARY_PATH, so the loader takes the empty one and
never maps the real one or what that one needs. A library is replaced only if
  - a torch library (libtorch_cpu, libtorch, libc10) lists it as NEEDED, and
  - no library the worker still maps imports any symbol it defines
(decided on the dynamic symbol tables, with readelf). A library that nothing imports from can
only act through its constructors; the ones replaced here register nothing libtorch reads (they
are image, video, message-queue and key-value stores). The result is checked: with OUT on the
path, `ldd -r` of the worker must report no undefined symbol, or OUT is removed and the worker
maps everything as before. Usage: worker_libs.py WORKER_EXE OUT [C_COMPILER]
"""
import functools
import os
import re
import shutil
import subprocess
import sys

TORCH = re.compile(r"^lib(torch_cpu|torch|c10)\.so")


def run(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, env=env).stdout


def closure(exe, env=None):
    """soname -> path of every library the loader maps for exe (ldd), in load order."""
    libs = {}
    for line in run(["ldd", exe], env).splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m:
            libs[m.group(1)] = m.group(2)
    return libs


@functools.lru_cache(maxsize=None)
def needed(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", run(["readelf", "-d", path]))


@functools.lru_cache(maxsize=None)
def symbols(path):
    """(defined, undefined) dynamic symbol names, without version suffixes."""
    defined, undefined = set(), set()
    for line in run(["readelf", "-W", "--dyn-syms", path]).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0][:-1].isdigit():
            name = f[7].split("@")[0]
            (undefined if f[6] == "UND" else defined).add(name)
    return defined, undefined


def loaded_without(exe, libs, stubbed):
    """The libraries mapped once `stubbed` have no NEEDED of their own (breadth first from exe)."""
    seen, queue = set(), list(needed(exe))
    while queue:
        name = queue.pop(0)
        if name in seen or name not in libs:
            continue
        seen.add(name)
        if name not in stubbed:
            queue.extend(needed(libs[name]))
    return seen


def main():
    exe, out = sys.argv[1], sys.argv[2]
    cc = sys.argv[3] if len(sys.argv) > 3 else "cc"
    libs = closure(exe)
    table = {name: symbols(path) for name, path in libs.items()}
    candidates = sorted({n for name in libs if TORCH.match(name) for n in needed(libs[name]) if n in libs})
    stubbed = set()
    while True:  # replacing one library can only remove importers of the others: repeat until stable
        kept = loaded_without(exe, libs, stubbed) - stubbed
        imports = set(symbols(exe)[1]).union(*(table[n][1] for n in kept))
        more = {n for n in candidates if n not in stubbed and not (table[n][0] & imports)}
        if not more:
            break
        stubbed |= more
    shutil.rmtree(out, ignore_errors=True)
    if not stubbed:
        print("worker_libs: every library the worker maps is used; no stand-ins")
        return 0
    os.makedirs(out)
    for name in sorted(stubbed):
        subprocess.run([cc, "-shared", "-nostdlib", "-Wl,-soname," + name, "-o", os.path.join(out, name),
                        "-x", "c", "/dev/null"], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=out + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    report = subprocess.run(["ldd", "-r", exe], capture_output=True, text=True, env=env)
    missing = [l for l in (report.stdout + report.stderr).splitlines() if "undefined symbol" in l or "not found" in l]
    if report.returncode != 0 or missing:
        shutil.rmtree(out, ignore_errors=True)
        print("worker_libs: the stand-ins leave symbols undefined; the worker maps every library:\n  " +
              "\n  ".join(missing[:5]), file=sys.stderr)
        return 0
    after = closure(exe, env)
    with open(os.path.join(out, "README"), "w") as f:
        f.write("Empty stand-ins written by runtime/worker_libs.py: the CPU worker maps %d libraries "
                "instead of %d.\nReplaced (nothing the worker maps imports a symbol from them):\n%s\n" %
                (len(after), len(libs), "\n".join(sorted(stubbed))))
    print("worker_libs: %d stand-ins; the CPU worker maps %d libraries instead of %d" % (len(stubbed), len(after), len(libs)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a missing tool or an odd library: the worker then maps everything
        shutil.rmtree(sys.argv[2], ignore_errors=True)
        print("worker_libs: no stand-ins (%s: %s)" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(0)
