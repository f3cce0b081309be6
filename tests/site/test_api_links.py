"""Torch names in prose link to the PyTorch reference, by its page scheme, and only names torch has."""

import importlib
import inspect
import logging
import re
from importlib import metadata

from conftest import engine_settings, pages, soup

from snippet_engine.api_links import TorchNames, link
from snippet_engine.cache_file import CacheFolder

BASE = engine_settings().api_reference
# The reference's pages: generated/<name>.html for a name with a page of its own, <page>.html#<name>
# for one documented on a page, <page>.html#module-<name> for a module declared on a page.
SCHEME = re.compile(rf"{re.escape(BASE)}(?:generated/(?P<page>torch[\w.]+)\.html"
                    rf"|[a-z_.]+\.html#(?P<module>module-)?(?P<anchor>torch[\w.]+))")
NAME = re.compile(r"(torch(?:\.\w+)+)(?:\(.*\))?", re.S)
# Names in prose that stay unlinked, and why.
UNLINKED = {
    "torch._dynamo.explain",  # private: not in the reference
    "torch._dynamo.compiled_autograd", "torch._dynamo.config.compiled_autograd",  # private too
    "torch.ops",  # a namespace of operators, with no page or anchor in the reference
    "torch.relu",  # no docstring, and no entry in the reference
    "torch.amp.GradScaler",  # amp.html documents it only as torch.cuda.amp.GradScaler and torch.cpu.amp.GradScaler
    "torch._functorch.config",  # private: not in the reference
    "torch.jit.trace", "torch.export",  # namespaces the engine does not link (api_links: GENERATED, ON_PAGE)
    "torch.distributed.rpc", "torch.distributed.fsdp",  # the same
    "torch.distributed._DEFAULT_FIRST_BUCKET_BYTES",  # private: not in the reference
}


def find(name):
    """The object a torch name in prose names, as Python finds it: an attribute before a submodule
    (`torch.autograd.gradcheck` is a function)."""
    found, parts = importlib.import_module("torch"), name.split(".")
    for n, part in enumerate(parts[1:], 2):
        found = getattr(found, part) if hasattr(found, part) else importlib.import_module(".".join(parts[:n]))
    return found


def documented(name):
    """The object the reference documents as `name`, as Sphinx finds it: in the longest module of its
    prefixes (`torch.autograd.gradcheck.gradcheck` is the function of the module)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:n]))
        except ImportError:
            continue
        for part in parts[n:]:
            found = getattr(found, part)
        return found


def test_every_link_to_the_reference_names_the_object_of_its_text_by_the_reference_scheme(built_site):
    linked = 0
    for page in pages(built_site):
        for a in soup(page).select(f'a[href^="{BASE}"]'):
            where = f"{page.relative_to(built_site)}: {a}"
            m = SCHEME.fullmatch(a["href"])
            assert m and a.code and NAME.fullmatch(a.get_text()), where
            named = documented(m["page"] or m["anchor"])  # raises where torch has no such object
            assert named is find(NAME.fullmatch(a.get_text())[1]), where
            assert (m["module"] is not None) == (m["anchor"] is not None and inspect.ismodule(named)), where
            linked += 1
    assert linked


def test_no_torch_name_in_prose_is_left_unlinked(built_site):
    """Except in code blocks, headings and the labels of tabs and folds, and the names in UNLINKED."""
    unlinked = set()
    for page in pages(built_site):
        content = soup(page).select_one(".md-content")
        for code in content.find_all("code"):
            m = NAME.fullmatch(code.get_text())
            if m and not code.find_parent(["pre", "a", "h1", "h2", "h3", "h4", "h5", "h6", "label", "summary"]):
                unlinked.add(m[1])
    assert unlinked <= UNLINKED


def names(tmp_path, runner):
    return TorchNames(CacheFolder(tmp_path), metadata.version("torch"), runner)


def test_names_link_by_how_the_reference_documents_them(tmp_path, runner):
    prose = " ".join(f"<code>{name}</code>" for name in [
        "torch.autograd.grad", "torch.no_grad()", "torch.Tensor.backward", "torch.autograd.Function.forward",
        "torch.autograd.Function", "torch.autograd", "torch.func", "torch.library.custom_op",
        "torch.utils.checkpoint.checkpoint", "torch.set_grad_enabled(False)", "torch.float64",
        "torch.autograd.graph.Node", "torch._dynamo.explain"])
    assert link(f"<p>{prose}</p>", "page.md", BASE, names(tmp_path, runner)) == "<p>" + " ".join([
        f'<a class="api-link" href="{BASE}generated/torch.autograd.grad.html"><code>torch.autograd.grad</code></a>',
        f'<a class="api-link" href="{BASE}generated/torch.no_grad.html"><code>torch.no_grad()</code></a>',
        f'<a class="api-link" href="{BASE}generated/torch.Tensor.backward.html"><code>torch.Tensor.backward</code></a>',
        f'<a class="api-link" href="{BASE}generated/torch.autograd.Function.forward.html">'
        "<code>torch.autograd.Function.forward</code></a>",
        f'<a class="api-link" href="{BASE}autograd.html#torch.autograd.Function"><code>torch.autograd.Function</code></a>',
        f'<a class="api-link" href="{BASE}autograd.html#module-torch.autograd"><code>torch.autograd</code></a>',
        f'<a class="api-link" href="{BASE}func.api.html#module-torch.func"><code>torch.func</code></a>',
        f'<a class="api-link" href="{BASE}library.html#torch.library.custom_op"><code>torch.library.custom_op</code></a>',
        f'<a class="api-link" href="{BASE}checkpoint.html#torch.utils.checkpoint.checkpoint">'
        "<code>torch.utils.checkpoint.checkpoint</code></a>",
        f'<a class="api-link" href="{BASE}generated/torch.autograd.grad_mode.set_grad_enabled.html">'
        "<code>torch.set_grad_enabled(False)</code></a>",
        "<code>torch.float64</code>", "<code>torch.autograd.graph.Node</code>", "<code>torch._dynamo.explain</code>",
    ]) + "</p>"


def test_code_blocks_links_headings_and_tab_labels_are_left_alone(tmp_path, runner):
    html = ('<pre><code>torch.ones(3)</code></pre><p><a href="#x"><code>torch.ones</code></a></p>'
            '<h2 id="t">The <code>torch.where</code> trap<a class="headerlink" href="#t">&para;</a></h2>'
            '<label for="tab"><code>torch.autograd.grad</code></label>')
    assert link(html, "page.md", BASE, names(tmp_path, runner)) == html


def test_a_name_torch_lacks_is_a_warning_naming_the_page(tmp_path, runner, caplog):
    html = "<p>Call <code>torch.autograd.gradd(y, x)</code>.</p>"
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.snippets"):
        assert link(html, "chapter.md", BASE, names(tmp_path, runner)) == html
    assert [r.getMessage() for r in caplog.records] == [
        f"chapter.md: `torch.autograd.gradd` is not a name in torch {metadata.version('torch')}"]


def test_names_are_asked_of_torch_once_per_torch_version(tmp_path, runner):
    asked = names(tmp_path, runner).kinds({"torch.autograd.grad", "torch.nope"})
    assert asked == {"torch.autograd.grad": "api", "torch.nope": None}
    assert names(tmp_path, runner=None).kinds(asked) == asked  # no torch: from the cache
    assert TorchNames(CacheFolder(tmp_path), "0.0", runner=None).known == {}
