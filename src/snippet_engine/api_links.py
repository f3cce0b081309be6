"""Links from the torch names in a page's prose to the PyTorch reference.

Inline code in prose whose text is a qualified torch name, alone or called
(`torch.autograd.grad`, `torch.no_grad()`), links to where the reference
documents that name. The reference is built by Sphinx from docs/source of
pytorch/pytorch, and its pages follow from how that source documents a name:

- a name that a module's page lists in an autosummary table has a page of
  its own, generated/<name>.html: every name of the namespaces in GENERATED,
  save the few documented elsewhere (ON_PAGE) or under another name
  (DOCUMENTED_AS);
- a name documented on a page by `autoclass`, `autofunction` or `class` has
  its qualified name as its anchor there, and a module declared on a page
  (`automodule`, `py:module`) has "module-<name>" (ON_PAGE).

Nothing else links: private names, values such as dtypes (the reference lists
them in a table, with no anchor), objects without a docstring, and names of
other namespaces. Code blocks, links, headings, and the labels of tabs and
folds (a link there would take the click that opens them) are left alone.

Whether a name exists, and what it is, is asked of the installed torch in the
snippet worker, once per torch version: the answers are kept on disk, so a
build that meets no new name imports no torch. A name that torch lacks is a
mistake in the text, logged as a warning that names the page.
"""

import html
import importlib
import inspect
import json
import logging
import re
from collections.abc import Collection
from pathlib import Path

from snippet_engine.cache_file import CacheFolder, code_digest, entry_key
from snippet_engine.runner import Runner, SnippetError

log = logging.getLogger("mkdocs.plugins.snippets")
# An element left alone, or inline code that is a torch name, alone or called.
PROSE = re.compile(r"<(?:(?P<tag>pre|a|h[1-6]|label|summary)\b.*?</(?P=tag)>"
                   r"|code>(?P<name>torch(?:\.\w+)+)(?:\([^<]*\))?</code>)", re.S)

# Namespaces whose pages list their names in autosummary tables (`:toctree: generated`):
# torch.md, tensors.md, autograd.md, func.api.md, cuda.md, optim.md, nn.md, nn.functional.md, linalg.md.
GENERATED = {"torch", "torch.Tensor", "torch.autograd", "torch.autograd.Function", "torch.autograd.functional",
             "torch.autograd.forward_ad", "torch.autograd.graph.Node", "torch.func", "torch.cuda", "torch.optim",
             "torch.optim.Optimizer", "torch.nn.utils", "torch.nn.functional", "torch.nn.parallel", "torch.linalg"}
# Names (and modules) documented on a page of the reference rather than on one of their own.
ON_PAGE = {
    **dict.fromkeys(["torch.autograd", "torch.autograd.forward_ad", "torch.autograd.function", "torch.autograd.graph",
                     "torch.autograd.Function", "torch.autograd.detect_anomaly", "torch.autograd.set_detect_anomaly",
                     "torch.autograd.graph.saved_tensors_hooks", "torch.autograd.graph.save_on_cpu",
                     "torch.autograd.graph.disable_saved_tensors_hooks",
                     "torch.autograd.graph.register_multi_grad_hook"], "autograd.html"),
    **dict.fromkeys(["torch.library", "torch.library.custom_op", "torch.library.opcheck",
                     "torch.library.register_autograd", "torch.library.register_fake", "torch.library.register_kernel",
                     "torch.library.register_vmap"], "library.html"),
    **dict.fromkeys(["torch.amp", "torch.autocast", "torch.amp.custom_fwd", "torch.amp.custom_bwd"], "amp.html"),
    **dict.fromkeys(["torch.optim", "torch.optim.Optimizer"], "optim.html"),
    **dict.fromkeys(["torch.dtype", "torch.device"], "tensor_attributes.html"),
    "torch.finfo": "type_info.html",
    "torch.Tensor": "tensors.html",
    "torch.utils.checkpoint.checkpoint": "checkpoint.html",
    "torch.func": "func.api.html",
    "torch.cuda": "cuda.html",
    "torch.distributed": "distributed.html",
    "torch.backends": "backends.html",
    "torch.backends.cudnn.benchmark": "backends.html",
    **dict.fromkeys(["torch.profiler", "torch.profiler.profile"], "profiler.html"),
    "torch.autograd.functional": "autograd.html",
}
# Names that the reference lists under the module that defines them (torch.md, autograd.md).
DOCUMENTED_AS = {
    "torch.set_grad_enabled": "torch.autograd.grad_mode.set_grad_enabled",
    "torch.inference_mode": "torch.autograd.grad_mode.inference_mode",
    "torch.autograd.gradcheck": "torch.autograd.gradcheck.gradcheck",
    "torch.autograd.gradgradcheck": "torch.autograd.gradcheck.gradgradcheck",
}


