"""Runs on a CUDA GPU the cases of docs/errors_gpu.md whose error only PyTorch's CUDA
build raises, and writes each error, with the C++ function, file and line that raised
it and the run's provenance, to bench/results/gpu_errors.json. The page's snippets
(snippets/errors_gpu/gpu_messages.py) print the recorded messages in place of the
messages they quote from PyTorch's source.

    .venv/bin/python bench/gpu_errors.py

The cases, the page's code on the GPU:

  - cudnn-rnn-backward-eval: an LSTM classifier in eval() mode, a loss backwarded
    to its input (snippets/errors_gpu/lstm_eval_backward.py);
  - cuda-dtype-mismatch: a custom linear layer whose backward multiplies a float16
    gradient by a float32 weight, under torch.autocast("cuda")
    (snippets/errors_gpu/custom_linear.py, cuda_dtype_mismatch.py);
  - backward-device-mismatch: a hand-written sum whose backward makes its tensor
    of ones on the CPU, on a tensor on the GPU (snippets/errors_gpu/sum_function.py).

Without CUDA it records nothing, and says so.
"""

import os

# Set before torch is imported: a C++ error's message then ends with the place that raised it.
os.environ["TORCH_SHOW_CPP_STACKTRACES"] = "1"
os.environ["TORCH_DISABLE_ADDR2LINE"] = "1"  # the place is enough; symbolising frames is slow

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "errors_gpu"))  # run exactly the page's layer

from common import provenance  # noqa: E402
from custom_linear import CustomLinear  # noqa: E402
from sum_function import SumAll  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "gpu_errors.json"
RAISED_AT = re.compile(r"\nException raised from (\S+) at \S*?/((?:aten|c10|torch)/\S+):(\d+) ")


def raised(err):
    """{"error", "message", "function", "file", "line"} of an exception raised in C++ with
    TORCH_SHOW_CPP_STACKTRACES=1: the message is what precedes the place it was raised."""
    text = str(err)
    place = RAISED_AT.search(text)
    return {
        "error": type(err).__name__,
        "message": text[:place.start()] if place else text.split("\n")[0],
        "function": place[1] if place else None,
        "file": place[2] if place else None,
        "line": int(place[3]) if place else None,
    }


class SequenceClassifier(nn.Module):  # as in snippets/errors_gpu/lstm_eval_backward.py
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, dropout=0.3, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def lstm_eval_backward(device):
    torch.manual_seed(0)
    model = SequenceClassifier().to(device).eval()
    x = torch.randn(4, 10, 8, device=device, requires_grad=True)
    labels = torch.tensor([0, 2, 1, 0], device=device)
    nn.functional.cross_entropy(model(x), labels).backward()


def custom_linear_under_autocast(device):
    torch.manual_seed(0)
    x = torch.randn(64, 16, device=device)
    labels = torch.randint(0, 4, (64,), device=device)
    model = nn.Sequential(CustomLinear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to(device)
    with torch.autocast(device.type, dtype=torch.float16):
        loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()


def sum_backward_on_device(device):
    x = torch.randn(3, 4, device=device, requires_grad=True)
    SumAll.apply(x).backward()


CASES = {"cudnn-rnn-backward-eval": lstm_eval_backward, "cuda-dtype-mismatch": custom_linear_under_autocast,
         "backward-device-mismatch": sum_backward_on_device}


def run(case, device):
    """The error the case raised on `device`, or None if it ran through."""
    try:
        CASES[case](device)
    except RuntimeError as err:
        return raised(err)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help=f"where to write the JSON (default {RESULTS.relative_to(ROOT)})")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gpu_errors.py: no CUDA GPU is available here; nothing recorded")
    device = torch.device("cuda")
    errors = {}
    for case in CASES:
        error = run(case, device)
        print(f"{case}: {error['message'] if error else 'no error'}", file=sys.stderr)
        if error:
            errors[case] = error
    results = {
        "provenance": provenance("command date gpu cuda cudnn torch python", __file__,
                                 gpu=torch.cuda.get_device_name(device),
                                 cudnn=torch.backends.cudnn.version()),
        "errors": errors,  # a case that raised nothing is left out: the page keeps its quote
    }
    out = args.out or RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
