"""Material's search on the built site: queries entered into the real search box in Chromium.

Readers search for API names in the forms they write them (`no_grad`, `torch.no_grad`,
`optimizer.zero_grad()`, `detect_anomaly` for `torch.autograd.set_detect_anomaly`); the
`separator` of the search plugin in mkdocs.yml decides which of these find a page. The chapter
that introduces a term is the first hit for it (hooks/search_terms.py), the index pages never
come before a chapter, and an excerpt shows a formula as text (the katex plugin, src/snippet_engine/formula_text.py).
"""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from browsing import CLIPBOARD, PHONE, open_page, screenshot
from conftest import ROOT
from playwright.sync_api import expect

BASICS = "Autograd basics: backward() and .grad"
VJP = "Vector-Jacobian products"
RECORDING = "Controlling what is recorded"
FUNCTIONS = "Custom autograd Functions"
FUNCTION_API = "The PyTorch 2 Function API"
HIGHER_ORDER = "Double backward and forward mode"
DEBUGGING = "Debugging gradients"
MEMORY = "Saving memory"
OPERATORS = "Custom operators for torch.compile"
INDEX_PAGES = {"Autograd Inside Out", "Home", "Notebooks", "Error messages"}

# Each query the page sends to Material's search worker gets one reply. Counting both sides
# tells when the list shows the results of the query entered, not of an earlier one.
COUNT_WORKER_MESSAGES = """
(() => {
  const Native = window.Worker;
  window.searchTraffic = {sent: 0, received: 0};
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => window.searchTraffic.received++);
    }
    postMessage(...args) {
      window.searchTraffic.sent++;
      return super.postMessage(...args);
    }
  };
})();
"""
ANSWERED = "sent => window.searchTraffic.sent > sent && window.searchTraffic.sent === window.searchTraffic.received"
# The results as Material shows them, read in one call: one {"title", "text", "html"} per page, best first.
RESULTS = """() => [...document.querySelectorAll(".md-search-result__item")].map(item => ({
    title: item.querySelector("h1").innerText, text: item.textContent, html: item.innerHTML,
    href: item.querySelector("a").getAttribute("href"),
    sections: [...item.querySelectorAll("article")].map(a => a.textContent),
    links: [...item.querySelectorAll("a")].map(a => a.getAttribute("href")),
}))"""


