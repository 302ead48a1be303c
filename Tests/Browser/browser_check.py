"""Drives headless Chromium through the DevTools protocol (standard library only) against
running gateways, as a person in a browser would:

    python3 browser_check.py CHROMIUM SCREENSHOT_DIR PAGES_ROOT ALLOWED_ROOT REFUSED_ROOT

PAGES_ROOT serves the pages (and is the other origin of the CORS checks); ALLOWED_ROOT allows
PAGES_ROOT's origin (--allow-origin), REFUSED_ROOT allows none. Exits non-zero with the step
that failed; prints "browser: all steps passed" otherwise.
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

chromium, shots, root, allowed, refused = sys.argv[1:6]
os.makedirs(shots, exist_ok=True)


class DevTools:
    """A WebSocket (RFC 6455) client for one page target, enough for the DevTools protocol."""

    def __init__(self, url):
        host_port, path = url[len("ws://"):].split("/", 1)
        host, port = host_port.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.next_id = 0
        self.events = []

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError("DevTools closed the connection")
            data += chunk
        return data

    def _send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _receive(self):
        message = b""
        while True:
            first, second = self._exactly(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._exactly(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._exactly(8))[0]
            message += self._exactly(length)
            if first & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = self._receive()
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, event, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for index, message in enumerate(self.events):
                if message.get("method") == event:
                    del self.events[:index + 1]
                    return message
            self.sock.settimeout(max(0.1, deadline - time.time()))
            try:
                self.events.append(self._receive())
            except socket.timeout:
                break
        raise TimeoutError(f"no {event} within {timeout}s")

    def evaluate(self, expression, wait=False):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=wait, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def navigate(self, url):
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def click_and_wait(self, expression):
        """Runs an expression that makes the page navigate (a click, a form's submit), and waits for the new page."""
        self.events.clear()
        self.evaluate(expression)
        self.wait_for("Page.loadEventFired")

    def screenshot(self, name):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(os.path.join(shots, name), "wb") as file:
            file.write(base64.b64decode(data))


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print("ok:", what)


profile = tempfile.mkdtemp(prefix="browser-check-")
browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0",
                            "--remote-allow-origins=*", f"--user-data-dir={profile}", "--window-size=1100,760",
                            "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 60
    while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1) and time.time() < deadline:
        time.sleep(0.1)
    port = int(open(port_file).read().split("\n")[0])
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
    page = next(t for t in targets if t["type"] == "page")
    tab = DevTools(page["webSocketDebuggerUrl"])
    tab.call("Page.enable")
    tab.call("Runtime.enable")
    text = "document.body.innerText"

    # The service root: a page, not a download.
    tab.navigate(root)
    check(tab.evaluate("document.contentType") == "text/html", "the root is an HTML page")
    check("Entity sets" in tab.evaluate(text), "the root lists the entity sets")
    check(tab.evaluate("document.querySelector('header a[href$=\"$metadata\"]') !== null"), "the root links $metadata")
    tab.screenshot("root.png")

    # A set, then drill down by clicking: person -> their cars -> maintenance.
    tab.click_and_wait("document.querySelector('ul.sets a[href$=\"/Person\"]').click()")
    check(tab.evaluate("location.href") == root + "Person", "the Person link leads to the set")
    check(tab.evaluate("document.querySelectorAll('tbody tr').length") > 0, "the set is a table of people")
    tab.screenshot("set.png")
    tab.click_and_wait("document.querySelector('tbody a[href$=\"/Person(1)\"]').click()")
    check("Bob" in tab.evaluate(text), "Person(1) shows its properties")
    tab.screenshot("entity.png")
    tab.click_and_wait("document.querySelector('ul.related a').click()")
    check(tab.evaluate("location.href") == root + "Person(1)/PersonCar", "the entity's PersonCar link is followed")
    tab.click_and_wait("document.querySelector('tbody a[href$=\"/PersonCarMaintenance\"]').click()")
    check(tab.evaluate("location.href").endswith("/PersonCarMaintenance"), "and on to the car's maintenance")
    check(tab.evaluate("document.querySelectorAll('tbody tr').length") > 0, "maintenance rows are listed")

    # A $filter typed into the box and submitted.
    tab.navigate(root + "Person")
    tab.click_and_wait("document.getElementById('filter').value = \"lastName eq 'Samson'\";"
                       " document.querySelector('form.filter button').click()")
    check("%24filter=" in tab.evaluate("location.href"), "the form submits $filter")
    surnames = tab.evaluate("[...document.querySelectorAll('tbody tr td:nth-child(4)')].map(c => c.innerText)")
    check(surnames and all(s == "Samson" for s in surnames), f"only the Samsons are listed: {surnames}")
    tab.screenshot("filtered.png")

    # A bad filter: an error page that shows the error beside the box, the filter kept.
    tab.click_and_wait("document.getElementById('filter').value = \"lastName eq 'Samson\";"
                       " document.querySelector('form.filter button').click()")
    check("not closed by a quote" in tab.evaluate("document.querySelector('.error').innerText"), "the filter's error is shown")
    check(tab.evaluate("document.getElementById('filter').value") == "lastName eq 'Samson", "the bad filter stays in its box")
    tab.screenshot("filter-error.png")

    # CORS: from a page of another origin, fetch() GET and POST (a preflighted JSON write).
    tab.navigate(root)
    tab.call("Page.setBypassCSP", enabled=True)  # the pages allow no script of their own; this one is the test's
    tab.navigate(root)
    cross_origin = """
        (async (base) => {
          const results = [];
          try {
            const got = await fetch(base + "Person(1)", {headers: {"Accept": "application/json"}});
            results.push("GET " + got.status + " " + (await got.json()).d.firstName);
          } catch (e) { results.push("GET failed: " + e); }
          try {
            const posted = await fetch(base + "Person", {method: "POST",
              headers: {"Accept": "application/json", "Content-Type": "application/json"},
              body: JSON.stringify({firstName: "Cross", lastName: "Origin", createDate: "/Date(0)/"})});
            results.push("POST " + posted.status + " " + posted.headers.get("Location"));
          } catch (e) { results.push("POST failed: " + e); }
          return results;
        })(%s)"""
    got = tab.evaluate(cross_origin % json.dumps(allowed), wait=True)
    check(got[0] == "GET 200 Bob", f"a cross-origin GET works with --allow-origin: {got}")
    check(got[1].startswith("POST 201 "), f"a cross-origin POST works with --allow-origin: {got}")
    got = tab.evaluate(cross_origin % json.dumps(refused), wait=True)
    check(got[0].startswith("GET failed"), f"without --allow-origin the GET fails: {got}")
    check(got[1].startswith("POST failed"), f"without --allow-origin the POST fails: {got}")
    print("browser: all steps passed")
finally:
    browser.terminate()
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()
    shutil.rmtree(profile, ignore_errors=True)
