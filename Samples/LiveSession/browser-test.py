#!/usr/bin/env python3
"""The live session's page in a real browser (headless Chromium driven by Selenium), against the
sample app while it runs: mixes appear as they happen, a jump changes the app's state (the app
prints its state on request), Present brings it back, dispatch from the page reaches the app, the
filter narrows the mixes, the export holds what the page shows, and imported back it is browsed
with its states.

    Samples/LiveSession/browser-test.py [path to the LiveSession binary] [folder for screenshots]

Exits non-zero, saying what failed, on a failure; skips (exit 0, saying so) without Chromium,
chromedriver or Selenium.
"""
import json
import os
import shutil
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, ".build/debug/LiveSession"))
shots = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, ".build/screenshots"))

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    print("SKIP: selenium is not installed (pip install selenium)")
    sys.exit(0)
if not shutil.which("chromium") or not shutil.which("chromedriver"):
    print("SKIP: chromium or chromedriver is missing (apt-get install chromium chromium-driver)")
    sys.exit(0)

app = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def send(command):
    app.stdin.write(command + "\n")
    app.stdin.flush()


def state():
    send("state")
    return json.loads(app.stdout.readline())


def titles():
    return [todo["title"] for todo in state()["todos"]]


address = app.stdout.readline().strip()
assert address.startswith("http://127.0.0.1:") and "?token=" in address, f"first line: {address!r}"

options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"]:
    options.add_argument(argument)
options.binary_location = shutil.which("chromium")
service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
browser = webdriver.Chrome(options=options, service=service)
wait = WebDriverWait(browser, 20, ignored_exceptions=[StaleElementReferenceException])
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


# Read in one script, not through element references: the page redraws its rows as mixes
# arrive, and a reference to a row drawn before is stale.
def row_texts():
    return browser.execute_script(
        "return [...document.querySelectorAll('#rows tr.mix')].map((row) => row.innerHTML);")


def rows_shown():
    return browser.execute_script(
        "return [...document.querySelectorAll('#rows tr.mix')].map((row) => Number(row.dataset.serial));")


