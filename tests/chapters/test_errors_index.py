"""The index of the error pages (docs/errors.md): every message it lists is on the page it links,
printed by the build under a code block, and every section of the error pages is listed.

Each error page asserts its own claims in tests/chapters/test_errors_<topic>.py; tests/browser/test_search.py
pastes the messages into the search box."""

from urllib.parse import urljoin

from conftest import ROOT, soup

ERROR_PAGES = sorted(p.stem for p in (ROOT / "docs").glob("errors_*.md"))
OUTPUT_BLOCKS = ".snippet-output, .snippet-warning"


def flat(text):
    """Text with its white space made single spaces and its backticks left out (a message's
    backticks are code in the index and left out of a heading)."""
    return " ".join(text.replace("`", "").split())


OLDER = "older-wordings"  # the id of the index's table of messages as older releases printed them


def index_rows(site, table=None):
    """(message, section URL relative to the site) of each row of the index's tables (or of the
    table under the heading `table`): the message cell links its section. The table of older
    wordings is left out unless asked for."""
    rows = []
    for row in soup(site / "errors" / "index.html").select(".md-content table tbody tr"):
        if (row.find_previous("h2")["id"] == OLDER) != (table == OLDER):
            continue
        link = row.select_one("td").select_one("a")
        rows.append((flat(link.get_text()), urljoin("errors/", link["href"])))
    return rows


def section(site, target):
    """The elements of the section `target` ("errors_graph/#id") up to the next heading of its
    level or above."""
    path, anchor = target.split("#")
    heading = soup(site / path / "index.html").find(id=anchor)
    assert heading is not None, f"no section {target}"
    level = int(heading.name[1])
    found = []
    for sibling in heading.find_next_siblings():
        if sibling.name in [f"h{n}" for n in range(1, level + 1)]:
            break
        found.append(sibling)
    return heading, found


def test_the_index_lists_every_error_page_and_at_least_forty_problems(built_site):
    rows = index_rows(built_site)
    assert len(rows) >= 40
    assert {target.split("/")[0] for _, target in rows} == set(ERROR_PAGES)


def test_every_message_of_the_index_is_printed_in_its_section(built_site):
    """The message cell is the start of the message, found in an output block of the section it
    links as the build printed it; a problem with no message is named by its section's heading."""
    for message, target in index_rows(built_site):
        heading, elements = section(built_site, target)
        outputs = [flat(block.get_text()) for element in elements
                   for block in ([element] if element.css.match(OUTPUT_BLOCKS) else element.select(OUTPUT_BLOCKS))]
        title = flat(heading.get_text()).removesuffix("¶").strip()
        if message != title:  # a problem with no message is named by its section's heading
            assert any(message in output for output in outputs), f"{target}: {message!r} is in no output"


def test_every_section_of_the_error_pages_is_in_the_index(built_site):
    listed = {target for _, target in index_rows(built_site)}
    for page in ERROR_PAGES:
        for heading in soup(built_site / page / "index.html").select(".md-content h2[id]"):
            assert f"{page}/#{heading['id']}" in listed, f"{page}: {heading.get_text()} is not in the index"


def test_each_older_wording_of_the_index_is_quoted_in_its_section(built_site):
    """An older release's wording is quoted (a blockquote) in the section of the message that
    PyTorch 2.13 prints, which the section's output shows."""
    older = index_rows(built_site, OLDER)
    assert len(older) >= 6
    current = dict((target, message) for message, target in index_rows(built_site))
    for message, target in older:
        assert target in current, f"{target}: no message of the index is in this section"
        _, elements = section(built_site, target)
        quotes = [flat(quote.get_text()) for element in elements
                  for quote in ([element] if element.name == "blockquote" else element.select("blockquote"))]
        assert any(message in quote for quote in quotes), f"{target}: {message!r} is not quoted"
