"""Search finds the chapter that teaches a name first: an index of terms, as in a printed book.

Ranked on text alone, a name used everywhere (`grad_fn`, `requires_grad`, `leaf`) puts first
whichever chapter uses it most, rarely the one that explains it. As Sphinx does with its
`index` entries, each chapter here names the terms it introduces; the section of the chapter
that first mentions a term (its heading or its text) gets it in a `terms` field of the search
index, which mkdocs.yml boosts above titles. Queries are split by the same `separator`, so
`optimizer.zero_grad()` and `torch.no_grad` reach the terms `zero_grad` and `no_grad`.
The index pages (Home, Notebooks) set `search: boost: 0.01` in their front matter: they list the
chapters and would otherwise come before a chapter that mentions a name once. The notebook pages
are not indexed: they repeat their chapters. tests/test_search.py types each term into the built
site and checks the first chapter.

Readers also paste error messages, with their own shapes, numbers and operation names. Each
section of the error pages (docs/errors_*.md) is headed by the first clause of the message it
shows; a section whose output prints its heading gets that heading in a `message` field,
boosted above titles (and below `terms`, which a one-word query for a name still reaches
first): a pasted message, whole or its first clause, then finds the section that shows it
before the chapter that introduces one of its words (`grad_fn`, `retain_graph`, `leaf`).
"""

import html
import json
import os
import re

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

# The chapter that introduces each term (the home page's table of chapters says the same).
INTRODUCED = {
    "autograd_basics.md": ["requires_grad", "grad_fn", "leaf", "retain_graph", "zero_grad"],
    "vector_jacobian_products.md": ["jacobian", "vjp"],
    "controlling_recording.md": ["no_grad", "inference_mode", "set_grad_enabled", "create_graph"],
    "custom_functions.md": ["gradcheck"],
    "function_api.md": ["vmap", "setup_context"],
    "higher_order.md": ["jvp", "gradgradcheck"],
    "debugging_gradients.md": ["detect_anomaly", "register_hook"],
    "saving_memory.md": ["saved_tensors_hooks", "checkpoint"],
    "custom_operators.md": ["custom_op", "opcheck"],
}

TERMS = {term.lower() for terms in INTRODUCED.values() for term in terms}


def sections_with_terms(docs, location, terms):
    """{section location: [term]} for one chapter: each term goes to the first section of the
    page that mentions it (case-insensitively), or to the page's first section."""
    sections = [doc for doc in docs if doc["location"].split("#")[0] == location]
    found = {}
    for term in terms if sections else []:  # a site without that chapter has nothing to mark
        hits = [doc for doc in sections if term.lower() in (doc["title"] + " " + doc["text"]).lower()]
        found.setdefault((hits or sections)[0]["location"], []).append(term)
    return found


def message(doc, separator):
    """The words of the message an error page's section prints as its heading, or None for
    a section that prints no heading of its own. A term of INTRODUCED in a message is left
    out: one-word queries for a term keep finding the chapter that introduces it first."""
    title = html.unescape(doc["title"])  # a heading leaves out the message's backticks
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", doc["text"])).replace("`", "").split())
    if not doc["location"].startswith("errors_") or "#" not in doc["location"] or title not in text:
        return None
    return " ".join(word for word in re.split(separator, title) if word and word.lower() not in TERMS)


# After the search plugin writes the index (priority 0), before the offline plugin inlines it (-100).
@event_priority(-50)
def on_post_build(config):
    path = os.path.join(config.site_dir, "search", "search_index.json")
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as f:
        index = json.load(f)
    terms = {}
    for src, names in INTRODUCED.items():
        location = File(src, config.docs_dir, config.site_dir, config.use_directory_urls).url
        terms.update(sections_with_terms(index["docs"], location, names))
    for doc in index["docs"]:
        doc.pop("terms", None)
        doc.pop("message", None)
        if doc["location"] in terms:
            doc["terms"] = " ".join(terms[doc["location"]])
        if (words := message(doc, index["config"]["separator"])) is not None:
            doc["message"] = words
    with open(path, "w", encoding="utf-8") as f:
        json.dump(index, f, separators=(",", ":"))
