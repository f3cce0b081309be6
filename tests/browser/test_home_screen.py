"""The home page: in one screen at 1280 x 800, what the site is for, what it does that other
documentation does not, and the step-through viewer of the first gradient, working right there
(the engine runs it for the home page as for the chapter)."""

import pytest
import yaml
from browsing import SHOTS, open_page, press
from conftest import ROOT


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_first_screen_says_why_and_shows_the_engine_at_work(browser, urls, scheme):
    page = open_page(browser, urls["home"], scheme=scheme, width=1280, height=800)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"home-1280x800-{scheme}.png")
    for selector in [".home-hero__text ul", ".home-hero__demo .snippet-steps__code", ".snippet-steps__graph svg",
                     ".snippet-steps__controls button[data-go='1']"]:
        box = page.locator(selector).first.bounding_box()
        assert box and box["y"] + box["height"] <= 800, f"{selector} is not on the first screen: {box}"
    text = page.locator(".home-hero__text").inner_text()
    for claim in ["produced by running", "copy runs", "step by step", "claim is tested"]:
        assert claim in text
    counter = page.locator(".snippet-steps__counter").first
    assert counter.inner_text() == "Step 1 of 5"
    press(page.locator(".snippet-steps__controls button[data-go='1']").first)
    assert counter.inner_text() == "Step 2 of 5"
    assert not page.errors, page.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_home_page_fits_a_phone(browser, urls, scheme):
    page = open_page(browser, urls["home"], scheme=scheme, width=390, height=800)
    page.screenshot(path=SHOTS / f"home-390-{scheme}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_home_page_leads_by_goal_to_the_chapters(browser, urls):
    page = open_page(browser, urls["home"])
    rows = page.locator("h2:has-text('what you want to do') + * tr").all_inner_texts()
    for goal in ["error message", "backward()", "differentiable operation", "NaN gradient", "memory", "torch.compile"]:
        assert any(goal in row for row in rows), goal


def test_the_home_page_promises_no_repository_the_site_does_not_link(browser, urls):
    """The header links the source only where `repo_url` is set; the page speaks of a
    repository only then."""
    page = open_page(browser, urls["home"])
    linked = page.locator(".md-header .md-source").count() > 0
    assert linked == bool(yaml.safe_load((ROOT / "mkdocs.yml").read_text()).get("repo_url"))
    assert linked or "repositor" not in page.locator("article").inner_text().lower()
