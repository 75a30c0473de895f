"""The web app in a real headless browser: Debian's chromium and chromium-driver, driven by Selenium.

A deal played by clicking, four agents watched, a replay stepped to its end; a screenshot of each page under the
test's temporary folder, checked to be non-blank (``BELOTE_WEB_SCREENSHOTS=DIR`` also copies them to DIR: how
docs/web.md's pictures are made). Without a browser the tests are skipped, unless ``BELOTE_REQUIRE_BROWSER=1``
(``.ci/run`` sets it after installing chromium), where a missing browser fails them.
"""

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from belote_env.rules.record import write_records

REQUIRED = os.environ.get("BELOTE_REQUIRE_BROWSER") == "1"


def _need(module: str):
    try:
        return __import__(module)
    except ImportError:
        if REQUIRED:
            pytest.fail(f"BELOTE_REQUIRE_BROWSER=1 but {module} is not installed")
        pytest.skip(f"{module} is not installed")


def _browser_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    if not (browser and driver):
        message = "no chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)"
        if REQUIRED:
            pytest.fail("BELOTE_REQUIRE_BROWSER=1 but " + message)
        pytest.skip(message)
    return browser, driver


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app under uvicorn on a free port, in a thread, with a folder of tournament-like records."""
    _need("starlette")
    uvicorn = _need("uvicorn")
    from agents.arena.web.app import create_app
    from agents.arena.web.tables import Table, build_agents

    folder = tmp_path_factory.mktemp("web_records")
    records = []
    for pair in range(2):  # duplicate pairs: the same cards (seed), ppo_coinche at seats 0, 2 then 1, 3
        for table in (0, 1):
            specs = ["ppo_coinche", "heuristic"] * 2 if table == 0 else ["heuristic", "ppo_coinche"] * 2
            t = Table("coinche", build_agents(specs, set(specs)), specs, seed=pair)
            t.open()
            while not t.paused:
                t.step(64)
            rec = t.records[0]
            rec["meta"] = {"match": ["ppo_coinche", "heuristic"], "pair": pair, "table": table, "deal": 0,
                           "a_seats": [0, 2] if table == 0 else [1, 3]}
            records.append(rec)
    write_records(folder / "ppo_coinche__heuristic.jsonl", records)
    config = uvicorn.Config(create_app([folder]), host="127.0.0.1", port=0, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", records
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _need("selenium")
    binary, driver_path = _browser_paths()
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_AVOID_STATS", "true")
    options = Options()
    options.binary_location = binary
    profile = tmp_path_factory.mktemp("chromium_profile")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1366,860", f"--user-data-dir={profile}", "--no-first-run"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def wait_for(predicate, timeout=30.0, what="the page"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def screenshot(driver, tmp_path: Path, name: str) -> Path:
    """Save the page as PNG under tmp_path (and BELOTE_WEB_SCREENSHOTS), checked non-blank."""
    from PIL import Image

    path = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(path))
    with Image.open(path) as img:
        colours = img.convert("RGB").resize((200, 125)).getcolors(maxcolors=100_000)
    assert colours is not None and len(colours) > 50, f"{name}: the screenshot looks blank"
    copy_to = os.environ.get("BELOTE_WEB_SCREENSHOTS")
    if copy_to:
        Path(copy_to).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(copy_to) / path.name)
    return path


def status(driver) -> str:
    return driver.find_element("id", "status").text


def test_a_whole_deal_played_by_clicking(server, browser, tmp_path):
    url, _ = server
    browser.get(url + "/?speed=0")
    wait_for(lambda: status(browser) == "ready", what="the page to load")
    browser.find_element("id", "play-seed").send_keys("12")
    browser.find_element("id", "play-start").click()
    clicks = 0
    tried_illegal = False
    while True:
        wait_for(lambda: status(browser) in ("your move", "deal over", "episode over"), what="my turn")
        if browser.find_elements("id", "result"):
            break
        legal = browser.find_elements("css selector", ".card.legal, .calls button")
        assert legal, "my turn, but nothing is clickable"
        dim = browser.find_elements("css selector", ".seat.south .card.dim")
        if dim and not tried_illegal:  # a card I may not play: clicking it does nothing
            before = len(browser.find_elements("css selector", ".seat.south .card"))
            dim[0].click()
            time.sleep(0.3)
            assert status(browser) == "your move"
            assert len(browser.find_elements("css selector", ".seat.south .card")) == before
            tried_illegal = True
        if clicks == 2:
            screenshot(browser, tmp_path, "web_play")
        legal[0].click()
        clicks += 1
        assert clicks < 60
    result = browser.find_element("id", "result")
    scores = [int(x) for x in result.get_attribute("data-scores").split(",")]
    assert len(scores) == 2 and clicks >= 1
    assert browser.find_element("id", "next").is_displayed()
    href = browser.find_element("id", "records-link").get_attribute("href")
    assert "/api/tables/" in href and href.endswith("/records")


def test_four_agents_watched_step_by_step(server, browser, tmp_path):
    url, _ = server
    browser.get(url + "/?tab=watch")
    wait_for(lambda: status(browser) == "ready", what="the page to load")
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "watch-seat0")).select_by_value("ppo_coinche")
    browser.find_element("id", "watch-seed").send_keys("5")
    browser.find_element("id", "watch-start").click()
    wait_for(lambda: browser.find_element("id", "watch-step").is_enabled(), what="the watched table")
    for k in range(12):  # until ppo_coinche (seat 0) has called: its probabilities beside its decision
        browser.find_element("id", "watch-step").click()
        wait_for(lambda: browser.find_element("id", "status").text != "" and
                 len(browser.find_elements("css selector", ".decision")) == 1, what=f"step {k + 1}")
        time.sleep(0.1)
        if browser.find_elements("css selector", ".decision .prob"):
            break
    assert browser.find_elements("css selector", ".decision .prob.chosen"), "no policy probabilities shown"
    assert len(browser.find_elements("css selector", "#board-main .hand .card:not(.back)")) >= 24  # every hand
    screenshot(browser, tmp_path, "web_watch")


def test_a_replay_stepped_to_its_end_shows_the_recorded_score(server, browser, tmp_path):
    url, records = server
    browser.get(url + "/?tab=replay")
    wait_for(lambda: browser.find_element("id", "board-main").get_attribute("data-last"), what="the replay")
    last = int(browser.find_element("id", "board-main").get_attribute("data-last"))
    assert last == len(records[0]["actions"])
    for _ in range(last):
        browser.find_element("id", "replay-forward").click()
    assert browser.find_element("id", "replay-pos").text == f"{last} / {last}"
    result = browser.find_element("id", "result")
    assert [int(x) for x in result.get_attribute("data-scores").split(",")] == records[0]["result"]["scores"]
    twin = browser.find_element("id", "board-twin")
    assert twin.is_displayed() and browser.find_element("id", "twin-result")
    browser.find_element("id", "replay-back").click()
    assert browser.find_element("id", "replay-pos").text == f"{last - 1} / {last}"
    browser.find_element("id", "replay-first").click()
    shown = 0
    for _ in range(last):  # ppo_coinche's decisions, its probabilities beside them, up to a card with a choice
        browser.find_element("id", "replay-forward").click()
        probs = browser.find_elements("css selector", "#board-main .decision .prob")
        shown += bool(probs)
        if len(probs) >= 2 and browser.find_elements("css selector", "#board-main .center .slot"):
            break
    assert shown
    screenshot(browser, tmp_path, "web_replay")
