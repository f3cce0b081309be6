"""Give Material's search dialog an accessible name.

Material renders the search overlay as `<div role="dialog">` without a
label, which screen readers announce as an unnamed dialog (Lighthouse's
aria-dialog-name audit). tests/test_links.py checks that the label is there.
"""

DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'


def on_post_page(output, page, config):
    return output.replace(DIALOG, DIALOG[:-1] + ' aria-label="Search">')
