"""Reading a `kaudit audit --out DIR` folder, as the scripts in tools/gpu need it."""
import gzip
import json
import os


def kill_matrix_rows(audit_dir):
    """The rows of AUDIT_DIR/kill-matrix.jsonl, or of its .gz (docs/calibration keeps them gzipped)."""
    path = os.path.join(audit_dir, "kill-matrix.jsonl")
    with (open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")) as f:
        for line in f:
            yield json.loads(line)


def take_json_flag(argv):
    """(argv without `--json OUT`, OUT or None)."""
    if "--json" not in argv:
        return argv, None
    i = argv.index("--json")
    if i + 1 >= len(argv):
        raise SystemExit("--json needs a file name")
    return argv[:i] + argv[i + 2:], argv[i + 1]
