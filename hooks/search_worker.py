"""Material's search worker, reading pastes as readers paste them (hooks/search_worker.js).

The script wraps the worker's message listener and its answers, and mends two things in lunr
(see the script). It is put before the worker's own code in the built site, which is the same
file for the served site and the copy read from disk (there the worker runs in an iframe).
"""

from pathlib import Path

SCRIPT = Path(__file__).with_suffix(".js")


END = "// end of hooks/search_worker.js\n"


def on_post_build(config):
    script = SCRIPT.read_text(encoding="utf-8") + "\n" + END
    for worker in Path(config.site_dir, "assets", "javascripts", "workers").glob("search.*.min.js"):
        # `mkdocs serve` copies the theme's file again only when newer: it may hold an earlier script
        material = worker.read_text(encoding="utf-8").split(END, 1)[-1]
        worker.write_text(script + material, encoding="utf-8")
