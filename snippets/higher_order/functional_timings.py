"""torch.autograd.functional against torch.func, as measured by
bench/autograd_functional.py (read from its data file)."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
data = json.loads((ROOT / "bench/results/autograd_functional.json").read_text())

print(f"{'':52}{'median':>10}{'ratio':>8}")
group = None
for row in data["results"]:
    if row["group"] != group:
        group = row["group"]
        print(f"{group}, baseline {row['baseline']}")
    print(f"  {row['name']:50}{row['median_seconds'] * 1e3:7.2f} ms"
          f"{row['ratio']:7.2f}x")

p = data["provenance"]
print(f"\nlayer: {data['functions']['layer']}")
print(f"loss:  {data['functions']['loss']}")
print(f"{data['statistic']}, {data['repeats']} repeats, side by side")
print(f"{p['cpu']}, threads: {p['threads']}, torch {p['torch']}, {p['date'][:10]}")
print(f"command: {p['command']}")
