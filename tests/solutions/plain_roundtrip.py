"""Every corpus kernel written as a plain KernelBench solution (tools/plain_solution.py) and read back
by kaudit's importer (tools/import_kernelbench.py --task-json): prints a JSON list, per kernel, of
{"kernel", "same": kernel text, entry and binding equal to the corpus's, "error": the importer's or
the writer's words}.

usage: plain_roundtrip.py CORPUS TOOLS_DIR OUT_DIR
"""
import glob
import json
import os
import subprocess
import sys

corpus, tools, out = sys.argv[1:4]
sys.path.insert(0, tools)
import plain_solution  # noqa: E402

results = []
for kj in sorted(glob.glob(os.path.join(corpus, "kernels", "*", "*.json"))):
    task = os.path.basename(os.path.dirname(kj))
    name = os.path.basename(kj)[:-len(".json")]
    entry = {"kernel": f"{task}/{name}"}
    with open(kj) as f:
        kernel = json.load(f)
    if kernel.get("unverified"):
        continue
    task_json = os.path.join(corpus, "tasks", task, "task.json")
    problem = os.path.join(corpus, "tasks", task, "problem.py")
    with open(task_json) as f:
        t = json.load(f)
    source = open(kj[:-len(".json")] + ".cu", encoding="utf-8").read()
    try:
        text = plain_solution.solution(open(problem, encoding="utf-8").read(), source, kernel, t, "kaudit_" + name)
    except Exception as e:  # noqa: BLE001
        entry["error"] = f"writer: {e}"
        results.append(entry)
        continue
    path = os.path.join(out, f"{task}--{name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    r = subprocess.run([sys.executable, os.path.join(tools, "import_kernelbench.py"), path, "--problem", problem,
                        "--task-json", task_json], capture_output=True, text=True)
    got = json.loads(r.stdout)
    if not got.get("ok"):
        entry["error"] = f"importer: {got.get('construct')}: {got.get('message')}"
    else:
        k = got["kernel"]
        entry["same"] = k["source"] == source and k["entry"] == kernel["entry"] and k["args"] == kernel["args"]
        if not entry["same"]:
            entry["error"] = f"read back as entry {k['entry']} args {k['args']} (source equal: {k['source'] == source})"
    results.append(entry)
print(json.dumps(results))