@pytest.fixture(scope="module")
def search(browser, urls):
    """search(query) enters the query into the search box of the home page and returns the
    results as Material shows them: one {"title", "text", "html"} per page, best first.
    search(text, paste=True) pastes it from the clipboard with Ctrl+V, as a reader does (the box
    is one line: Chromium turns the paste's line breaks into spaces). search.console holds what
    the page and its search worker logged."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(COUNT_WORKER_MESSAGES)
    page = context.new_page()
    page.goto(urls["home"], wait_until="load")
    context.grant_permissions(CLIPBOARD, origin=urls["home"].rstrip("/"))
    run_console = []
    page.on("console", lambda m: run_console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: run_console.append(f"pageerror: {e}"))
    box = page.locator("input.md-search__input")
    box.click()
    page.wait_for_function(ANSWERED, arg=0)  # the index is loaded
    entered = ""

    def run(query, paste=False):
        nonlocal entered
        sent = page.evaluate("window.searchTraffic.sent")
        if paste:
            page.evaluate("text => navigator.clipboard.writeText(text)", query)
            box.press("Control+A")
            box.press("Control+V")  # Material searches on the key's keyup
        else:
            box.fill(query)  # entered whole: one search, not one per letter typed
            box.press("End")  # Material searches on the key's keyup
        if box.input_value() != entered:  # the same query again is not searched again
            page.wait_for_function(ANSWERED, arg=sent)
        entered = box.input_value()
        return page.evaluate(RESULTS)

    run.page = page
    run.console = run_console
    yield run
    context.close()


# The chapter each term is introduced in (the home page's table of chapters says the same), in
# the forms readers type the names.
FIRST_HITS = [
    ("grad_fn", BASICS),
    ("requires_grad", BASICS),
    ("leaf", BASICS),
    ("retain_graph", BASICS),
    ("zero_grad", BASICS),
    ("optimizer.zero_grad()", BASICS),
    ("no_grad", RECORDING),
    ("torch.no_grad", RECORDING),
    ("torch.no_grad()", RECORDING),
    ("inference_mode", RECORDING),
    ("torch.inference_mode", RECORDING),
    ("set_grad_enabled", RECORDING),
    ("create_graph", RECORDING),
    ("jacobian", VJP),
    ("vjp", VJP),
    ("gradcheck", FUNCTIONS),
    ("vmap", FUNCTION_API),
    ("torch.vmap", FUNCTION_API),
    ("jvp", HIGHER_ORDER),
    ("detect_anomaly", DEBUGGING),
    ("set_detect_anomaly", DEBUGGING),
    ("register_hook", DEBUGGING),
    ("saved_tensors_hooks", MEMORY),
    ("checkpoint", MEMORY),
    ("custom_op", OPERATORS),
]


@pytest.mark.parametrize(("query", "chapter"), FIRST_HITS)
def test_the_chapter_that_introduces_a_term_is_the_first_hit(search, query, chapter):
    hits = search(query)
    assert [h["title"] for h in hits[:1]] == [chapter], f"{query!r}: {[h['title'] for h in hits[:3]]}"
    name = re.sub(r"^(torch|optimizer)\.|\(\)$|^set_", "", query)
    assert name.lower() in hits[0]["text"].lower(), f"{query!r}: the first hit does not show {name!r}"


@pytest.mark.parametrize("query", sorted({query for query, _ in FIRST_HITS} | {"NaN", "4.5", "Jacobian"}))
def test_index_pages_come_after_every_chapter_and_notebook_pages_not_at_all(search, query):
    """Home and Notebooks list the chapters; a notebook page repeats its chapter."""
    hits = search(query)
    titles = [h["title"] for h in hits]
    chapters = [i for i, title in enumerate(titles) if title not in INDEX_PAGES]
    index_pages = [i for i, title in enumerate(titles) if title in INDEX_PAGES]
    assert not chapters or not index_pages or min(index_pages) > max(chapters), f"{query!r}: {titles}"
    assert not [h["href"] for h in hits if "notebooks/" in h["href"] and h["title"] != "Notebooks"], query


@pytest.mark.parametrize(("query", "heading", "as_text"), [
    ("4.5", "Why every entry is 4.5", ["∂ out/∂x_i", "3/2 (x_i + 2)", "1/4 ·6 y_i"]),
    ("scalar case", "The scalar case: v = 1", ["3(x + 2)^2", "2 ×2"]),
])
def test_an_excerpt_shows_formulas_as_text(search, query, heading, as_text):
    """A formula in an excerpt reads as text (pylatexenc's Unicode), once, and not as TeX source
    or as KaTeX's output (HTML glyphs, MathML and its TeX annotation)."""
    hits = search(query)
    (excerpt,) = [" ".join(s.split()) for h in hits for s in h["sections"] if " ".join(s.split()).startswith(heading)]
    for text in as_text:
        assert excerpt.count(text) >= 1, f"{text!r} not in the excerpt: {excerpt[:600]}"
    assert not re.search(r"\\[a-zA-Z]+|\\[()\[\]]", excerpt), f"TeX in the excerpt: {excerpt[:600]}"
    assert not any(re.search(r'class="katex|<math|<annotation', h["html"]) for h in hits)


def test_excerpts_show_only_the_page_text(search):
    hits = search("gradcheck")
    assert hits and not any("snippetengine" in h["text"] for h in hits)


# Messages as a reader's own run prints them: their shapes, numbers, version counters and
# operation names, not the site's; each with the section of the error pages that shows it.
PASTED = [
    ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after "
     "they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
     "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you "
     "need to access saved tensors after calling backward.", "errors_graph/#backward-twice"),
    ("Trying to backward through the graph a second time", "errors_graph/#backward-twice"),
    ("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
     "errors_graph/#does-not-require-grad"),
    ("element 0 of tensors does not require grad", "errors_graph/#does-not-require-grad"),
    ("RuntimeError: grad can be implicitly created only for scalar outputs", "errors_graph/#scalar-outputs"),
    ("RuntimeError: The differentiated Tensor at index 3 appears to not have been used in the graph. "
     "Set allow_unused=True if this is the desired behavior.", "errors_graph/#allow-unused"),
    ("RuntimeError: Only Tensors of floating point and complex dtype can require gradients",
     "errors_graph/#integer-requires-grad"),
    ("RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed "
     "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
     "errors_graph/#requires-grad-flags"),
    ("RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
     "errors_graph/#numpy-requires-grad"),
    ("RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
     "normal tensor and use it in autograd.", "errors_graph/#inference-tensors"),
    (('RuntimeError: one of the variables needed for gradient computation has been modified by an inplace '
     'operation: [torch.cuda.FloatTensor [128, 64]], which is output 0 of ReluBackward0, is at version 3; '
     'expected version 2 instead. Hint: the backtrace further above shows the operation that failed to '
     'compute its gradient. The variable in question was changed in there or anywhere later. Good luck!'),
     'errors_inplace/#modified-by-inplace'),
    (('RuntimeError: one of the variables needed for gradient computation has been modified by an inplace '
     'operation: [torch.FloatTensor [10, 1]], which is output 0 of AsStridedBackward0, is at version 2; '
     'expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to '
     'compute its gradient, with torch.autograd.set_detect_anomaly(True).'),
     'errors_inplace/#modified-by-inplace'),
    ('RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.',
     'errors_inplace/#leaf-in-place'),
    ('RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.',
     'errors_inplace/#view-of-leaf-in-place'),
    ('RuntimeError: leaf variable has been moved into the graph interior',
     'errors_inplace/#moved-into-graph-interior'),
    (('RuntimeError: Output 0 of UnbindBackward0 is a view and is being modified inplace. This view is the '
     'output of a function that returns multiple views. Such functions do not allow the output views to be'
     ' modified inplace. You should replace the inplace operation by an out-of-place one.'),
     'errors_inplace/#view-modified-inplace'),
    (('RuntimeError: A view was created in no_grad mode and is being modified inplace with grad mode '
     'enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify '
     "your code by moving both the view and the inplace either both inside the no_grad block (if you don't"
     ' want the inplace to be tracked) or both outside (if you want the inplace to be tracked).'),
     'errors_inplace/#view-created-in-no-grad'),
    (('UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad '
     "attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be "
     'populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-'
     'leaf Tensor by mistake, make sure you access the leaf Tensor instead.'),
     'errors_training/#non-leaf-grad'),
    ("RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.",
     'errors_training/#returned-nan'),
    ("RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.",
     'errors_training/#returned-nan'),
    (('RuntimeError: function MyReLUBackward returned an incorrect number of gradients (expected 3, got 1)'),
     'errors_functions/#incorrect-number-of-gradients'),
    (('RuntimeError: In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, '
     'jacrev, ...), it must override the setup_context staticmethod. For more details, please see '
     'https://pytorch.org/docs/main/notes/extending.func.html'),
     'errors_functions/#setup-context'),
    ('TypeError: save_for_backward can only save variables, but argument 2 is of type int',
     'errors_functions/#save-for-backward'),
    (('RuntimeError: Batch norm got a batched tensor as input while the running_mean or running_var, which '
     'will be updated in place, were not batched.'),
     'errors_functions/#per-sample-gradients'),
    ('RuntimeError: One of the differentiated Tensors does not require grad',
     'errors_functions/#gradient-penalty'),
    (('UserWarning: Using backward() with create_graph=True will create a reference cycle between the '
     'parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when '
     'creating the graph to avoid this. If you have to use this function, make sure to reset the .grad '
     'fields of your parameters to None after use to break the cycle and avoid the leak.'),
     'errors_functions/#create-graph-cycle'),
    ('torch._dynamo.exc.Unsupported: Data-dependent branching',
     'errors_functions/#compile-custom-function'),
    (('UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and '
     'later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.'
     '  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule.'),
     'errors_gpu/#lr-scheduler-before-step'),
    ('RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::Half != float',
     'errors_gpu/#autocast-backward-dtype'),
    ('RuntimeError: cudnn RNN backward can only be called in training mode',
     'errors_gpu/#cudnn-rnn-backward-eval'),
    ('RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::Half != float',
     'errors_gpu/#cuda-dtype-mismatch'),
    (('UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In '
     'version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is '
     'recommended, but if you need to preserve the current default behavior, you can pass '
     'use_reentrant=True. Refer to docs for more details on the differences between the two variants.'),
     'errors_distributed/#checkpoint-use-reentrant'),
    ('UserWarning: None of the inputs have requires_grad=True. Gradients will be None',
     'errors_distributed/#checkpoint-no-input-grad'),
    (('RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. '
     'This error indicates that your module has parameters that were not used in producing loss. You can '
     'enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to '
     '`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs '
     'participate in calculating loss.'),
     'errors_distributed/#ddp-unused-parameters'),
    (('RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the '
     'following reasons: 1) Use of a module parameter outside the `forward` function. Please make sure '
     'model parameters are not shared across multiple concurrent forward-backward passes. or try to use '
     '_set_static_graph() as a workaround if this module graph does not change during training loop.2) '
     'Reused parameters in multiple reentrant backward passes.'),
     'errors_distributed/#ddp-ready-only-once'),
    ("RuntimeError: You tried to vmap over MyFunc, but it does not have vmap support. Please override and "
     "implement the vmap staticmethod or set generate_vmap_rule=True.", "errors_functions/#setup-context"),
    ("RuntimeError: vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use a "
     "Tensor in some data-dependent control flow or (3) encountering this error in PyTorch internals.",
     "errors_functions/#per-sample-gradients"),
    ("RuntimeError: Your training graph has changed in this iteration, e.g., one parameter is unused in first "
     "iteration, but then got used in the second iteration. this is not compatible with static_graph set to True.",
     "errors_distributed/#ddp-unused-parameters"),
    ('one of the variables needed for gradient computation has been modified by an inplace operation', 'errors_inplace/#modified-by-inplace'),
    ('Expected to have finished reduction in the prior iteration', 'errors_distributed/#ddp-unused-parameters'),
    ('cudnn RNN backward can only be called in training mode', 'errors_gpu/#cudnn-rnn-backward-eval'),
    ('Detected call of `lr_scheduler.step()` before `optimizer.step()`', 'errors_gpu/#lr-scheduler-before-step'),
    ('a leaf Variable that requires grad is being used in an in-place operation', 'errors_inplace/#leaf-in-place'),
]


