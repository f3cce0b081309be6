"""Claims of the page 'Errors in custom Functions, torch.func and higher order'
(docs/errors_functions.md)."""

import re
import weakref

import pytest
import torch
from conftest import ROOT, soup, warnings_in
from torch import nn

PAGE = ROOT / "docs" / "errors_functions.md"


def heading(anchor):
    """The text of the page's `##` heading with this id."""
    (text,) = re.findall(rf"^## (.+) \{{ #{anchor} \}}$", PAGE.read_text(), re.M)
    return text


def test_every_section_is_here_with_its_id():
    ids = re.findall(r"^## .+ \{ #([\w-]+) \}$", PAGE.read_text(), re.M)
    assert ids == [
        "incorrect-number-of-gradients", "setup-context", "save-for-backward",
        "per-sample-gradients", "gradient-penalty", "hessian-vector-product",
        "create-graph-cycle", "compile-custom-function",
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


def test_the_page_shows_the_warning_once_in_a_warning_box(built_site):
    page = soup(built_site / "errors_functions" / "index.html")
    boxes = page.select(".admonition.snippet-warning")
    assert len(boxes) == 1
    assert boxes[0].select_one(".admonition-title").get_text(strip=True) == "UserWarning"
    assert heading("create-graph-cycle") in boxes[0].get_text()
    section = page.find(id="create-graph-cycle")
    assert boxes[0] in section.find_all_next(class_="snippet-warning"), "in its own section"
    assert boxes[0] not in page.find(id="compile-custom-function").find_all_next(class_="snippet-warning")


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
    assert torch._dynamo.explain(ns["fixed_loss_fn"])(ns["inputs"]).graph_break_count == 0


def test_the_compiled_fix_gives_the_eager_gradient(chapter):
    ns = chapter.run("compile_custom_function.py")
    assert chapter.shown("compile_custom_function.py", "fix") == \
        "compiled loss: 1.0\nsame gradient as eager: True\n"
    assert ns["model"](ns["inputs"]).norm() > 1, "the eager if took the clipping branch"
    assert torch.allclose(ns["compiled_grad"], ns["model"].weight.grad)


# links

def test_links_point_at_headings_that_exist():
    text = PAGE.read_text()
    for page, anchor in re.findall(r"\]\((\w+)\.md#([\w-]+)\)", text):
        other = (ROOT / "docs" / f"{page}.md").read_text()
        slugs = {slug(h) for h in re.findall(r"^#+ (.+)$", other, re.M)}
        assert anchor in slugs, f"{page}.md#{anchor}"


def slug(text):
    """Python-Markdown's toc slug (its default slugify)."""
    text = re.sub(r"[^\w\s-]", "", text.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)
