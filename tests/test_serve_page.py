"""The page of ``chaintag serve`` in a real headless Chromium (Debian's chromium and chromium-driver, driven
by Selenium with the driver's path given, so that nothing is downloaded): a real ``chaintag serve`` process
with a tiny NER model, text typed into the page, the highlighted spans read back and checked against /tag."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import chaintag

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
    reason=f"the browser test needs Chromium and its driver at {CHROMIUM} and {CHROMEDRIVER} "
           "(apt-get install chromium chromium-driver)")

TRAIN = [
    (["John", "Smith", "lives", "in", "Paris", "."], ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]),
    (["Mary", "went", "to", "New", "York", "."], ["B-PER", "O", "O", "B-LOC", "I-LOC", "O"]),
    (["He", "likes", "Paris", "."], ["O", "O", "B-LOC", "O"]),
    (["Anna", "Smith", "is", "here", "."], ["B-PER", "I-PER", "O", "O", "O"]),
    (["Peter", "visited", "Berlin", "with", "Mary", "."], ["B-PER", "O", "B-LOC", "O", "B-PER", "O"]),
]
# markup in the text must come out as text: the page never parses what it shows
TEXT = "John Smith went to New York.\nMary likes Paris <b>a lot</b> & <img src=x>!"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A ``chaintag serve`` process on a free port (its own choice: --port 0) with a tiny NER model."""
    model = chaintag.make_learner("crf", features=["w[0]", "w[-1]", "w[1]", "shape(w[0])"], epochs=20)
    model.fit([s for s, _ in TRAIN], [y for _, y in TRAIN])
    path = tmp_path_factory.mktemp("page") / "ner.npz"
    model.save(path)
    proc = subprocess.Popen([sys.executable, "-m", "chaintag.cli.main", "serve", str(path), "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        seen, found = [], None
        while found is None:  # "serving ... on http://127.0.0.1:PORT (...)", after any warnings
            line = proc.stderr.readline()
            assert line, "chaintag serve did not start: " + "".join(seen)
            seen.append(line)
            found = re.search(r"serving .* on http://([\d.]+):(\d+)", line)
        yield found.group(1), int(found.group(2))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never fetch a browser or a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1000,800",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


def post(address, body):
    conn = http.client.HTTPConnection(*address, timeout=30)
    conn.request("POST", "/tag", body=json.dumps(body), headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    out = json.loads(resp.read().decode())
    conn.close()
    return resp.status, out


# what the page shows, read in the page: each mark's label, confidence attribute, badge and the text it covers
READ_MARKS = """
return Array.from(document.querySelectorAll('#result mark')).map(m => ({
  label: m.dataset.label, confidence: m.dataset.confidence, badge: m.querySelector('.badge').textContent,
  text: Array.from(m.childNodes).filter(n => !(n.classList && n.classList.contains('badge')))
             .map(n => n.nodeType === Node.TEXT_NODE ? n.data : n.querySelector('.w').textContent).join('')}));
"""

# the characters the page shows of the text: its text nodes, less the badges and the token labels
SHOWN_TEXT = """
const walk = document.createTreeWalker(document.getElementById('result'), NodeFilter.SHOW_TEXT);
let out = '';
while (walk.nextNode()) { if (!walk.currentNode.parentElement.closest('.badge, .tag')) out += walk.currentNode.data; }
return out;
"""


def test_the_page_tags_pasted_text_and_marks_the_spans(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    host, port = served
    status, want = post(served, {"text": TEXT, "lang": "en"})
    assert status == 200 and want["spans"], want
    start = time.monotonic()
    browser.get(f"http://{host}:{port}/")
    wait = WebDriverWait(browser, 15)
    wait.until(lambda d: "crf" in d.find_element(By.ID, "model").text)  # the header, from /health
    assert "PER" in browser.find_element(By.ID, "model").text
    box = browser.find_element(By.ID, "text")
    box.send_keys(TEXT)
    Select(browser.find_element(By.ID, "lang")).select_by_value("en")
    browser.find_element(By.ID, "tag").click()
    wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, "#result mark .badge")))

    marks = browser.execute_script(READ_MARKS)
    assert [(m["label"], m["text"]) for m in marks] == [(s["label"], s["text"]) for s in want["spans"]]
    for m, s in zip(marks, want["spans"]):
        assert float(m["confidence"]) == s["confidence"]  # the very number /tag returned
        label, shown = m["badge"].split()
        assert label == s["label"] and abs(float(shown) - s["confidence"]) <= 0.005 + 1e-12
    # the visible badges, and the table of spans
    badges = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#result mark .badge")]
    assert badges == [f"{s['label']} {float(m['badge'].split()[1]):.2f}" for s, m in zip(want["spans"], marks)]
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in browser.find_elements(By.CSS_SELECTOR, "#spans tbody tr")]
    assert [r[:2] for r in rows] == [[s["text"], s["label"]] for s in want["spans"]]
    # every token is on the page with its label; markup in the text stayed text
    words = browser.execute_script("return Array.from(document.querySelectorAll('#result .w'), w => w.textContent)")
    tags = browser.execute_script("return Array.from(document.querySelectorAll('#result .tag'), w => w.textContent)")
    assert words == [t["text"] for t in want["tokens"]] and tags == [t["label"] for t in want["tokens"]]
    assert not browser.find_elements(By.CSS_SELECTOR, "#result b, #result img, body img")
    assert browser.execute_script(SHOWN_TEXT) == TEXT  # the text as it was typed, markup and line end included
    # token labels show on request (hidden by default for a model that makes spans)
    first_tag = browser.find_element(By.CSS_SELECTOR, "#result .tag")
    assert not first_tag.is_displayed()
    browser.find_element(By.ID, "show-labels").click()
    assert first_tag.is_displayed() and first_tag.text == want["tokens"][0]["label"]
    # a bad request shows the server's message
    Select(browser.find_element(By.ID, "lang")).select_by_value("de")
    browser.execute_script("document.querySelector('#lang option[value=de]').value = 'xx'")
    browser.find_element(By.ID, "tag").click()
    wait.until(ec.visibility_of_element_located((By.ID, "error")))
    assert "unknown language 'xx'" in browser.find_element(By.ID, "error").text
    # no script error, no refused resource (the page's content security policy), no failed load but the favicon
    logs = browser.get_log("browser")
    problems = [e["message"] for e in logs
                if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
                and "400 (Bad Request)" not in e["message"]]
    assert not problems, problems
    assert time.monotonic() - start < 30


def test_the_page_keeps_text_beyond_the_basic_plane_in_place(served, browser):
    """Offsets count code points; a JS string counts UTF-16 units: emoji before and inside the text."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    host, port = served
    text = "\U0001f600 John Smith went to New York \U0001f9ec. Mary likes Paris!"
    status, want = post(served, {"text": text, "lang": "en"})
    assert status == 200 and want["spans"], want
    browser.get(f"http://{host}:{port}/")
    wait = WebDriverWait(browser, 15)
    wait.until(lambda d: "crf" in d.find_element(By.ID, "model").text)
    browser.execute_script("document.getElementById('text').value = arguments[0]", text)
    browser.find_element(By.ID, "tag").click()
    wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, "#result mark .badge")))
    assert browser.execute_script(SHOWN_TEXT) == text
    marks = browser.execute_script(READ_MARKS)
    assert [(m["label"], m["text"]) for m in marks] == [(s["label"], s["text"]) for s in want["spans"]]
