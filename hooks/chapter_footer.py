"""Keep the footer's Previous / Next among the chapters, or among the notebooks.

The nav lists the chapters, then the same chapters as notebooks. Material's
footer links each page to the next one in the nav, so reading straight
through would run from the last chapter into the notebooks and through every
chapter again. The notebooks are the pages in the snippets plugin's
`notebooks_dir` and the page beside it that lists them (notebooks.md for
notebooks/). tests/site/test_build.py follows "Next" from the home page.
"""


def is_notebook(page, folder):
    return page.file.src_uri == f"{folder}.md" or page.file.src_uri.startswith(f"{folder}/")


def on_page_context(context, page, config, nav):
    folder = config.plugins["snippets"].config.notebooks_dir
    for side in ("previous_page", "next_page"):
        other = getattr(page, side)
        if other is not None and is_notebook(other, folder) != is_notebook(page, folder):
            setattr(page, side, None)
    return context
