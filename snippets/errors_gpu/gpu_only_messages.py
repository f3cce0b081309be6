"""The errors that only PyTorch's CUDA build raises: as bench/gpu_errors.py recorded
them on a GPU, or, where no GPU run is recorded, as quoted from PyTorch's source."""
from pathlib import Path

RECORDED = Path(__file__).resolve().parents[2] / "bench" / "results" / "gpu_errors.json"

QUOTED = {}  # where PyTorch's C++ source raises each message on a CUDA build

# --8<-- [start:quoted_lstm]
QUOTED["cudnn-rnn-backward-eval"] = {
    "error": "RuntimeError",
    "message": "cudnn RNN backward can only be called in training mode",
    "function": "_cudnn_rnn_backward_input",
    "file": "aten/src/ATen/native/cudnn/RNN.cpp",
    "check": 'TORCH_CHECK(fn_train, "cudnn RNN backward can only be called in '
             'training mode");',
}
# --8<-- [end:quoted_lstm]

# --8<-- [start:quoted_dtype]
QUOTED["cuda-dtype-mismatch"] = {
    "error": "RuntimeError",
    "message": "expected mat1 and mat2 to have the same dtype, but got: "
               "c10::Half != float",
    "function": "addmm_out_cuda_impl",
    "file": "aten/src/ATen/native/cuda/Blas.cpp",
    "check": 'TORCH_CHECK(mat1.dtype() == mat2.dtype(), "expected mat1 and mat2 to '
             'have the same dtype, but got: ", mat1.dtype(), " != ", mat2.dtype())',
}
# --8<-- [end:quoted_dtype]

# --8<-- [start:quoted_device]
QUOTED["backward-device-mismatch"] = {
    "error": "RuntimeError",
    "message": "Expected all tensors to be on the same device, but found at least two "
               "devices, cuda:0 and cpu!",
    "function": "compute_types",
    "file": "aten/src/ATen/TensorIterator.cpp",
    "check": 'TORCH_CHECK(false, "Expected all tensors to be on the same device, but "'
             ' "found at least two devices, ", common_device, " and ", '
             'op.device.value(), "!");',
}
# --8<-- [end:quoted_device]


def recorded_run(path):
    """What bench/gpu_errors.py wrote on a GPU, or None where it never ran."""
    import json

    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None


def message(case, run):
    """The error of `case` as a GPU run recorded it, else as quoted, and where from."""
    if run is not None and case in run["errors"]:
        error = run["errors"][case]
        return (f"{error['error']}: {error['message']}\n"
                f"(recorded on {run['provenance']['gpu']}, torch "
                f"{run['provenance']['torch']}: raised in {error['function']}, "
                f"{error['file']}, line {error['line']})")
    quote = QUOTED[case]
    return (f"{quote['error']}: {quote['message']}\n"
            f"(quoted, no GPU run is recorded: raised in {quote['function']}, "
            f"{quote['file']})")


run = recorded_run(RECORDED)

# --8<-- [start:lstm]
print(message("cudnn-rnn-backward-eval", run))
# --8<-- [end:lstm]

# --8<-- [start:dtype]
print(message("cuda-dtype-mismatch", run))
# --8<-- [end:dtype]

# --8<-- [start:device]
print(message("backward-device-mismatch", run))
# --8<-- [end:device]
