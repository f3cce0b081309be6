"""Material's search worker with lunr's word automaton mended (hooks/search_worker.js).

lunr, inside Material's worker, merges nodes of its word automaton that differ when the index
holds numbers, and then throws on queries such as "0" or a pasted message with " 0 " in it:
the reader sees no result at all. The fix replaces the one lunr method at fault, after the
worker made lunr global; it is appended to the worker's file in the built site, which is the
same file for the served site and the copy read from disk (there the worker runs in an iframe).
"""

from pathlib import Path

FIX = Path(__file__).with_suffix(".js")


def on_post_build(config):
    fix = "\n" + FIX.read_text(encoding="utf-8")
    for worker in Path(config.site_dir, "assets", "javascripts", "workers").glob("search.*.min.js"):
        text = worker.read_text(encoding="utf-8")
        if not text.endswith(fix):  # `mkdocs serve` copies the theme's file again only when newer
            worker.write_text(text + fix, encoding="utf-8")
