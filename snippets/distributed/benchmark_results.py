"""Render bench/results/ddp_options.json: the time per training step of DDP with
find_unused_parameters=True and with static_graph=True, against the default."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "ddp_options.json"

# --8<-- [start:table]
data = json.loads(RESULTS.read_text())
model = data["model"]
print(f"{model['depth']} blocks of {model['layers']}, width {model['width']}, "
      f"{model['graph_nodes']} autograd nodes; batch {data['batch']} on each of "
      f"{data['ranks']} ranks ({data['backend']})")
print(f"ms: median of {data['rounds']} rounds; x default: median of the ratios "
      "to default in the same round\n")
print(f"{'DDP option':24}{'ms':>7}{'x default':>11}")
for v in data["variants"]:
    print(f"{v['name']:24}{v['median_seconds'] * 1e3:7.2f}"
          f"{v['median_ratio_to_default']:11.2f}")
# --8<-- [end:table]

# --8<-- [start:provenance]
for key, value in data["provenance"].items():
    print(f"{key:8} {value}")
# --8<-- [end:provenance]
