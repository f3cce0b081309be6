"""GPU timings, from the file that bench/gpu_benchmarks.py writes."""
import json
from pathlib import Path

from results_table import show

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "gpu_benchmarks.json"

try:
    show(json.loads(RESULTS.read_text()))
except FileNotFoundError:
    print("No CUDA run has been recorded yet: there are no GPU timings to show.")
    print("To record one, run this on a machine with a CUDA GPU:")
    print("    .venv/bin/python bench/gpu_benchmarks.py")
    print(f"and commit the file it writes, {RESULTS.relative_to(ROOT).as_posix()}.")