try:
    os.makedirs(shots, exist_ok=True)
    send("add milk")
    browser.get(address)
    wait.until(lambda _: len(row_texts()) == 1)
    wait.until(lambda _: browser.find_element(By.ID, "status").text == "live: 1 mix")
    send("add bread")
    wait.until(lambda _: len(row_texts()) == 2)
    wait.until(lambda _: browser.find_element(By.ID, "status").text == "live: 2 mixes")
    check("milk" in row_texts()[0] and "bread" in row_texts()[1], f"the two mixes: {row_texts()}")

    # A mix made while the page is open appears without a reload: pushed over the page's WebSocket.
    wait.until(lambda _: browser.find_element(By.ID, "push").text == "pushed")
    started = time.monotonic()
    send("add eggs")
    WebDriverWait(browser, 20, poll_frequency=0.01).until(lambda _: len(row_texts()) == 3)
    print(f"a new mix shown after {(time.monotonic() - started) * 1000:.0f} ms")
    check(titles() == ["milk", "bread", "eggs"], f"the app's state: {titles()}")
    browser.save_screenshot(os.path.join(shots, "live-session.png"))

    # Jump to the first mix: the app's own state changes.
    browser.execute_script("document.querySelector('#rows tr.mix button.jump').click();")
    wait.until(lambda _: "in the past" in browser.find_element(By.ID, "status").text)
    check(titles() == ["milk"], f"after the jump to the first mix, the app holds {titles()}")
    wait.until(lambda _: "State after mix" in browser.find_element(By.ID, "stateTitle").text)
    browser.save_screenshot(os.path.join(shots, "live-session-past.png"))

    # Forward steps one mix; Present returns to the last one the app made.
    browser.find_element(By.ID, "forward").click()
    wait.until(lambda _: titles() == ["milk", "bread"])
    browser.find_element(By.ID, "present").click()
    wait.until(lambda _: "live" in browser.find_element(By.ID, "status").text)
    check(titles() == ["milk", "bread", "eggs"], f"after Present, the app holds {titles()}")

    # Before the first mix, Forward steps to the first mix, not the second.
    browser.execute_script("travel(0);")
    wait.until(lambda _: "before the first mix" in browser.find_element(By.ID, "status").text)
    check(titles() == [], f"before the first mix, the app holds {titles()}")
    browser.find_element(By.ID, "forward").click()
    wait.until(lambda _: titles() == ["milk"])
    browser.find_element(By.ID, "present").click()
    wait.until(lambda _: "live" in browser.find_element(By.ID, "status").text)
    wait.until(lambda _: titles() == ["milk", "bread", "eggs"])

    # Dispatch a typed action from the page.
    Select(browser.find_element(By.ID, "action")).select_by_visible_text("AddTodo")
    fields = browser.find_element(By.ID, "fields")
    fields.clear()
    fields.send_keys('{"title": "from the page"}')
    browser.find_element(By.ID, "send").click()
    wait.until(lambda _: "dispatched" in browser.find_element(By.ID, "sent").text)
    wait.until(lambda _: "from the page" in titles())
    wait.until(lambda _: any("from the page" in text for text in row_texts()))

    # A recorded mix dispatched again: the first, "add milk".
    browser.execute_script("document.querySelector('#rows tr.mix button.again').click();")
    wait.until(lambda _: titles().count("milk") == 2)

    # The filter narrows the mixes to those that match.
    browser.find_element(By.ID, "filter").send_keys("travel")
    wait.until(lambda _: all("travel" in text for text in row_texts()))
    check(len(row_texts()) >= 3, f"three jumps at least: {row_texts()}")
    browser.find_element(By.ID, "filter").clear()
    browser.find_element(By.ID, "filter").send_keys(" ")

    # The export is the journal's JSON lines: every mix the page shows, in order.
    exported = browser.execute_async_script(
        "const done = arguments[0]; fetch(document.getElementById('export').href)"
        ".then((r) => r.text()).then(done);")
    lines = [json.loads(line) for line in exported.splitlines() if line.strip()]
    serials = [line["serial"] for line in lines if "serial" in line]
    wait.until(lambda _: len(rows_shown()) == len(serials))
    shown = rows_shown()
    check(serials == shown, f"the export's mixes {serials} are the page's {shown}")
    check(any(line.get("mixer") == "travel" for line in lines), "the export records the jumps")
    browser.save_screenshot(os.path.join(shots, "live-session-dispatched.png"))

    # The second bus: the menu shows its mixes (the commands read), then the first bus's again.
    Select(browser.find_element(By.ID, "bus")).select_by_visible_text("sample.commands")
    wait.until(lambda _: row_texts() and all("commands" in text for text in row_texts()))
    check(any("read" in text for text in row_texts()), f"the commands bus's mixes: {row_texts()[:2]}")
    browser.save_screenshot(os.path.join(shots, "live-session-second-bus.png"))
    Select(browser.find_element(By.ID, "bus")).select_by_visible_text("flask.flux.shared")
    wait.until(lambda _: any("milk" in text for text in row_texts()))

    # The export imported back: browsed with its states (the session rebuilds them), then live again.
    path = os.path.join(shots, "flask-session.jsonl")
    with open(path, "w") as file:
        file.write(exported)
    send("add after the export")
    browser.find_element(By.ID, "import").send_keys(os.path.abspath(path))
    wait.until(lambda _: "imported" in browser.find_element(By.ID, "status").text)
    # Browsing a file moves nothing in the app: its controls are off meanwhile.
    enabled = browser.execute_script(
        "return ['back', 'forward', 'present', 'pause', 'send', 'bus']"
        ".filter((id) => !document.getElementById(id).disabled);")
    check(enabled == [], f"controls that would move the app while a file is browsed: {enabled}")
    check(rows_shown() == serials, f"the imported mixes {rows_shown()} are the file's {serials}")
    # The live bus's earlier mixes were loading when the file came: the file's page says nothing of them.
    note = browser.find_element(By.ID, "note").text
    check("loading earlier" not in note, f"the imported page's note: {note}")
    sent = browser.find_element(By.ID, "sent").text
    check(sent == "", f"the live app's last dispatch answer, on the imported page: {sent}")
    # How the live app's mixes reach the page says nothing of a file.
    push = browser.find_element(By.ID, "push")
    check(not push.is_displayed(), f"the imported page shows how it hears of live mixes: {push.text}")
    first = serials[0]
    browser.execute_script(f"document.querySelector('#rows tr.mix[data-serial=\"{first}\"]').click();")
    wait.until(lambda _: f"State after mix #{first}" in browser.find_element(By.ID, "stateTitle").text)
    wait.until(lambda _: "milk" in browser.find_element(By.ID, "state").text)
    imported_state = browser.find_element(By.ID, "state").text
    check("bread" not in imported_state, f"the imported state after the first mix: {imported_state}")
    browser.save_screenshot(os.path.join(shots, "live-session-imported.png"))
    browser.find_element(By.ID, "live").click()
    wait.until(lambda _: "live" in browser.find_element(By.ID, "status").text)
    wait.until(lambda _: browser.find_element(By.ID, "push").is_displayed())
    wait.until(lambda _: any("after the export" in text for text in row_texts()))

    # A long value with no space in it wraps: the row's buttons stay in the window.
    send("add " + "x" * 400)
    wait.until(lambda _: any("xxxxxxxx" in text for text in row_texts()))
    overflow = browser.execute_script(
        "return [...document.querySelectorAll('button.again')]"
        ".filter((b) => b.getBoundingClientRect().right > window.innerWidth).length;")
    check(overflow == 0, f"{overflow} Again buttons past the window's edge")
    browser.save_screenshot(os.path.join(shots, "live-session-long-value.png"))

    # An undo in the app: its row says which mix it undoes (the long todo's).
    long_serial = next(serial for serial, text in zip(rows_shown(), row_texts()) if "xxxxxxxx" in text)
    send("undo")
    wait.until(lambda _: any("undoes #" in text for text in row_texts()))
    undo = [text for text in row_texts() if "undoes #" in text][-1]
    check(f"undoes #{long_serial}<" in undo, f"the undo's row names mix #{long_serial}: {undo}")
    check(not any(title.startswith("xxxx") for title in titles()), f"the long todo undone: {titles()}")
    browser.save_screenshot(os.path.join(shots, "live-session-undo.png"))
finally:
    browser.quit()
    send("quit")
    app.wait(timeout=10)

if failures:
    sys.exit(1)
print(f"ok: the live session's page, in Chromium (screenshots in {shots})")
