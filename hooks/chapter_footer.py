"""Keep the footer's Previous / Next among the chapters, or among the notebooks.

The nav lists the chapters, then the same chapters as notebooks. Material's
footer links each page to the next one in the nav, so reading straight
through would run from the last chapter into the notebooks and through every
chapter again. tests/test_build.py follows "Next" from the home page.
"""


def is_notebook(page):
    return page.file.src_uri == "notebooks.md" or page.file.src_uri.startswith("notebooks/")


def on_page_context(context, page, config, nav):
    for side in ("previous_page", "next_page"):
        other = getattr(page, side)
        if other is not None and is_notebook(other) != is_notebook(page):
            setattr(page, side, None)
    return context
