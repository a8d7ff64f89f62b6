"""Tests of the built web book in a real browser (headless Chromium driven by Selenium).

`make test` builds the book first; run `make book` before running this module alone. The
test machine may be offline, so failures to load resources from *other* hosts (a CDN's math
fonts, say) are not counted as console errors; errors from the book's own pages and scripts
are.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.tests.conftest import toc_pages

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
REPO = "github/learn-jax/learn-jax/blob/main"

pytestmark = pytest.mark.browser  # the browser fixture: conftest.py


PAGES = toc_pages()
CHAPTERS = [p for p in PAGES if p.startswith("notebooks/")]
NOTEBOOK_PAGES = [p for p in PAGES if p.startswith(("notebooks/", "exercises/"))]


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """Serve _build/html on a free localhost port."""
    if not (HTML / "index.html").exists():
        pytest.fail("the book is not built: run `make book` (make test does it first)")
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _open(browser, url: str) -> list[str]:
    """Load a page; return the console errors that come from the book itself."""
    browser.get_log("browser")  # drop what earlier pages left
    browser.get(url)
    time.sleep(0.3)
    origin = url.split("/", 3)[:3]
    errors = []
    for entry in browser.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        message = entry["message"]
        external = message.startswith("http") and not message.startswith("/".join(origin))
        if not external:
            errors.append(message)
    return errors


def test_every_toc_page_loads_without_console_errors(site: str, browser) -> None:
    """Does every page in the table of contents load, titled, with no console errors?"""
    problems = {}
    for page in PAGES:
        errors = _open(browser, f"{site}/{page}.html")
        if "404" in browser.title or not browser.title or errors:
            problems[page] = (browser.title, errors)
    assert problems == {}


def test_navigation_next_and_sidebar(site: str, browser) -> None:
    """Do the 'next' link and a sidebar link lead to the right pages?"""
    from selenium.webdriver.common.by import By

    _open(browser, f"{site}/{PAGES[0]}.html")
    browser.find_element(By.CSS_SELECTOR, "a.right-next").click()
    assert browser.current_url.endswith(f"{PAGES[1]}.html")
    link = browser.find_element(By.CSS_SELECTOR, f'nav.bd-links a[href$="{CHAPTERS[4]}.html"]')
    browser.execute_script("arguments[0].click();", link)
    assert browser.current_url.endswith(f"{CHAPTERS[4]}.html")


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_shows_outputs_and_plots(site: str, browser, page: str) -> None:
    """Does each chapter page show executed outputs and at least one plot image that loaded?"""
    from selenium.webdriver.common.by import By

    _open(browser, f"{site}/{page}.html")
    outputs = browser.find_elements(By.CSS_SELECTOR, "div.cell_output")
    assert len(outputs) >= 10, f"{page}: only {len(outputs)} cell outputs"
    images = browser.find_elements(By.CSS_SELECTOR, "div.cell_output img")
    loaded = [img for img in images
              if browser.execute_script("return arguments[0].naturalWidth", img) > 0]
    assert loaded, f"{page}: no plot images"


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_code_stays_within_the_page_and_opens_without_set_up(site: str, browser,
                                                                      page: str) -> None:
    """Does no code cell of a chapter scroll sideways on a phone-sized or a desktop-sized
    window (its lines wrap at the page's width), nor any output on a desktop-sized one, and
    does the page leave out the Colab set-up cell?"""
    from selenium.webdriver.common.by import By

    for width, selector in ((420, "div.cell_input div.highlight pre"),
                            (1280, "div.cell_input div.highlight pre, div.cell_output pre")):
        browser.set_window_size(width, 900)
        _open(browser, f"{site}/{page}.html")
        wide = browser.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]))"
            ".filter(e => e.scrollWidth > e.clientWidth + 1)"
            ".map(e => e.textContent.slice(0, 80));", selector)
        assert wide == [], f"{page} at {width} px: {wide[:3]}"
    text = browser.find_element(By.TAG_NAME, "main").text
    assert "Set-up: in Google Colab" not in text and "learn-jax-autograder @" not in text


def _error_displays(page: str) -> list[str]:
    """The text of each error output on a built page (MyST-NB's traceback blocks)."""
    import html
    import re

    source = (HTML / f"{page}.html").read_text()
    blocks = re.findall(r'<div class="output traceback[^"]*">(.*?)</div>\s*</div>', source, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", b)).strip() for b in blocks]


@pytest.mark.parametrize("page", CHAPTERS)
def test_error_displays_are_short_and_name_no_build_paths(page: str) -> None:
    """Does every error a chapter shows on purpose take at most 40 lines, without library
    frames or paths of the machine that built the book?"""
    if not (HTML / f"{page}.html").exists():
        pytest.fail("the book is not built: run `make book` (make test does it first)")
    for text in _error_displays(page):
        assert len(text.splitlines()) <= 40, text[:2000]
        for path in ("site-packages", "/.venv", "/.pyenv/", "/usr/lib/python", "/learn-jax/"):
            assert path not in text, text[:2000]


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_was_executed_on_the_newest_jax(page: str) -> None:
    """Does every chapter page show the runtime cell's report of the newest JAX
    (requirements-newest.txt), so readers see today's output, with no note that it lies
    outside the tested range?"""
    import html
    import re

    if not (HTML / f"{page}.html").exists():
        pytest.fail("the book is not built: run `make book` (make test does it first)")
    newest = next(line.split("==")[1].strip() for line in
                  (ROOT / "requirements-newest.txt").read_text().splitlines()
                  if line.startswith("jax=="))
    text = html.unescape(re.sub(r"<[^>]+>", "", (HTML / f"{page}.html").read_text()))
    assert re.search(rf"JAX {re.escape(newest)} on [A-Z]+", text), page
    assert "Note: JAX" not in text


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_colab_link_points_at_this_notebook(site: str, browser, page: str) -> None:
    """Does each notebook page's Colab launch link open that very .ipynb in the repository?"""
    from selenium.webdriver.common.by import By

    _open(browser, f"{site}/{page}.html")
    hrefs = [a.get_attribute("href") for a in
             browser.find_elements(By.CSS_SELECTOR, 'a[href*="colab.research.google.com"]')]
    assert f"https://colab.research.google.com/{REPO}/{page}.ipynb" in hrefs, hrefs


def test_search_finds_vmap(site: str, browser) -> None:
    """Does the search page find the chapter on vmap?"""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, f"{site}/search.html?q=vmap")
    WebDriverWait(browser, 30).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, "ul.search li a")))
    hits = [a.get_attribute("href") for a in
            browser.find_elements(By.CSS_SELECTOR, "ul.search li a")]
    assert any("10_vmap" in h for h in hits), hits


def test_screenshots(site: str, browser) -> None:
    """Are screenshots of the home page and a chapter saved under _build/screenshots/?"""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, page in (("home", PAGES[0]), ("chapter", "notebooks/06_jit")):
        _open(browser, f"{site}/{page}.html")
        target = SHOTS / f"{name}.png"
        assert browser.save_screenshot(str(target)) and target.stat().st_size > 10_000
