"""The step-through package as the wheel the site offers (wheel.py): installed alone with pip, it
shows the viewer on a model no other test uses."""

import io
import os
import subprocess
import sys
import textwrap
import zipfile

from snippet_engine import wheel

USE = textwrap.dedent("""\
    import autograd_steps, builtins, torch
    shown = []
    builtins.display = shown.append  # as IPython's display() receives it
    conv = torch.nn.Conv1d(2, 3, kernel_size=3)
    x = torch.randn(1, 2, 8)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        loss = torch.nn.functional.gelu(conv(x)).square().mean()
    autograd_steps.show_backward(loss)
    (viewer,) = shown
    bundle = viewer._repr_mimebundle_()
    print(autograd_steps.__file__)
    print(bundle["text/html"].count("<script>"), "<style>" in bundle["text/html"], "ConvolutionBackward0" in bundle["text/html"],
          bundle["text/plain"].startswith("backward() ran 6 steps through 6 nodes."))
    expected = torch.autograd.grad(torch.nn.functional.gelu(conv(x)).square().mean(), conv.weight)[0]
    print(torch.allclose(conv.weight.grad, expected), "backward() ran as it would")
    """)


def test_the_wheel_installs_alone_and_shows_the_viewer(tmp_path):
    data = wheel.wheel()
    assert data == wheel.wheel(), "the same bytes every build"
    path = tmp_path / wheel.filename()
    path.write_bytes(data)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "autograd_steps/assets/steps.js" in names and not [n for n in names if "__pycache__" in n]
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(target), str(path)], check=True)
    metadata = next(target.glob("autograd_steps-*.dist-info")) / "METADATA"
    assert "Requires-Dist: torch\n" in metadata.read_text()
    done = subprocess.run([sys.executable, "-c", USE], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(target)})
    assert done.returncode == 0, done.stderr
    where, viewer, grad = done.stdout.splitlines()
    assert where.startswith(str(target)), "the installed wheel, not the project's own package"
    assert viewer == "1 True True True" and grad == "True backward() ran as it would"
