"""What bench/gpu_benchmarks.py measured of copies overlapping computation on a GPU."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "gpu_benchmarks.json"

# --8<-- [start:measured]
try:
    data = json.loads(RESULTS.read_text())
except FileNotFoundError:
    data = {}
streams = data.get("streams")
if streams:
    size, baseline = streams["settings"]["size"], streams["baseline"]
    medians = {row["variant"]: row["median_ms"] for row in streams["rows"]}
    batches = streams["settings"]["batches"]
    print(f"{batches} pinned float32 batches of {size} x {size}, "
          f"each copied to the GPU and multiplied by a {size} x {size} matrix")
    print(f"measured on {data['provenance']['gpu']}, {data['provenance']['date']}\n")
    print(f"{'':14}{'median ms':>10}{'/ ' + baseline:>14}")
    for variant, ms in medians.items():
        print(f"{variant:14}{ms:10.3f}{ms / medians[baseline]:14.2f}")
else:
    print("No CUDA run of bench/gpu_benchmarks.py is recorded: "
          "nothing measured to show.")
# --8<-- [end:measured]