# A problem with no message is searched by its symptom, in a reader's words.
SYMPTOMS = [
    ("total_loss += loss memory grows", "errors_training/#total-loss-memory"),
    ("zero_grad forgotten gradients grow", "errors_training/#zero-grad-forgotten"),
    ("frozen parameters still change", "errors_training/#frozen-parameters-move"),
    ("model.eval() does not turn off gradients", "errors_training/#eval-is-not-no-grad"),
    ("NaN gradient sqrt norm zero", "errors_training/#nan-sqrt-norm"),
    ("NaN gradients torch.where", "errors_training/#nan-where"),
    ("dropout inside a checkpoint", "errors_distributed/#checkpoint-dropout"),
    ("grad is None after .to(device)", "errors_gpu/#grad-none-after-to"),
    ("gradient None after argmax", "errors_graph/#non-differentiable-ops"),
    ("writing through .data wrong gradients", "errors_inplace/#data-versus-detach"),
    ("Hessian-vector product second gradient", "errors_functions/#hessian-vector-product"),
    ("recurrent hidden state carried across batches", "errors_graph/#truncated-bptt"),
]


def best_section(hit):
    """The first section a result lists (after its page), as page/#id."""
    link = urlsplit(next((link for link in hit["links"] if "#" in link), hit["links"][0]))
    return f"{link.path.strip('/')}/#{link.fragment}"


