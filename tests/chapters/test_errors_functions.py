"""Claims of the page 'Errors in custom Functions, torch.func and higher order'
(docs/errors_functions.md)."""

import re
import weakref

import pytest
import torch
from conftest import ROOT, soup, warnings_in
from torch import nn

from snippet_engine.releases import ReleaseCheck

PAGE = ROOT / "docs" / "errors_functions.md"


def heading(anchor):
    """The text of the page's `##` heading with this id."""
    (text,) = re.findall(rf"^## (.+) \{{ #{anchor} \}}$", PAGE.read_text(), re.M)
    return text


def test_every_section_is_here_with_its_id():
    ids = re.findall(r"^## .+ \{ #([\w-]+) \}$", PAGE.read_text(), re.M)
    assert ids == [
        "incorrect-number-of-gradients", "setup-context", "save-for-backward", "legacy-function",
        "invalid-gradient-shape", "per-sample-gradients", "data-pointer-without-storage",
        "grad-transform-mutates-capture", "gradient-penalty", "hessian-vector-product",
        "derivative-not-implemented", "create-graph-cycle", "compile-custom-function",
        "no-fake-impl", "jit-trace-constant",
    ]
    assert all("`" not in heading(i) for i in ids)


# incorrect-number-of-gradients

def test_backward_without_none_for_the_float_fails_with_the_heading(chapter):
    text = chapter.shown("incorrect_number_of_gradients.py", "error")
    assert text.startswith("RuntimeError: " + heading("incorrect-number-of-gradients"))
    assert "SoftClipBackward" in text, "the class name followed by Backward"


def test_returning_none_fixes_it_and_the_gradient_is_right(chapter):
    ns = chapter.run("incorrect_number_of_gradients.py")
    assert chapter.shown("incorrect_number_of_gradients.py", "fix") == "weight gradient norm: 0.6385\n"
    model, inputs = ns["model"], ns["inputs"]
    model.zero_grad()
    (3.0 * torch.tanh(model(inputs) / 3.0)).pow(2).mean().backward()
    assert round(model.weight.grad.norm().item(), 4) == 0.6385, "the same as the composite"


def test_gradcheck_passes_in_double_with_the_float_passed_as_is(chapter):
    ns = chapter.run("incorrect_number_of_gradients.py")
    assert chapter.shown("incorrect_number_of_gradients.py", "gradcheck") == "gradcheck: True\n"
    assert ns["x"].dtype == torch.float64

    class WrongSoftClip(ns["FixedSoftClip"]):
        @staticmethod
        def backward(ctx, grad_out):
            (out,) = ctx.saved_tensors
            return grad_out * (1 - out**2), None  # the limit forgotten

    assert not torch.autograd.gradcheck(WrongSoftClip.apply, (ns["x"], 3.0), raise_exception=False)


# setup-context

def test_old_style_function_is_refused_by_torch_func(chapter):
    text = chapter.shown("setup_context.py", "error")
    assert text.startswith("RuntimeError: " + heading("setup-context"))
    assert "must override the setup_context staticmethod" in text


def test_every_transform_refuses_the_old_style(chapter):
    ns = chapter.run("setup_context.py")
    x = ns["x"]
    function = lambda x: ns["SoftClip"].apply(x, 3.0)  # noqa: E731
    for transform in (lambda: torch.func.vjp(function, x), lambda: torch.func.jacrev(function)(x),
                      lambda: torch.vmap(function)(x[None])):
        with pytest.raises(RuntimeError, match=heading("setup-context")):
            transform()


def test_setup_context_style_works_with_grad_and_backward_alike(chapter):
    ns = chapter.run("setup_context.py")
    lines = chapter.shown("setup_context.py", "fix").splitlines()
    assert lines == ["torch.func.grad: tensor([ 1.7297, -2.3091,  1.2685])",
                     "loss.backward(): tensor([ 1.7297, -2.3091,  1.2685])"]
    x = ns["x"].clone().requires_grad_()
    (3.0 * torch.tanh(x / 3.0)).pow(2).sum().backward()
    assert torch.allclose(x.grad, torch.tensor([1.7297, -2.3091, 1.2685]), atol=1e-4)
    assert ns["SoftClip"].backward.__code__.co_code == ns["FuncSoftClip"].backward.__code__.co_code, \
        "backward does not change"


