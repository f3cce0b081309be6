"""Claims of the chapter 'Autograd basics' (docs/autograd_basics.md)."""

import runpy

import torch
from conftest import SNIPPETS

FIRST = SNIPPETS / "autograd_basics" / "first_gradient.py"


def test_out_is_27_and_every_entry_of_x_grad_is_4_5(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(str(FIRST))
    assert ns["out"].item() == 27.0
    assert ns["out"].grad_fn.name() == "MeanBackward0"
    assert torch.equal(ns["x"].grad, torch.full((2, 2), 4.5))
    assert torch.equal(ns["x"].grad, 1.5 * (ns["x"].detach() + 2)), "the derivation's closed form"


def test_the_page_shows_the_printed_gradient_and_the_graph(runner):
    result = runner.run(FIRST)
    assert "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])" in result.stdout
    (graph,) = [item for item in result.items if item["kind"] == "graph"]
    # The prose reads the picture top down as the forward pass: arrows run from x to out.
    chain = ["x (2, 2)", "AccumulateGrad", "AddBackward0", "PowBackward0", "MulBackward0", "MeanBackward0", "()"]
    assert sorted(graph["edges"]) == sorted(map(list, zip(chain, chain[1:])))