@pytest.mark.parametrize(("query", "section"), PASTED + SYMPTOMS, ids=[f"{s}-{len(q)}" for q, s in PASTED + SYMPTOMS])
def test_a_pasted_error_message_or_a_symptom_finds_the_section_that_shows_it_first(search, query, section):
    hits = search(query)
    assert hits, f"no result for {query!r}"
    assert best_section(hits[0]) == section, f"{query[:60]!r}: {[best_section(h) for h in hits[:3]]}"


@pytest.mark.parametrize("query", ["0", "element 0 of tensors", "version 0", "output 0 of TanhBackward0"])
def test_digits_in_a_query_never_empty_the_results(search, query):
    assert search(query), query


@pytest.mark.parametrize(("query", "chapter"), [("GradScaler", "Running on a GPU"),
                                                ("AccumulateGrad", None), ("MulBackward0", None)])
def test_camel_case_names_are_found_whole(search, query, chapter):
    """`GradScaler` is one word, not "grad" and "scaler": the first hit shows the name itself."""
    hits = search(query)
    assert hits and query.lower() in hits[0]["text"].lower(), f"{query}: {[h['title'] for h in hits[:3]]}"
    assert chapter is None or hits[0]["title"] == chapter


# Pastes from public threads, as readers posted them (tests/search_pastes.yaml).
PASTES = yaml.safe_load((ROOT / "tests" / "search_pastes.yaml").read_text(encoding="utf-8"))
NOT_COVERED = "Not covered here"