def test_vmap_needs_a_rule_and_generate_vmap_rule_gives_the_loop(chapter):
    text = chapter.shown("vmap_rule.py", "error")
    assert text.startswith("RuntimeError: You tried to vmap over SoftClip, but it does not have vmap support")
    assert "generate_vmap_rule=True" in text
    ns = chapter.run("vmap_rule.py")
    assert torch.func.grad(ns["sample_loss"])(ns["batch"][0]) is not None, "grad alone works"
    assert chapter.shown("vmap_rule.py", "fix").endswith("same as a loop over samples: True\n")
    assert torch.allclose(ns["per_sample"], ns["one_by_one"])
    assert ns["per_sample"].shape == ns["batch"].shape


# save-for-backward

def test_a_float_in_save_for_backward_is_a_type_error_at_forward(chapter):
    text = chapter.shown("save_for_backward.py", "error")
    assert text == "TypeError: " + heading("save-for-backward") + "\n"
    ns = chapter.run("save_for_backward.py")
    with pytest.raises(TypeError, match=heading("save-for-backward")):
        ns["SoftClip"].apply(torch.ones(2, requires_grad=True), 3.0)  # apply alone, no backward


def test_save_for_backward_accepts_none_and_the_fix_gives_the_composite_gradient(chapter):
    class SavesNone(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, nothing = ctx.saved_tensors
            assert nothing is None
            return g * 2

    x = torch.ones(2, requires_grad=True)
    SavesNone.apply(x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 2.0))
    assert chapter.shown("save_for_backward.py", "fix") == "weight gradient norm: 0.6385\n"


def test_an_output_on_ctx_lives_until_the_garbage_collector(chapter):
    assert chapter.shown("output_on_ctx.py", "leak").splitlines() == [
        "on ctx, after del:             alive",
        "on ctx, after gc.collect():    freed",
        "save_for_backward, after del:  freed",
    ]


