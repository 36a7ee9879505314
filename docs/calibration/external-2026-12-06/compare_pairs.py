import json, sys
d = sys.argv[1]
pairs = [("kernelbench", "kernelbench-like"), ("gym-v9", "gym-hidden-cases")]
import gzip, os
km = d + "/kill-matrix.jsonl"
rows = [json.loads(l) for l in (open(km) if os.path.exists(km) else gzip.open(km + ".gz", "rt"))]
for a, b in pairs:
    n = diff = killed = 0
    for m in rows:
        if not m.get("witnessed"): continue
        n += 1
        killed += bool((m.get("killed_by") or {}).get(a))
        for f in ["killed_by", "cause", "killing_trial", "witness_mode_killed_by", "witness_mode_cause"]:
            x = m.get(f) or {}
            if x.get(a) != x.get(b):
                diff += 1; print("DIFF", m["id"], m["kernel"], m["rule"], f, x.get(a), x.get(b)); break
    s = {o["oracle"]: o for o in json.load(open(d + "/summary.json"))["oracles"]}
    sa = {k: v for k, v in s[a].items() if k not in ("oracle", "spec")}
    sb = {k: v for k, v in s[b].items() if k not in ("oracle", "spec")}
    print(f"{a} vs {b}: {n} witnessed mutants, {killed} killed by {a}, {diff} differ; scores equal: {sa == sb}; false kills {s[a]['false_kills']} / {s[b]['false_kills']}")