def thread(entry):
    """owner/repo#number of a paste's thread."""
    return re.sub(r"^https://github\.com/|/(issues|pull|discussions)/", lambda m: "#" if m.group(1) else "", entry["thread"])


def highlighted(link):
    """The words a result's link asks its landing page to highlight (Material's `h`)."""
    return " ".join(parse_qs(urlsplit(link).query).get("h", [])).split()


@pytest.mark.parametrize("entry", PASTES, ids=[f"{e['kind']}-{thread(e)}" for e in PASTES])
def test_a_real_paste_lands_first_on_its_section_or_says_it_is_not_covered(search, entry):
    """Pasted whole with Ctrl+V: traceback frames, warning prefixes, the C++ tail, Windows paths,
    quotes and colons and an older wording weigh nothing against the message itself."""
    hits = search(entry["paste"], paste=True)
    assert hits, f"no result for the paste from {entry['thread']}"
    if entry["section"]:
        assert best_section(hits[0]) == entry["section"], \
            f"{entry['thread']}: {[(h['title'], best_section(h)) for h in hits[:3]]}"
    else:
        assert hits[0]["title"] == NOT_COVERED and len(hits) > 1, f"{entry['thread']}: {[h['title'] for h in hits[:3]]}"
        assert entry["paste"].split()[0].rstrip(":") in hits[0]["text"] or "“" in hits[0]["text"]
    short = [word for hit in hits for link in hit["links"] for word in highlighted(link) if len(word) < 3]
    assert not short, f"{entry['thread']}: the landing page would highlight {short}"
    assert not [line for line in search.console if "Invalid query" in line or "pageerror" in line], search.console


# Query syntax that lunr reads as fuzziness (`~100` made it work for minutes), fields, boosts,
# presence, wildcards and phrases, and pastes far longer than a message.
HOSTILE = ["autograd~100", "grad~1000", "title:grad", "text:", "grad^1000", "+grad -leaf", "*", "-", "~", "^", ":",
           '"unclosed phrase', "* * *", "x" * 5000, "gradient " * 2000,
           "epoch 3 | step 120 | loss 0.4132 | lr 1e-4 | grad_norm 3.2\n" * 400]


@pytest.mark.parametrize("query", HOSTILE, ids=[f"{q[:16]!r}-{len(q)}" for q in HOSTILE])
def test_no_query_syntax_or_length_breaks_the_search(search, query):
    """Each is answered (the helper waits for the worker's reply), without a parse error, and a
    later query is answered as well."""
    search(query, paste=True)
    assert not [line for line in search.console if "Invalid query" in line or "pageerror" in line], search.console
    assert search("grad_fn")[0]["title"] == BASICS


