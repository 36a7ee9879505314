"""A stand-in for a harness that evaluates KernelBench solution files (`kaudit audit
--oracle-command`), for tests on a machine without a GPU: it checks what kaudit hands it (the
files exist, the solution is Python with a ModelNew, $KAUDIT_MUTANT_SWITCH equals {switch}), then
answers by rule: originals pass; the mutant $FAKE_CRASH dies of SIGKILL; $FAKE_HANG sleeps past any
timeout; an odd switch fails with a verdict line (switch % 4 == 3: with null cause and reason); the
rest pass by exit status. FAKE_BROKEN=1: an import that fails on everything (a harness that cannot
run; Python exits 1).

usage: fake_harness.py SOLUTION PROBLEM MUTANT SWITCH
"""
import json
import os
import signal
import sys
import time

solution, problem, mutant, switch = sys.argv[1:5]
if os.environ.get("FAKE_BROKEN") == "1":
    import kernelbench  # noqa: F401 (not there: Python exits 1, as a rejection by exit status does)
if os.environ.get("KAUDIT_MUTANT_SWITCH") != switch:
    sys.exit(4)
if not (os.path.isabs(solution) and os.path.isfile(solution) and os.path.isfile(problem)):
    sys.exit(5)
source = open(solution).read()
compile(source, solution, "exec")
if "class ModelNew(nn.Module)" not in source or "def get_inputs" not in open(problem).read():
    sys.exit(6)
if mutant == "original":
    sys.exit(0)
if mutant == os.environ.get("FAKE_CRASH"):
    os.kill(os.getpid(), signal.SIGKILL)
if mutant == os.environ.get("FAKE_HANG"):
    time.sleep(120)
if int(switch) % 4 == 3:  # a verdict line whose optional fields are null
    print(json.dumps({"pass": False, "cause": None, "reason": None}))
    sys.exit(1)
if int(switch) % 2 == 1:
    print("some harness chatter")
    print(json.dumps({"pass": False, "cause": "wrong-output", "reason": "odd switch"}))
    sys.exit(1)
sys.exit(0)
