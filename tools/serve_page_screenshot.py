"""The screenshot of ``chaintag serve``'s page in docs/ (docs/serve_page.png).

A tiny NER model (a CRF on a dozen made-up sentences) is served on a free loopback port, Debian's
headless Chromium opens the page, a paragraph is typed and tagged, and the window is saved as PNG.

    .venv/bin/python tools/serve_page_screenshot.py [OUTPUT.png]

Needs Selenium (the ``dev`` extra) and /usr/bin/chromium with /usr/bin/chromedriver
(``apt-get install chromium chromium-driver``); nothing is downloaded.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

import chaintag
from chaintag.service import make_server

TRAIN = [
    ("John Smith lives in Paris .", "B-PER I-PER O O B-LOC O"),
    ("Mary went to New York with Peter .", "B-PER O O B-LOC I-LOC O B-PER O"),
    ("He likes Paris and Berlin .", "O O B-LOC O B-LOC O"),
    ("Anna Schmidt works for Siemens in Munich .", "B-PER I-PER O O B-ORG O B-LOC O"),
    ("Google opened an office in London .", "B-ORG O O O O B-LOC O"),
    ("Peter Brown joined Google last year .", "B-PER I-PER O B-ORG O O O"),
    ("The United Nations met in Geneva .", "O B-ORG I-ORG O O B-LOC O"),
    ("Maria Garcia flew from Madrid to Rome .", "B-PER I-PER O O B-LOC O B-LOC O"),
    ("Siemens and Google compete .", "B-ORG O B-ORG O O"),
    ("She visited the Louvre in Paris .", "O O O B-LOC O B-LOC O"),
    ("Angela Merkel spoke in Berlin .", "B-PER I-PER O O B-LOC O"),
    ("The Red Cross helped people in Haiti .", "O B-ORG I-ORG O O O B-LOC O"),
    ("Later she moved to New York .", "O O O O B-LOC I-LOC O"),
    ("New York is larger than London .", "B-LOC I-LOC O O O B-LOC O"),
    ("Later Peter Smith met Maria in Rome .", "O B-PER I-PER O B-PER O B-LOC O"),
    ("They flew from London to New York .", "O O O B-LOC O B-LOC I-LOC O"),
    ("John Garcia joined Siemens in Berlin .", "B-PER I-PER O B-ORG O B-LOC O"),
    ("Then he went to Madrid with Anna .", "O O O O B-LOC O B-PER O"),
]
TEXT = ("Peter Smith flew from Berlin to New York with Maria Garcia.\n"
        "Later he joined Google in London.")


def main(argv: list[str]) -> int:
    """Write the screenshot.

    Parameters
    ----------
    argv : list of str
        The output file (default ``docs/serve_page.png`` beside this tool).

    Returns
    -------
    int
        0.
    """
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    out = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "docs" / "serve_page.png"
    model = chaintag.make_learner("crf", features=["w[0]", "w[-1]", "w[1]", "shape(w[0])", "suf3(w[0])"],
                                  epochs=30)
    model.fit([s.split() for s, _ in TRAIN], [y.split() for _, y in TRAIN])
    server = make_server(model, "127.0.0.1", 0, name="ner-demo.npz")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as profile:
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--hide-scrollbars", "--window-size=860,700", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            driver.get(f"http://{host}:{port}/")
            wait = WebDriverWait(driver, 15)
            wait.until(lambda d: "crf" in d.find_element(By.ID, "model").text)
            driver.find_element(By.ID, "text").send_keys(TEXT)
            driver.find_element(By.ID, "tag").click()
            wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, "#result mark .badge")))
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 860, "height": min(int(height), 1400), "deviceScaleFactor": 1, "mobile": False})
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
            server.shutdown()
            server.server_close()
    print(f"{out} ({out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