def kind(name: str) -> str | None:
    """What `name` is in the installed torch: "module"; "api" for a class, function, method or
    attribute with a docstring; "other" for anything else; None where torch has no such name.
    An attribute comes before a submodule of the same name: `torch.autograd.gradcheck` is a function."""
    import torch

    parts = name.split(".")
    found: object = torch
    for n in range(1, len(parts)):
        try:
            found = getattr(found, parts[n])
        except AttributeError:
            try:
                found = importlib.import_module(".".join(parts[:n + 1]))
            except ImportError:
                return None
    if inspect.ismodule(found):
        return "module"
    api = inspect.isclass(found) or inspect.isroutine(found) or inspect.isdatadescriptor(found)
    return "api" if api and found.__doc__ else "other"


def url(name: str, what: str | None, base: str) -> str | None:
    """The reference's address for `name`, which is `what` (see `kind`), or None where it has none."""
    if what is None or "._" in name:
        return None
    if name in ON_PAGE:
        return f"{base}{ON_PAGE[name]}#{'module-' if what == 'module' else ''}{name}"
    if what == "api" and name.rpartition(".")[0] in GENERATED:
        return f"{base}generated/{DOCUMENTED_AS.get(name, name)}.html"
    return None


class TorchNames:
    """The `kind` of each torch name met so far, kept in `cache` for one torch version."""

    def __init__(self, cache: CacheFolder, version: str | None, runner: Runner) -> None:
        self.cache, self.version, self.runner = cache, version, runner
        self.key = entry_key("torch names", version, code_digest(Path(__file__)))
        known = cache.get(self.key)
        self.known: dict[str, str | None] = known if isinstance(known, dict) else {}

    def kinds(self, names: Collection[str]) -> dict[str, str | None]:
        """{name: kind} of `names`; those not met before are asked of torch in the snippet worker."""
        new = sorted(set(names) - self.known.keys())
        if new:
            result = self.runner.run_code(f"import json\nfrom snippet_engine.api_links import kind\n"
                                          f"print(json.dumps({{name: kind(name) for name in {new!r}}}))")
            if result.error:
                raise SnippetError(result)
            self.known.update(json.loads(result.stdout))
            self.cache.put(self.key, self.known)
        return {name: self.known[name] for name in names}


def link(page_html: str, page: str, base: str, names: TorchNames) -> str:
    """`page_html` with each torch name in its prose linked to the reference at `base`;
    each name torch lacks is logged as a warning naming `page`."""
    base = base.rstrip("/") + "/"
    found = [m for m in PROSE.finditer(page_html) if m["name"]]
    kinds = names.kinds({m["name"] for m in found})
    for name in sorted(name for name, what in kinds.items() if what is None):
        log.warning(f"{page}: `{name}` is not a name in torch {names.version}")
    parts, done = list[str](), 0
    for m in found:
        if address := url(m["name"], kinds[m["name"]], base):
            parts += [page_html[done:m.start()], f'<a class="api-link" href="{html.escape(address)}">{m[0]}</a>']
            done = m.end()
    return "".join(parts) + page_html[done:]
