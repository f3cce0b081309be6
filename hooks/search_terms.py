"""Search finds the chapter that teaches a name first: an index of terms, as in a printed book.

Ranked on text alone, a name used everywhere (`grad_fn`, `requires_grad`, `leaf`) puts first
whichever chapter uses it most, rarely the one that explains it. As Sphinx does with its
`index` entries, each chapter names the terms it introduces in its front matter
(`terms: [grad_fn, leaf]`); the section of the chapter
that first mentions a term (its heading or its text) gets it in a `terms` field of the search
index, which mkdocs.yml boosts above titles. Queries are split by the same `separator`, so
`optimizer.zero_grad()` and `torch.no_grad` reach the terms `zero_grad` and `no_grad`.
The index pages (Home, Notebooks) set `search: boost: 0.01` in their front matter: they list the
chapters and would otherwise come before a chapter that mentions a name once. The notebook pages
are not indexed: they repeat their chapters. tests/browser/test_search.py types each term into the built
site and checks the first chapter.

Readers also paste error messages, with their own shapes, numbers and operation names, or
type the symptom they see. The error index (docs/errors.md) names each problem by the start of
its message, or by its symptom where there is none, and links the section about it; those
names go into the section's `problem` field with its heading, boosted as high as `terms`. A pasted message,
whole or its first clause, then finds the section that shows it before the chapter that
introduces one of its words (`grad_fn`, `retain_graph`, `leaf`), and a symptom finds its
section before a message that shares one of its words. The chapters' terms are left out of
the field: a one-word query for a term still finds the chapter that introduces it first.
"""

import json
import os
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.utils.meta import get_data

ERROR_INDEX = "errors.md"


def introduced(config):
    """{page's Markdown file: [term]} from the `terms` of each page's front matter."""
    found = {}
    for file in Path(config.docs_dir).rglob("*.md"):
        _, meta = get_data(file.read_text(encoding="utf-8"))
        if meta.get("terms"):
            found[file.relative_to(config.docs_dir).as_posix()] = meta["terms"]
    return found


def sections_with_terms(docs, location, terms):
    """{section location: [term]} for one chapter: each term goes to the first section of the
    page that mentions it (case-insensitively), or to the page's first section."""
    sections = [doc for doc in docs if doc["location"].split("#")[0] == location]
    found = {}
    for term in terms if sections else []:  # a site without that chapter has nothing to mark
        hits = [doc for doc in sections if term.lower() in (doc["title"] + " " + doc["text"]).lower()]
        found.setdefault((hits or sections)[0]["location"], []).append(term)
    return found


def problems(config):
    """{section location: [problem]} of the sections that the error index links: each row names
    a problem by the start of its message, or by its symptom, and links the section about it.
    A site without the index (a test's small site) has none."""
    path = os.path.join(config.docs_dir, ERROR_INDEX)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        rows = re.findall(r"^\| \[(.+?)\]\(([\w/]+\.md)#([\w-]+)\)", f.read(), re.M)
    found = {}
    for problem, src, anchor in rows:
        url = File(src, config.docs_dir, config.site_dir, config.use_directory_urls).url
        found.setdefault(f"{url}#{anchor}", []).append(problem)
    return found


# After the search plugin writes the index (priority 0), before the offline plugin inlines it (-100).
@event_priority(-50)
def on_post_build(config):
    path = os.path.join(config.site_dir, "search", "search_index.json")
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as f:
        index = json.load(f)
    terms, named, chapters = {}, problems(config), introduced(config)
    every_term = {term.lower() for names in chapters.values() for term in names}
    for src, names in chapters.items():
        location = File(src, config.docs_dir, config.site_dir, config.use_directory_urls).url
        terms.update(sections_with_terms(index["docs"], location, names))
    for doc in index["docs"]:
        doc.pop("terms", None)
        doc.pop("problem", None)
        if doc["location"] in terms:
            doc["terms"] = " ".join(terms[doc["location"]])
        if doc["location"] in named:
            words = re.split(index["config"]["separator"], " ".join([doc["title"], *named[doc["location"]]]))
            doc["problem"] = " ".join(word for word in words if word and word.lower() not in every_term)
    # For the worker's reading of a paste (hooks/search_worker.js): each message or symptom the error
    # index names, with its section, in the index's order, and where to send a message it lacks.
    index["config"]["messages"] = [[location, name] for location, names in named.items() for name in names]
    if named:
        index["config"]["errors"] = File(ERROR_INDEX, config.docs_dir, config.site_dir, config.use_directory_urls).url
    with open(path, "w", encoding="utf-8") as f:
        json.dump(index, f, separators=(",", ":"))
