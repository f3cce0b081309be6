"""Exercise: the memory-bound limit of the step in float64 and bfloat16."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "elu_performance.json"
data = json.loads(RESULTS.read_text())
bandwidth = data["copy"]["bytes_per_second"]
for dtype, size in {"float32": 4, "float64": 8, "bfloat16": 2}.items():
    # forward: read z, write y; backward: read grad and z, write the result
    moved = 5 * size * data["numel"]
    print(f"{dtype:8} {moved / 2**20:5.0f} MiB moved,"
          f" at least {moved / bandwidth * 1e3:.2f} ms")
