"""What bench/gpu_benchmarks.py measured of deterministic backward kernels on a GPU."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "gpu_benchmarks.json"

# --8<-- [start:measured]
try:
    data = json.loads(RESULTS.read_text())
except FileNotFoundError:
    data = {}
determinism = data.get("determinism")
if determinism:
    s = determinism["settings"]
    print(f"backward of {s['rows']:,} rows taken from a {s['weight'][0]} x "
          f"{s['weight'][1]} {s['dtype']} parameter (indices repeat)")
    print(f"measured on {data['provenance']['gpu']}, {data['provenance']['date']}\n")
    print(f"{'':14}{'flag off ms':>12}{'flag on ms':>12}{'on / off':>10}")
    medians = {(r["operation"], r["deterministic"]): r["median_ms"]
               for r in determinism["rows"]}
    for operation in dict.fromkeys(op for op, _ in medians):
        off, on = medians[operation, False], medians[operation, True]
        print(f"{operation:14}{off:12.3f}{on:12.3f}{on / off:10.2f}")
else:
    print("No CUDA run of bench/gpu_benchmarks.py is recorded: "
          "nothing measured to show.")
# --8<-- [end:measured]
