"""The timings bench/gpu_benchmarks.py recorded, and memory-bound time bounds for
three GPUs computed from the bytes each ELU moves and their published bandwidths."""
import json
from pathlib import Path

from torch import nn

from elu import ELU, ELUCustom
from memory_traffic import eager_traffic
from results_table import show

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "gpu_benchmarks.json"

# --8<-- [start:measured]
try:
    data = json.loads(RESULTS.read_text())
except FileNotFoundError:
    data = None
    print("No run of bench/gpu_benchmarks.py is recorded: nothing measured to show.")
if data:
    show(data)
# --8<-- [end:measured]


# --8<-- [start:traffic]
settings = data["settings"] if data else {"batch": 4096, "sizes": [512, 1024]}
shape = (settings["batch"], settings["sizes"][1])  # the first hidden layer's z
n = shape[0] * shape[1]
layers = {"custom ELU": ELUCustom(), "composite ELU": ELU(), "F.elu": nn.ELU()}
traffic = {name: eager_traffic(layer, shape) for name, layer in layers.items()}
for name, nbytes in traffic["custom ELU"]:
    print(f"{name:9} {nbytes / n:2.0f} bytes per element")
# --8<-- [end:traffic]

# --8<-- [start:bounds]
BANDWIDTH = {  # bytes per second, from each GPU's data sheet
    "A100 SXM 80GB": 2.039e12,
    "H100 SXM": 3.35e12,
    "H200 SXM": 4.8e12,
}
measured = {
    (r["activation"], r["device"]): r["median_ms"]
    for r in (data["results"] if data else [])
    if r["measurement"] == "ELU forward and backward"
}
devices = [d for d in ("cpu", "cuda") if any(d == key[1] for key in measured)]

print(f"ELU forward and backward, float32 z of {shape[0]} x {shape[1]}: "
      f"{n:,} elements")
print("bound (ms) = bytes moved / memory bandwidth on the data sheet, not measured:")
print(", ".join(f"{gpu} {bandwidth / 1e12:g} TB/s"
                for gpu, bandwidth in BANDWIDTH.items()) + "\n")
print(f"{'':13}{'kernels':>8}{'B/elem':>7}"
      + "".join(f"{gpu.split()[0] + ' bound':>11}" for gpu in BANDWIDTH)
      + "".join(f"{d + ' ms':>9}" for d in devices))
for name, kernels in traffic.items():
    nbytes = sum(b for _, b in kernels)
    bounds = [nbytes / bandwidth * 1e3 for bandwidth in BANDWIDTH.values()]
    print(f"{name:13}{len(kernels):8}{nbytes / n:7.0f}"
          + "".join(f"{b:11.3f}" for b in bounds)
          + "".join(f"{measured[name, d]:9.3f}" for d in devices))
if "cuda" in devices:
    p = data["provenance"]
    print(f"\ncuda ms: measured on {p['gpu']}, CUDA {p['cuda']}")
else:
    print("\nNo CUDA run is recorded: the three GPU columns are bounds, "
          "not measurements.")
# --8<-- [end:bounds]