def test_the_output_refers_to_ctx_as_its_grad_fn():
    kept = []

    class Keeps(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            kept.append(ctx)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = Keeps.apply(torch.ones(2, requires_grad=True))
    assert out.grad_fn is kept[0]


def test_save_for_backward_checks_in_place_changes_an_attribute_does_not(chapter):
    ns = chapter.run("output_on_ctx.py")
    x = ns["x"]
    out = ns["Square"].apply(x)
    with torch.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    out = ns["SquareOnCtx"].apply(x)
    before = x.detach().clone()
    with torch.no_grad():
        x.add_(1.0)
    out.sum().backward()
    assert torch.allclose(x.grad, 2 * (before + 1.0)), "silently the modified values"


# per-sample-gradients

def test_batch_norm_in_training_mode_fails_under_vmap(chapter):
    text = chapter.shown("per_sample_batch_norm.py", "error")
    assert text.startswith("RuntimeError: " + heading("per-sample-gradients"))


def test_eval_mode_batch_norm_gives_the_loop(chapter):
    lines = chapter.shown("per_sample_batch_norm.py", "fix").splitlines()
    assert lines == ["per-sample gradient of the conv weight: (5, 4, 1, 3, 3)",
                     "same as a loop over samples: True"]
    ns = chapter.run("per_sample_batch_norm.py")
    assert ns["model"][0].weight.shape == (4, 1, 3, 3) and len(ns["images"]) == 5


def test_batch_norm_updates_its_statistics_in_training_mode_and_nothing_in_eval_mode():
    bn = nn.BatchNorm2d(4)
    images = torch.randn(5, 4, 6, 6)
    bn.eval()
    bn(images)
    assert torch.equal(bn.running_mean, torch.zeros(4)) and bn.num_batches_tracked.item() == 0
    per_sample = torch.func.vmap(lambda x: torch.func.functional_call(bn, dict(bn.named_buffers()), (x[None],)))
    per_sample(images)
    assert torch.equal(bn.running_mean, torch.zeros(4)) and bn.num_batches_tracked.item() == 0
    bn.train()
    bn(images)
    assert not torch.equal(bn.running_mean, torch.zeros(4)) and bn.num_batches_tracked.item() == 1


def test_per_sample_statistics_without_running_statistics(chapter):
    lines = chapter.shown("per_sample_batch_norm.py", "per_sample_statistics").splitlines()
    assert lines == [
        "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)",
        "same as a loop over samples: True"]
    ns = chapter.run("per_sample_batch_norm.py")
    bn = ns["model"][1]
    assert ns["model"].training and bn.running_mean is None and bn.running_var is None
    assert not dict(ns["model"].named_buffers()), "no buffers to pass"
    assert torch.allclose(ns["grads"]["0.weight"], torch.stack(ns["loop"]), atol=1e-6)
    assert not torch.allclose(ns["grads"]["0.weight"][0], ns["grads"]["0.weight"][1]), "per sample"


def test_a_python_if_on_a_tensor_fails_under_vmap_and_where_fixes_it(chapter):
    text = chapter.shown("per_sample_item.py", "error")
    assert text.startswith("RuntimeError: vmap: It looks like you're either (1) calling .item() on a Tensor")
    ns = chapter.run("per_sample_item.py")
    assert chapter.shown("per_sample_item.py", "fix").endswith("same as a loop over samples: True\n")
    assert torch.allclose(ns["grads"]["weight"], ns["loop"])
    model, inputs, targets = ns["model"], ns["inputs"], ns["targets"]
    errors = (model(inputs) - targets).abs().sum(1).detach()
    assert (errors < 1).any() and (errors >= 1).any(), "both branches are used"


# gradient-penalty

def test_interpolated_points_without_requires_grad(chapter):
    text = chapter.shown("gradient_penalty.py", "error")
    assert text == "RuntimeError: " + heading("gradient-penalty") + "\n"


def test_without_create_graph_the_penalty_does_not_train_the_critic(chapter):
    lines = chapter.shown("gradient_penalty.py", "no_graph").splitlines()
    assert lines == ["penalty: 0.8855 requires_grad: False",
                     "the penalty changed the critic's gradient: False"]


def test_with_create_graph_the_penalty_reaches_the_weights_and_its_gradient_is_right(chapter):
    ns = chapter.run("gradient_penalty.py")
    lines = chapter.shown("gradient_penalty.py", "fix").splitlines()
    assert lines[:2] == ["penalty: 0.8855 requires_grad: True",
                         "the penalty changed the critic's gradient: True"]
    assert lines[2] == "norm of the penalty's gradient on the first weight: 0.6147"
    # the penalty's gradient, independently: torch.func over the critic's parameters
    critic, mixed = ns["critic"], ns["mixed"].detach()
    params = {name: p.detach() for name, p in critic.named_parameters()}

    def penalty(params):
        def out(x):
            return torch.func.functional_call(critic, params, (x,)).sum()
        g = torch.func.grad(out)(mixed)
        return ((g.norm(dim=1) - 1) ** 2).mean()

    expected = torch.func.grad(penalty)(params)["0.weight"]
    assert torch.allclose(ns["penalty_grad"], expected, atol=1e-5)
    assert round(expected.norm().item(), 4) == 0.6147


# hessian-vector-product

def test_second_grad_without_create_graph_fails(chapter):
    text = chapter.shown("hessian_vector_product.py", "error")
    assert text == "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"


def test_the_three_hvps_agree_with_the_hessian(chapter):
    ns = chapter.run("hessian_vector_product.py")
    hessian = torch.autograd.functional.hessian(ns["loss_fn"], ns["weight"].detach())
    expected = hessian @ ns["vector"]
    for name in ("hvp_double_backward", "hvp_forward_over_reverse", "hvp_functional"):
        assert torch.allclose(ns[name], expected, atol=1e-6), name
    assert not torch.allclose(hessian, torch.autograd.functional.hessian(ns["loss_fn"], torch.zeros(3))), \
        "the Hessian is not constant"
    for section in ("create_graph", "func", "functional"):
        assert chapter.shown("hessian_vector_product.py", section).endswith("tensor([0.1133, 0.0856, 0.1883])\n")


def test_functional_hvp_returns_the_value_and_the_product(chapter):
    ns = chapter.run("hessian_vector_product.py")
    value, product = torch.autograd.functional.hvp(ns["loss_fn"], ns["weight"].detach(), ns["vector"])
    assert torch.isclose(value, ns["loss_fn"](ns["weight"].detach()))
    assert torch.allclose(product, ns["hvp_functional"])


# create-graph-cycle

def test_backward_with_create_graph_warns_with_the_heading(chapter):
    (warning,) = warnings_in(chapter.outputs("create_graph_warning.py", "warning"))
    assert warning["category"] == "UserWarning"
    assert warning["message"].startswith(heading("create-graph-cycle"))
    assert "reset the .grad fields of your parameters to None" in warning["message"]


def test_the_page_shows_each_warning_once_in_a_warning_box_in_its_section(built_site):
    page = soup(built_site / "errors_functions" / "index.html")
    boxes = page.select(".admonition.snippet-warning")
    titles = [box.select_one(".admonition-title").get_text(strip=True) for box in boxes]
    assert titles == ["DeprecationWarning", "UserWarning"]
    legacy, cycle = boxes
    assert "should not be instantiated" in legacy.get_text()
    assert heading("create-graph-cycle") in cycle.get_text()
    for box, anchor, following in ((legacy, "legacy-function", "invalid-gradient-shape"),
                                   (cycle, "create-graph-cycle", "compile-custom-function")):
        assert box in page.find(id=anchor).find_all_next(class_="snippet-warning"), "in its own section"
        assert box not in page.find(id=following).find_all_next(class_="snippet-warning")


def test_the_cycle_survives_gc_collect(chapter):
    assert chapter.shown("create_graph_warning.py", "warning").splitlines() == [
        "penalty: 0.4109", "after the step:      alive", "after gc.collect():  alive"]


def test_autograd_grad_trains_without_warning_or_cycle(chapter):
    assert not warnings_in(chapter.outputs("create_graph_warning.py", "fix"))
    lines = chapter.shown("create_graph_warning.py", "fix").splitlines()
    steps = [re.match(r"step \d: loss ([\d.]+), penalty ([\d.]+)", line).groups() for line in lines[:3]]
    losses, penalties = zip(*[(float(a), float(b)) for a, b in steps])
    assert losses[0] > losses[1] > losses[2] and penalties[0] > penalties[1] > penalties[2]
    assert penalties[0] == 0.4109, "the same penalty as p.grad gave"
    assert lines[3] == "after training: freed"


def test_setting_grad_to_none_breaks_the_cycle():
    model = nn.Linear(3, 1)
    with pytest.warns(UserWarning):
        model(torch.randn(4, 3)).pow(2).mean().backward(create_graph=True)
    assert model.weight.grad.grad_fn is not None, "p.grad has a graph"
    for p in model.parameters():
        p.grad = None
    weight = weakref.ref(model.weight)
    del model
    assert weight() is None


# compile-custom-function

def test_fullgraph_refuses_the_branch(chapter):
    text = chapter.shown("compile_custom_function.py", "error")
    assert text.startswith("Unsupported: " + heading("compile-custom-function") + "\n")
    assert "Higher Order Operator: autograd.Function" in text
    assert "File" not in text and "/" not in text, "no file paths"


def test_without_fullgraph_the_branch_is_a_graph_break(chapter):
    ns = chapter.run("compile_custom_function.py")
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(ns["loss_fn"])(ns["inputs"])
    assert explanation.graph_break_count >= 1
    torch._dynamo.reset()
    graphs = []  # what the compiler compiles: the operations of each graph, as the page lists them

    def backend(graph, example_inputs):
        graphs.append([getattr(n.target, "__name__", n.target) for n in graph.graph.nodes
                       if n.op in ("call_function", "call_method", "call_module")])
        return graph.forward

    torch.compile(ns["loss_fn"], backend=backend)(ns["inputs"]).backward()
    assert graphs == [["linear"], ["norm", "gt"], ["truediv", "mul"], ["pow", "sum"]]
    assert "(four graphs here: the layer, `forward` up to the `if`, the branch taken, and the rest of the loss)" in \
        " ".join((ROOT / "docs" / "errors_functions.md").read_text().split())
    torch._dynamo.reset()
    assert torch._dynamo.explain(ns["fixed_loss_fn"])(ns["inputs"]).graph_break_count == 0


def test_the_compiled_fix_gives_the_eager_gradient(chapter):
    ns = chapter.run("compile_custom_function.py")
    assert chapter.shown("compile_custom_function.py", "fix") == \
        "compiled loss: 1.0\nsame gradient as eager: True\n"
    assert ns["model"](ns["inputs"]).norm() > 1, "the eager if took the clipping branch"
    assert torch.allclose(ns["compiled_grad"], ns["model"].weight.grad)


# no-fake-impl

def test_compiling_the_operator_without_a_fake_kernel_is_dynamos_error_naming_the_line(chapter):
    lines = chapter.shown("no_fake_impl.py", "error").splitlines()
    assert lines[0] == "eager: tensor([-0.5000,  0.0000,  0.4000])"
    assert lines[1] == "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call"
    message = heading("no-fake-impl").replace("&lt;", "<").replace("&gt;", ">")
    assert f"got RuntimeError('{message}. This is necessary for torch.compile/export/fx tracing to work. " \
           "Please use `soft_threshold.register_fake` to add an fake impl.')" in lines[2]
    call = chapter.line_of("no_fake_impl.py", "return soft_threshold(x, 0.5) * 2")
    assert f'File "no_fake_impl.py", line {call}, in sparse_code' in "\n".join(lines), "the line that called it"
    paths = re.findall(r'File "([^"]+)"', "\n".join(lines))
    assert paths == ["no_fake_impl.py", "…/site-packages/torch/_library/custom_ops.py"], \
        "paths as a terminal in the snippet's folder shows them"


def test_the_error_comes_before_any_backend_and_the_fake_kernel_fixes_it(chapter):
    ns = chapter.run("no_fake_impl.py")
    torch._dynamo.reset()

    @torch.library.custom_op("autograd_inside_out_test::no_fake", mutates_args=())
    def no_fake(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    graphs = []

    def backend(graph, example_inputs):  # a backend that notes every graph it is handed
        graphs.append(graph)
        return graph.forward

    for compiler in (backend, "inductor"):  # inductor: the default backend
        with pytest.raises(torch._dynamo.exc.TorchRuntimeError, match="There was no fake impl registered for"):
            torch.compile(lambda x: no_fake(x) * 2, fullgraph=True, backend=compiler)(torch.ones(2))
        torch._dynamo.reset()
    assert graphs == [], "no backend saw a graph"
    assert torch.equal(ns["sparse_code"](ns["x"]), 2 * ns["soft_threshold"](ns["x"], 0.5))
    assert chapter.shown("no_fake_impl.py", "fix") == "compiled: tensor([-1.0000,  0.0000,  0.8000])\n"


# legacy-function

def test_an_old_style_function_called_as_an_instance_is_refused(chapter):
    text = chapter.shown("legacy_function.py", "error")
    assert text.startswith("RuntimeError: " + heading("legacy-function") + ". Please use new-style autograd function")
    (warning,) = warnings_in(chapter.outputs("legacy_function.py", "error"))
    assert warning["category"] == "DeprecationWarning" and "should not be instantiated" in warning["message"]


def test_static_methods_and_apply_train_and_pass_gradcheck(chapter):
    ns = chapter.run("legacy_function.py")
    assert chapter.shown("legacy_function.py", "gradcheck") == "gradcheck: True\n"
    model, inputs = ns["model"], ns["inputs"]
    model.zero_grad()
    (model(inputs).clamp(min=0) - 0.5).pow(2).mean().backward()
    fixed = chapter.shown("legacy_function.py", "fix")
    assert fixed == f"weight gradient norm: {round(model.weight.grad.norm().item(), 4)}\n", "the composite's"


# invalid-gradient-shape

def test_a_per_channel_bias_gradient_of_the_output_shape_is_refused(chapter):
    text = chapter.shown("invalid_gradient_shape.py", "error")
    assert text == ("RuntimeError: " + heading("invalid-gradient-shape")
                    + " - got [4, 8, 16, 16] but expected shape compatible with [8]\n")


def test_autograd_sums_a_bias_broadcast_over_leading_dimensions(chapter):
    ns = chapter.run("invalid_gradient_shape.py")
    assert chapter.shown("invalid_gradient_shape.py", "leading") == "bias.grad: tensor([5., 5., 5., 5., 5., 5., 5., 5.])\n"
    assert ns["features"].shape == (5, 8) and ns["row_bias"].shape == (8,)


def test_sum_to_size_gives_autograds_gradient_and_passes_gradcheck(chapter):
    ns = chapter.run("invalid_gradient_shape.py")
    assert chapter.shown("invalid_gradient_shape.py", "fix") == "bias.grad shape: (8,)\nsame as autograd's own: True\n"
    assert chapter.shown("invalid_gradient_shape.py", "gradcheck") == "gradcheck: True\n"
    x, b = ns["x"], ns["b"]

    class Unreduced(ns["FixedBiasLeakyReLU"]):
        @staticmethod
        def backward(ctx, grad_out):
            (out,) = ctx.saved_tensors
            grad_x = torch.where(out > 0, grad_out, grad_out * 0.2)
            return grad_x, grad_x.sum((0, 2))  # forgets W

    with pytest.raises(RuntimeError, match="returned an invalid gradient at index 1"):
        torch.autograd.gradcheck(Unreduced.apply, (x, b))


# per-sample-gradients: indexing

def test_int_on_a_batched_label_and_a_slice_with_tensor_bounds_fail_under_vmap(chapter):
    text = chapter.shown("per_sample_index.py", "error")
    assert text.startswith("RuntimeError: vmap: It looks like you're either (1) calling .item() on a Tensor")
    assert chapter.shown("per_sample_index.py", "slice") == (
        "RuntimeError: vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
        "calling .item() on a Tensor, please try to rewrite what you're doing with other operations. If error "
        "is occurring somewhere inside PyTorch internals, please file a bug report.\n")


def test_a_zero_dimensional_index_fails_under_vmap_of_grad_only(chapter):
    ns = chapter.run("per_sample_index.py")
    weights = ns["class_weights"]

    def f(x, label):
        return weights[label] * x.sum()

    x, labels = torch.randn(3, 2), torch.tensor([0, 1, 2])
    assert torch.allclose(torch.func.vmap(f)(x, labels), weights * x.sum(1)), "vmap alone"
    with pytest.raises(RuntimeError, match="calling .item"):
        torch.func.vmap(torch.func.grad(f))(x, labels)


def test_tensor_indices_give_the_loop(chapter):
    ns = chapter.run("per_sample_index.py")
    assert chapter.shown("per_sample_index.py", "fix").splitlines() == [
        "per-sample gradients: (6, 3, 5)", "same as a loop over samples: True"]
    assert chapter.shown("per_sample_index.py", "fix_slice") == "same as a loop over rows: True\n"
    assert len(set(ns["labels"].tolist())) == 3, "every class weight is used"
    # the loop the fix is compared with is the original function, one sample at a time
    x, y = ns["inputs"][1], ns["labels"][1]
    expected = torch.func.grad(ns["sample_loss"])(ns["params"], x, y)["weight"]
    assert torch.allclose(ns["grads"]["weight"][1], expected)


def test_older_functorch_wording_is_quoted_and_differs_from_2_13():
    quotes = " ".join(line.removeprefix("> ").strip() if line.startswith("> ") else "\n"
                      for line in PAGE.read_text().splitlines()).split("\n")
    old = ("vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use a "
           "Tensor in some data-dependent control flow or (3) encountering this error in PyTorch internals. "
           "For (1): we don't support vmap over calling .item() on a Tensor, please try to rewrite what "
           "you're doing with other operations. For (2): If you're doing some control flow instead, we don't "
           "support that yet, please shout over at https://github.com/pytorch/functorch/issues/257 . "
           "For (3): please file an issue.")
    assert old in [quote.strip() for quote in quotes]
    assert "functorch 0.1.0 to 0.2.1" in section_text("per-sample-gradients")

    def f(x):
        return x if x.sum() > 0 else -x

    with pytest.raises(RuntimeError) as err:
        torch.func.vmap(torch.func.grad(f))(torch.randn(3))
    now = str(err.value)
    assert now != old and now[:now.index("For (2)")] == old[:old.index("For (2)")], "the same start"


# data-pointer-without-storage

def test_numpy_under_vmap_and_grad_has_no_storage(chapter):
    for section in ("error", "grad"):
        assert chapter.shown("data_pointer.py", section) == "RuntimeError: " + heading("data-pointer-without-storage") + "\n"
    assert chapter.shown("data_pointer.py", "numpy_requires_grad").startswith(
        "RuntimeError: Can't call numpy() on Tensor that requires grad")


def test_the_wrappers_and_data_ptr():
    seen = {}

    def look(t):
        seen["batched"] = torch._C._functorch.is_batchedtensor(t)
        with pytest.raises(RuntimeError, match="doesn't have storage"):
            t.data_ptr()
        return t

    torch.func.vmap(look)(torch.randn(2, 3))

    def look_grad(t):
        seen["grad"] = torch._C._functorch.is_gradtrackingtensor(t)
        return t.sum()

    torch.func.grad(look_grad)(torch.randn(3))
    assert seen == {"batched": True, "grad": True}


def test_the_function_with_a_vmap_rule_gives_the_loop_and_passes_gradcheck(chapter):
    ns = chapter.run("data_pointer.py")
    assert chapter.shown("data_pointer.py", "fix").splitlines() == [
        "per-sample gradients: (6, 4)", "same as a loop over samples: True"]
    assert chapter.shown("data_pointer.py", "gradcheck") == "gradcheck: True\n"
    # the slope is the derivative of np.interp: 0 outside the knots
    z = torch.tensor([-4.0, 4.0, 0.1], dtype=torch.float64, requires_grad=True)
    ns["Response"].apply(z)[0].sum().backward()
    assert z.grad[0] == 0 and z.grad[1] == 0 and z.grad[2] > 0
    assert torch.autograd.gradcheck(lambda z: ns["Response"].apply(z)[0], (torch.linspace(
        -2.9, 2.9, 7, dtype=torch.float64).add(0.01).requires_grad_(),))


# grad-transform-mutates-capture

def test_captured_buffers_and_a_captured_center_are_refused(chapter):
    text = chapter.shown("grad_mutates_capture.py", "error")
    assert text.startswith("RuntimeError: " + heading("grad-transform-mutates-capture") + ". This is not supported")
    assert "explicitly accept the mutated Tensor(s) as inputs" in text
    center = chapter.shown("grad_mutates_capture.py", "center")
    assert "(aten::mul_.Tensor) that would mutate a captured Tensor" in center


def test_buffers_passed_in_give_the_backward_step(chapter):
    assert chapter.shown("grad_mutates_capture.py", "fix").splitlines() == [
        "same gradient as backward(): True", "same running mean: True"]
    ns = chapter.run("grad_mutates_capture.py")
    assert ns["buffers"]["1.num_batches_tracked"].item() == 1, "updated in place, the count too"
    assert ns["model"][1].num_batches_tracked.item() == 0, "the model's own buffers untouched"


def test_the_center_goes_out_as_an_auxiliary_output(chapter):
    ns = chapter.run("grad_mutates_capture.py")
    expected = 0.1 * ns["teacher_logits"].mean(0)
    assert torch.allclose(ns["center"], expected)
    assert ns["student_grad"].shape == ns["student_logits"].shape
    assert chapter.shown("grad_mutates_capture.py", "fix_center").startswith("center after one step: tensor([")


# derivative-not-implemented

def test_double_backward_through_cdist_is_not_implemented(chapter):
    text = chapter.shown("derivative_not_implemented.py", "error")
    assert text == "NotImplementedError: " + heading("derivative-not-implemented") + ".\n"
    assert issubclass(NotImplementedError, RuntimeError)


def test_on_the_release_checked_cdist_has_a_double_backward_and_the_fix_gradient_doubles(chapter):
    check = ReleaseCheck.load(ROOT / "bench" / "results" / "release_check.json")
    path = chapter.path("derivative_not_implemented.py")
    assert check.other == "2.14.1"
    error, fix = check.differs("errors_functions/derivative_not_implemented.py", path, None, None)
    assert error["line"] == chapter.line_of("derivative_not_implemented.py", 'print(f"{type(err).__name__}: {err}")')
    assert error["ours"].startswith("NotImplementedError: ") and error["theirs"] == "", "no error there"
    ours, theirs = (float(fix[side].split(": ")[1]) for side in ("ours", "theirs"))
    assert fix["line"] == chapter.line_of("derivative_not_implemented.py", 'print("strength.grad:", round(strength.grad.item(), 4))')
    assert theirs == pytest.approx(2 * ours, abs=1e-4), "the first block's gradient, then left in strength.grad, added"


def test_cdist_with_more_than_25_points_or_matrix_products_has_a_double_backward():
    a, b = torch.randn(5, 3, requires_grad=True), torch.randn(30, 3)
    for kwargs in ({}, {"compute_mode": "use_mm_for_euclid_dist"}):
        (g,) = torch.autograd.grad(torch.cdist(a, b, **kwargs).sum(), a, create_graph=True)
        g.pow(2).sum().backward()
    (g,) = torch.autograd.grad(torch.cdist(a, b[:25]).sum(), a, create_graph=True)
    with pytest.raises(NotImplementedError):
        g.pow(2).sum().backward()
    x = torch.randn(6, 3, requires_grad=True)
    (g,) = torch.autograd.grad(torch.pdist(x).sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match="'_pdist_backward'"):
        g.pow(2).sum().backward()


def test_explicit_distances_give_the_same_forces_and_pass_gradgradcheck(chapter):
    ns = chapter.run("derivative_not_implemented.py")
    assert chapter.shown("derivative_not_implemented.py", "gradgradcheck") == "gradgradcheck: True\n"
    a, b = ns["ligand"], ns["pocket"]
    assert torch.allclose(ns["explicit_cdist"](a, b), torch.cdist(a, b), atol=1e-5)
    # the strength's gradient, independently: forces computed with cdist in matrix-product mode
    strength = torch.tensor(1.0, requires_grad=True)
    positions = a.clone().requires_grad_()
    energy = (strength * torch.exp(-torch.cdist(positions, b, compute_mode="use_mm_for_euclid_dist"))).sum()
    forces = -torch.autograd.grad(energy, positions, create_graph=True)[0]
    torch.nn.functional.mse_loss(forces, ns["reference_forces"]).backward()
    assert chapter.shown("derivative_not_implemented.py", "fix") == f"strength.grad: {round(strength.grad.item(), 4)}\n"


def test_bce_differentiates_its_target_in_2_13_and_detach_stops_it(chapter):
    lines = chapter.shown("loss_target_requires_grad.py", "target").splitlines()
    assert lines[0] == "target requires grad: True"
    fixed = chapter.shown("loss_target_requires_grad.py", "fix")
    assert numbers_in(lines[1]) != numbers_in(fixed), "the target's branch adds to the gradient"
    p = torch.rand(5, dtype=torch.float64)
    t = torch.rand(5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.nn.functional.binary_cross_entropy(p, t), (t,))
    assert chapter.shown("loss_target_requires_grad.py", "soft_margin") == (
        "RuntimeError: The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
        "This input cannot have requires_grad True.\n")


def test_the_older_target_wording_is_the_same_message_family():
    section = section_text("derivative-not-implemented")
    assert "with `'target'`" in section and "pytorch/pytorch#56683" in section
    assert heading("derivative-not-implemented").replace("'_cdist_backward'", "'target'") == \
        "the derivative for 'target' is not implemented"


# jit-trace-constant

def test_a_plain_tensor_requiring_grad_is_refused_as_a_constant(chapter):
    text = chapter.shown("jit_trace_constant.py", "error")
    assert text.startswith("RuntimeError: " + heading("jit-trace-constant") + ". Consider making it a parameter")
    assert "Tensor:\n1\n[ torch.FloatTensor{} ]" in text, "the value of the temperature"
    assert chapter.shown("jit_trace_constant.py", "not_trained") == "temperature among the parameters: False\n"
    assert chapter.shown("jit_trace_constant.py", "cache").startswith("RuntimeError: " + heading("jit-trace-constant"))


def test_a_parameter_and_a_buffer_trace(chapter):
    assert chapter.shown("jit_trace_constant.py", "fix") == (
        "temperature among the parameters: True\ntraced gives the same logits: True\n")
    assert chapter.shown("jit_trace_constant.py", "fix_cache") == "traced gives the same logits: True\n"
    ns = chapter.run("jit_trace_constant.py")
    assert "unit_prototypes" in dict(ns["cached"].named_buffers())
    assert not ns["cached"].unit_prototypes.requires_grad


def test_jit_trace_is_deprecated_in_2_13():
    with pytest.warns(DeprecationWarning, match="torch.compile"):
        torch.jit.trace(nn.Linear(2, 2), torch.randn(1, 2))


def section_text(anchor):
    """The Markdown of the page's section with this id."""
    text = PAGE.read_text()
    start = text.index(f"{{ #{anchor} }}")
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


def numbers_in(line):
    return [float(n) for n in re.findall(r"-?\d+\.\d+", line)]


# links

def test_links_point_at_headings_that_exist():
    text = PAGE.read_text()
    for page, anchor in re.findall(r"\]\((\w+)\.md#([\w-]+)\)", text):
        other = (ROOT / "docs" / f"{page}.md").read_text()
        slugs = {slug(h) for h in re.findall(r"^#+ (.+?)(?: \{ #[\w-]+ \})?$", other, re.M)}
        slugs |= set(re.findall(r"^#+ .+ \{ #([\w-]+) \}$", other, re.M))
        assert anchor in slugs, f"{page}.md#{anchor}"


def slug(text):
    """Python-Markdown's toc slug (its default slugify)."""
    text = re.sub(r"[^\w\s-]", "", text.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)