LANDINGS = [entry for entry in PASTES if entry["section"] and entry["kind"] in ("traceback", "warning-prefix")][:2]


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (1280, "dark"), (PHONE, "light"), (PHONE, "dark")])
@pytest.mark.parametrize("entry", LANDINGS, ids=thread)
def test_the_landing_page_of_a_paste_shows_its_section_heading_and_highlights_no_short_word(
        search, browser, site_url, entry, width, scheme):
    """The first result's link, opened at 1280 px and on a phone: the section's heading is on
    screen below the header, and no highlighted word has fewer than three letters."""
    link = search(entry["paste"], paste=True)[0]["links"]
    link = next(href for href in link if "#" in href)
    page = open_page(browser, link, scheme=scheme, width=width, height=800)
    heading = page.locator(f"[id='{urlsplit(link).fragment}']")
    page.wait_for_function("() => document.querySelectorAll('mark[data-md-highlight]').length > 0")
    marks = page.locator("mark[data-md-highlight]").all_text_contents()
    assert [m for m in marks if len(m.strip()) < 3] == [], marks
    header = page.locator(".md-header").bounding_box()
    page.wait_for_function("e => Math.abs(e.getBoundingClientRect().top) < window.innerHeight", arg=heading.element_handle())
    box = heading.bounding_box()
    assert header["y"] + header["height"] <= box["y"] < 800, (header, box)
    screenshot(page, f"search-landing-{thread(entry)}-{width}-{scheme}")
    assert not page.errors, page.errors


# Counts the indexes lunr builds in the search worker from now on.
COUNT_BUILDS = """() => {
    self.builds = 0;
    const build = lunr.Builder.prototype.build;
    lunr.Builder.prototype.build = function (...args) { self.builds++; return build.apply(this, args); };
}"""


def test_the_index_is_built_when_the_reader_first_searches_not_when_a_page_loads(browser, urls):
    """lunr's index of the site takes a core some 0.3 s to build: a page is ready to search at
    once and builds it on the first query (hooks/search_worker.js), once."""
    page = open_page(browser, urls["autograd_basics"])
    expect(page.locator(".md-search-result__meta")).to_have_text("Type to start searching")
    (worker,) = [w for w in page.workers if "/workers/search." in w.url]
    worker.evaluate(COUNT_BUILDS)
    assert worker.evaluate("self.builds") == 0, "built before anyone searched"
    page.click("input.md-search__input")
    page.keyboard.type("gradcheck")
    expect(page.locator(".md-search-result__item h1").first).to_have_text(FUNCTIONS)
    page.keyboard.type(" backward")
    expect(page.locator(".md-search-result__meta")).not_to_have_text("Type to start searching")
    assert worker.evaluate("self.builds") == 1
    assert page.errors == []


def test_text_pasted_with_no_key_pressed_is_searched_as_one_pasted_with_ctrl_v(search, browser, urls):
    """On a phone, a paste comes from the menu of a long press, and with a mouse from the context
    menu: the box's text changes and no key is pressed. Material searches on a key's release
    (overrides/main.html makes each change of the box's text one): the results are those of
    the same text pasted with Ctrl+V."""
    pasted = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    expected = [best_section(hit) for hit in search(pasted, paste=True)]
    page = open_page(browser, urls["home"], width=PHONE, height=844, has_touch=True, is_mobile=True)
    page.locator(".md-header label.md-header__button[for=__search]").tap()  # the magnifier in the header
    box = page.locator("input.md-search__input")
    box.focus()
    # The text goes in as the menu's Paste puts it: one `input` event, no key's. (Headless
    # Chromium runs no paste command from a page, whatever its permissions.)
    page.evaluate("text => document.execCommand('insertText', false, text)", pasted)
    assert box.input_value() == pasted
    expect(page.locator(".md-search-result__meta")).not_to_have_text("Type to start searching")
    expect(page.locator(".md-search-result__item").first).to_be_visible()
    assert [best_section(hit) for hit in page.evaluate(RESULTS)] == expected
    assert page.errors == []
