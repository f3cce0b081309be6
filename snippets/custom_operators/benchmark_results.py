"""Render bench/results/custom_operators.json: the table and its provenance."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "custom_operators.json"

# --8<-- [start:table]
data = json.loads(RESULTS.read_text())
print(f"{data['model']}, batch {data['batch']}, {data['dtype']}")
print(f"median of {data['repeats']} forward+backward steps;"
      f" x = time / {data['baseline']}\n")
rows = {(r["elu"], r["mode"]): r for r in data["results"]}
print(f"{'ELU':13}{'eager ms':>10}{'x':>7}{'compiled ms':>13}{'x':>7}")
for elu in dict.fromkeys(r["elu"] for r in data["results"]):
    eager, compiled = rows[elu, "eager"], rows[elu, "compiled"]
    print(f"{elu:13}{eager['median_seconds'] * 1e3:10.2f}{eager['ratio']:7.2f}"
          f"{compiled['median_seconds'] * 1e3:13.2f}{compiled['ratio']:7.2f}")
# --8<-- [end:table]

# --8<-- [start:provenance]
for key, value in data["provenance"].items():
    print(f"{key:8} {value}")
# --8<-- [end:provenance]
