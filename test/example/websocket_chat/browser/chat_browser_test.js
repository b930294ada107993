// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The WebSocket chat's page in a real browser: headless Chromium (the system's, driven by
// puppeteer-core, which downloads none) against websocket_chat_server on an ephemeral
// 127.0.0.1 port with an idle timeout of 1 s. Each check below fails the test with what went
// wrong; a browser that cannot start fails it too. Every process started here is killed on
// the way out, whatever happened.
//
//   node chat_browser_test.js --server PATH --modules DIR --out DIR [--chromium PATH]
//
// DIR of --modules holds node_modules (npm ci of package-lock.json, in the build tree);
// --out receives the screenshot websocket_chat.png.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const net = require("net");
const path = require("path");
const readline = require("readline");

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const required of ["server", "modules", "out"])
  if (!args[required]) {
    console.error(`usage: node chat_browser_test.js --server PATH --modules DIR --out DIR`);
    process.exit(2);
  }
const chromium = args.chromium || "/usr/bin/chromium";
const puppeteer = require(path.resolve(args.modules, "node_modules", "puppeteer-core"));

const idleMs = 1000, tickMs = 10;
// Below Beast's 4 KiB read, so that the whole oversized frame is read when Beast fails the
// connection: with more of it unread, Beast 1.81's teardown closes the socket on it, the
// kernel resets the connection, and a browser sees 1006 instead of the 1009 sent before.
const maxMessage = 1024, oversized = 2000;
// What scheduling may add to a timer on a shared machine, as the load client allows.
const schedulingMs = 100;
const started = Date.now();
const monotonic = () => Number(process.hrtime.bigint()) / 1e6;  // ms, CLOCK_MONOTONIC

// ---- failing, and cleaning up whatever happens ---------------------------------------
const children = new Set();  // pids to kill on the way out (the server, the browsers' trees)
let failures = 0;
function cleanup() {
  for (const pid of children) {
    for (const signal of ["SIGCONT", "SIGKILL"]) {
      try { process.kill(pid, signal); } catch (e) { /* gone already */ }
      try { process.kill(-pid, signal); } catch (e) { /* not a group leader */ }
    }
  }
  children.clear();
}
process.on("exit", cleanup);
function fail(message) {
  console.error(`FAIL: ${message}`);
  failures++;
}
function check(ok, message) {
  if (ok) console.log(`ok: ${message}`);
  else fail(message);
  return ok;
}
function die(message) {
  console.error(`FAIL: ${message}`);
  cleanup();
  process.exit(1);
}
// The whole test is bounded: a hang anywhere is a failure, not a CTest timeout.
setTimeout(() => die("the test did not finish within 60 s"), 60000).unref();
process.on("unhandledRejection", (e) => die(`unexpected error: ${e && e.stack || e}`));
// CTest's timeout or a Ctrl-C: the browsers and the server go too.
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => die(`stopped by ${signal}`));
const step = (what) => console.log(`-- ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// Every process of a tree, from /proc (a browser's zygote and its children included).
function descendants(root) {
  const parent = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch (e) { /* exited meanwhile */ }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

// ---- the server, and its --log lines -------------------------------------------------
const log = [];  // { t (ms, monotonic), text }
const logWaiters = new Set();
let serverStderr = "";
let serverExit = null;
let serverPid = null;
function startServer() {
  const server = spawn(args.server, ["--port", "0", "--idle-timeout", `${idleMs}ms`,
    "--tick", `${tickMs}ms`, "--max-message", String(maxMessage), "--log"], { stdio: ["ignore", "pipe", "pipe"] });
  serverPid = server.pid;
  children.add(server.pid);
  server.on("exit", (code, signal) => { serverExit = { code, signal }; children.delete(server.pid); });
  server.stderr.on("data", (d) => { serverStderr += d; });
  const lines = readline.createInterface({ input: server.stdout });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no \"listening on\" line within 5 s")), 5000);
    lines.on("line", (line) => {
      const listening = /^listening on 127\.0\.0\.1:(\d+)$/.exec(line);
      if (listening) {
        clearTimeout(timer);
        resolve({ server, port: Number(listening[1]) });
        return;
      }
      const entry = /^LOG t=([\d.]+) (.*)$/.exec(line);
      if (!entry) return;
      log.push({ t: Number(entry[1]) * 1000, text: entry[2] });
      for (const waiter of logWaiters) waiter();
    });
  });
}
// The first log line matching `pattern` (a RegExp), waiting up to `ms` for it.
function waitForLog(pattern, ms, what) {
  return new Promise((resolve, reject) => {
    const look = () => {
      const found = log.find((entry) => pattern.test(entry.text));
      if (!found) return false;
      logWaiters.delete(look);
      clearTimeout(timer);
      resolve(found);
      return true;
    };
    const timer = setTimeout(() => {
      logWaiters.delete(look);
      reject(new Error(`the server did not log ${what} within ${ms} ms`));
    }, ms);
    if (!look()) logWaiters.add(look);
  });
}
const logged = (pattern) => log.filter((entry) => pattern.test(entry.text));

// ---- raw HTTP, as no browser would send it ----------------------------------------------
function rawRequest(port, text) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let answer = "";
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer to ${JSON.stringify(text.slice(0, 40))} within 5 s`)); }, 5000);
    socket.on("data", (data) => { answer += data; });
    socket.on("error", () => {});
    socket.on("close", () => { clearTimeout(timer); resolve(answer); });
  });
}

// ---- pages ---------------------------------------------------------------------------
async function launch() {
  try {
    const browser = await puppeteer.launch({
      executablePath: chromium, headless: true, timeout: 20000, protocolTimeout: 20000,
      // Root has no user namespace sandbox here; the pages are this test's own.
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"],
      defaultViewport: { width: 560, height: 420 },
    });
    children.add(browser.process().pid);
    return browser;
  } catch (e) {
    die(`chromium (${chromium}) did not start: ${e.message}`);
  }
}
// Polled on a timer: requestAnimationFrame, puppeteer's default, stops in a tab not in front.
const poll = { polling: 20 };
const origins = new Set();  // every URL a page asked for: the server's, nothing else
async function join(browser, url) {
  const page = await browser.newPage();
  page.setDefaultTimeout(10000);
  page.on("request", (request) => origins.add(new URL(request.url()).origin));
  page.on("pageerror", (error) => fail(`the page threw: ${error.message}`));
  await page.goto(url);
  await page.waitForFunction(() => window.chat && window.chat.name && window.chat.server.idle_timeout_ms, poll);
  page.chatName = await page.evaluate(() => window.chat.name);
  return page;
}
// Types into the page's box and submits its form: the page's own send. (Not page.click,
// which waits for a frame that a tab not in front never renders.)
async function say(page, text) {
  await page.$eval("#text", (input, value) => {
    input.value = value;
    input.form.requestSubmit();
  }, text);
}
async function waitForLine(page, selector, text, ms = 5000) {
  try {
    await page.waitForFunction((sel, want) => [...document.querySelectorAll(sel)]
      .some((li) => li.textContent.includes(want)), { ...poll, timeout: ms }, selector, text);
    return true;
  } catch (e) {
    return false;
  }
}
async function waitForClose(page, ms = 5000) {
  try {
    await page.waitForFunction(() => window.chat.closed, { ...poll, timeout: ms });
  } catch (e) {
    return null;
  }
  return page.evaluate(() => ({ ...window.chat.closed, status: document.getElementById("status").textContent }));
}
// The server's STATS line, asked from `page` as a user would.
async function stats(page) {
  const before = await page.$$eval("#messages li.server", (lis) => lis.length);
  await say(page, "/stats");
  await page.waitForFunction((n) => {
    const lis = [...document.querySelectorAll("#messages li.server")];
    return lis.length > n && lis.slice(n).some((li) => li.textContent.includes("STATS "));
  }, poll, before);
  const line = await page.$$eval("#messages li.server", (lis) =>
    lis.map((li) => li.textContent).reverse().find((text) => text.includes("STATS ")));
  const fields = {};
  for (const pair of line.slice(line.indexOf("STATS ") + 6).split(" ")) {
    const [key, value] = pair.split("=");
    fields[key] = value;
  }
  return fields;
}

// The browser side of a connection in /proc/net/tcp: its state and unread bytes.
function browserSocket(browserPort, serverPort) {
  const hex = (port) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const line of fs.readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1] === hex(browserPort) && f[2] === hex(serverPort))
      return { state: f[3], unread: parseInt(f[4].split(":")[1], 16) };
  }
  return null;
}

async function main() {
  step("server and browsers");
  const { port } = await startServer();
  const url = `http://127.0.0.1:${port}/`;
  const [browser, frozenBrowser] = await Promise.all([launch(), launch()]);
  console.log(`server on ${url}; ${await browser.version()}`);

  step("plain HTTP and bad upgrades, over raw sockets");
  const pageAnswer = await rawRequest(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  check(/^HTTP\/1\.1 200 OK\r\n/.test(pageAnswer) && /Content-Type: text\/html/.test(pageAnswer)
        && pageAnswer.includes("<title>asio-wheel WebSocket chat</title>"), "GET / is the page");
  const notFound = await rawRequest(port, "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  check(/^HTTP\/1\.1 404 Not Found\r\n/.test(notFound) && notFound.includes("not found: /nope"),
        `GET /nope is a 404 saying so: ${JSON.stringify(notFound.split("\r\n")[0])}`);
  const upgrade = "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n";
  const noKey = await rawRequest(port, `${upgrade}Sec-WebSocket-Version: 13\r\n\r\n`);
  check(/^HTTP\/1\.1 400 Bad Request\r\n/.test(noKey) && noKey.includes("Sec-WebSocket-Key field is missing"),
        `an upgrade without Sec-WebSocket-Key: Beast's 400 with the reason: ${JSON.stringify(noKey.split("\r\n\r\n")[1])}`);
  const oldVersion = await rawRequest(port, `${upgrade}Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n`);
  check(/^HTTP\/1\.1 426 Upgrade Required\r\n/.test(oldVersion) && /Sec-WebSocket-Version: 13\r\n/.test(oldVersion),
        "an upgrade to WebSocket version 8: 426 naming version 13");
  const otherPath = await rawRequest(port, upgrade.replace("GET /", "GET /other") + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  check(/^HTTP\/1\.1 404 Not Found\r\n/.test(otherPath), "an upgrade of /other: 404");
  const garbage = await rawRequest(port, "HELLO THERE\r\n\r\n");
  check(/^HTTP\/1\.1 400 Bad Request\r\n/.test(garbage) && garbage.includes("bad request: "),
        `a request that does not parse: 400 with the parser's reason: ${JSON.stringify(garbage.split("\r\n\r\n")[1])}`);

  step("pages join: a silent one, two that chat, one in a second browser to freeze");
  const silent = await join(browser, url);
  const silentJoined = Date.now();
  const [alice, bob, frozen] = await Promise.all([join(browser, url), join(browser, url), join(frozenBrowser, url)]);
  const server = await alice.evaluate(() => window.chat.server);
  check(server.idle_timeout_ms === String(idleMs) && server.pings === "on",
        `the page read the server's idle timeout ${server.idle_timeout_ms} ms, pings ${server.pings}`);

  step("alice and bob take their names, alice says hello, bob sees it and answers");
  for (const [page, nick] of [[alice, "alice"], [bob, "bob"]]) {
    await say(page, `/nick ${nick}`);
    await page.waitForFunction((want) => window.chat.name === want, poll, nick);
    page.chatName = nick;
  }
  const hello = "hello bob, are you there?";
  await say(alice, hello);
  check(await waitForLine(bob, "#messages li.said", `${alice.chatName}:${hello}`), "bob's page shows alice's message with her name");
  const reply = "hi alice! the idle timeout here is Beast's, with pings";
  await say(bob, reply);
  check(await waitForLine(alice, "#messages li.said", `${bob.chatName}:${reply}`), "alice's page shows bob's answer");

  step("screenshot of the two pages");
  const shots = await Promise.all([alice, bob].map((page) => page.screenshot({ encoding: "base64" })));
  const board = await browser.newPage();
  await board.setViewport({ width: 1140, height: 440 });
  await board.setContent(`<body style="margin:0;padding:10px;background:#c9ced6;display:flex;gap:10px">
    ${shots.map((s) => `<img style="border:1px solid #888" src="data:image/png;base64,${s}">`).join("")}</body>`);
  fs.mkdirSync(args.out, { recursive: true });
  const shotPath = path.join(args.out, "websocket_chat.png");
  await board.screenshot({ path: shotPath });
  await board.close();
  console.log(`screenshot: ${shotPath}`);

  step("a browser that stops answering: SIGSTOP every process of the second browser");
  const frozenName = frozen.chatName;
  const joinLine = await waitForLog(new RegExp(`^joined ${frozenName} peer=127\\.0\\.0\\.1:(\\d+)$`), 2000, `${frozenName}'s join`);
  const frozenPort = Number(/:(\d+)$/.exec(joinLine.text)[1]);
  // Pongs from it first: its browser answered Beast's pings until it was stopped.
  const pongs = new RegExp(`^pong ${frozenName} `);
  const pongDeadline = Date.now() + 3 * idleMs;
  while (logged(pongs).length < 2 && Date.now() < pongDeadline) await sleep(20);
  check(logged(pongs).length >= 2, `the second browser answered ${logged(pongs).length} of Beast's pings before it was stopped`);
  const before = await stats(alice);
  const tree = descendants(frozenBrowser.process().pid);
  for (const pid of tree) children.add(pid);
  for (const pid of tree) try { process.kill(pid, "SIGSTOP"); } catch (e) { /* exited */ }
  const stoppedAt = monotonic();
  console.log(`stopped ${tree.length} processes of the second browser`);
  // Beast's ping reaches the stopped browser's socket and stays unread there: the kernel's
  // receive queue shows when (polled every 0.2 ms), and the FIN when the server drops it.
  let lastEmpty = stoppedAt, pingArrived = null;
  const pollEnd = stoppedAt + idleMs + tickMs + schedulingMs + 500;
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const now = monotonic();
    const socket = browserSocket(frozenPort, port);
    if (!socket || socket.state !== "01" || now > pollEnd) break;  // 01: ESTABLISHED
    if (socket.unread === 0) lastEmpty = now;
    else if (pingArrived === null) pingArrived = now;
    Atomics.wait(wait, 0, 0, 0.2);
  }
  let close = null;
  try {
    close = await waitForLog(new RegExp(`^closed ${frozenName} `), 2000, `${frozenName}'s close`);
  } catch (e) {
    fail(e.message);
  }
  if (close) {
    const since = Number(/since_input_ms=([\d.]+)/.exec(close.text)[1]);
    console.log(`server: ${close.text}`);
    check(/reason=idle-timeout$/.test(close.text), "the server closed it for its idle timeout");
    if (check(pingArrived !== null, "Beast's ping reached the stopped browser, unanswered")) {
      // Beast's rule: a ping after half the idle time without input, the close when the
      // other half passes without a pong; so the close is idle/2 after the unanswered ping,
      // and idle after the ping the last pong answered.
      const afterPing = close.t - lastEmpty;
      check(afterPing >= idleMs / 2, `not before the idle timeout: closed ${afterPing.toFixed(1)} ms after the unanswered ping (>= ${idleMs / 2}), to the poll's 0.2 ms`);
      check(close.t - pingArrived <= idleMs / 2 + tickMs + schedulingMs,
            `within a tick plus scheduling: ${(close.t - pingArrived).toFixed(1)} ms after the ping (<= ${idleMs / 2 + tickMs + schedulingMs})`);
    }
    // The last input was the stopped browser's last pong, and Beast closes once two halves of
    // the idle timeout have passed without input: the silence is more than half the idle
    // timeout and at most all of it plus a tick and scheduling, less where the pong came back
    // late (by tens of ms under load). The server's since_input is the time from the last
    // pong it logged to the close.
    const lastPong = logged(pongs).filter((e) => e.t <= close.t).pop();
    if (check(lastPong !== undefined, "the server logged the last pong before the close")) {
      const silence = close.t - lastPong.t;
      check(Math.abs(since - silence) <= 1,
            `the server's since_input ${since} ms is the time from the last pong it logged to the close (${silence.toFixed(3)} ms)`);
    }
    check(since > idleMs / 2 && since <= idleMs + tickMs + schedulingMs,
          `the server saw ${since} ms of silence before the close (more than half the idle timeout ${idleMs} ms, at most all of it plus a tick and scheduling)`);
    check(close.t - stoppedAt <= idleMs + tickMs + schedulingMs, `closed ${(close.t - stoppedAt).toFixed(1)} ms after the stop`);
  }
  const after = await stats(alice);
  console.log(`wheel: websocket_timer=${after.websocket_timer} waits_expired ${before.waits_expired} -> ${after.waits_expired}, waits_cancelled ${after.waits_cancelled}, timers_in_wheel ${after.timers_in_wheel}, max_lateness_us ${after.max_lateness_us}`);
  // The streams' own timers (the HTTP requests' limit) are wheel timers with any Beast.
  check(Number(after.waits_cancelled) > 0, "the streams' timers are in the wheel: each request read's timeout cancelled there at the upgrade");
  if (after.websocket_timer === "wheel")
    check(Number(after.waits_expired) - Number(before.waits_expired) >= 2,
          "the websocket's idle timer is in the wheel: the ping's and the close's expiries counted there");
  else
    check(after.websocket_timer === "steady_timer" && /keeps websocket::stream's timer a steady_timer/.test(serverStderr),
          "this Beast keeps the websocket's timer a steady_timer (the server says so): the close is timed above, the wheel holds it from Beast 1.82");
  for (const pid of tree) try { process.kill(pid, "SIGCONT"); } catch (e) { /* exited */ }
  const frozenClose = await waitForClose(frozen);
  check(frozenClose && frozenClose.code === 1006 && /idle timeout/.test(frozenClose.explanation),
        `after SIGCONT the page shows the drop and why: ${frozenClose && frozenClose.status}`);
  await frozenBrowser.close();
  for (const pid of tree) children.delete(pid);

  step(`a message of ${oversized} bytes, over --max-message ${maxMessage}: Beast closes with 1009`);
  const big = await join(browser, url);
  await say(big, "x".repeat(oversized));
  const bigClose = await waitForClose(big);
  check(bigClose && bigClose.code === 1009 && /message too big/.test(bigClose.status),
        `the page shows the close: ${bigClose && bigClose.status}`);
  try {
    const line = await waitForLog(new RegExp(`^closed ${big.chatName} .*reason=message-too-big$`), 2000, "the too-big close");
    console.log(`server: ${line.text}`);
  } catch (e) {
    fail(e.message);
  }

  step("bob leaves with /quit");
  await say(bob, "/quit");
  const quit = await waitForClose(bob);
  check(quit && quit.code === 1000 && quit.reason === "quit: you sent /quit" && quit.wasClean,
        `bob's page shows the server's reason: ${quit && quit.status}`);
  check(await waitForLine(bob, "#messages li.server", "BYE quit"), "and the goodbye before it");

  step("the server still serves: a new page chats with alice");
  const carol = await join(browser, url);
  await say(carol, "still here after all that?");
  check(await waitForLine(alice, "#messages li.said", `${carol.chatName}:still here after all that?`),
        "alice sees the newcomer's message");

  step("the silent page, through several idle timeouts");
  const silentFor = 3.5 * idleMs;
  if (Date.now() - silentJoined < silentFor) await sleep(silentFor - (Date.now() - silentJoined));
  const silentState = await silent.evaluate(() => window.chat.state);
  const silentPongs = logged(new RegExp(`^pong ${silent.chatName} `)).length;
  check(silentState === "open" && logged(new RegExp(`^closed ${silent.chatName} `)).length === 0,
        `the silent page is still connected after ${((Date.now() - silentJoined) / 1000).toFixed(1)} s (idle timeout ${idleMs / 1000} s)`);
  check(silentPongs >= 5, `its browser answered ${silentPongs} of Beast's pings (one per half idle time)`);

  step("SIGTERM: the pages show the server stopping");
  process.kill(serverPid, "SIGTERM");
  for (const page of [alice, silent, carol]) {
    const closed = await waitForClose(page);
    check(closed && closed.code === 1001 && closed.reason === "server-shutdown: the server is stopping",
          `${page.chatName}'s page: ${closed && closed.status}`);
  }
  const exitDeadline = Date.now() + 5000;
  while (!serverExit && Date.now() < exitDeadline) await sleep(20);
  check(serverExit && serverExit.code === 0, `the server exited with status 0 (${JSON.stringify(serverExit)})`);
  const foreign = [...origins].filter((origin) => origin !== `http://127.0.0.1:${port}` && origin !== "null");
  check(foreign.length === 0, `the pages fetched nothing but the server's page${foreign.length ? ": " + foreign.join(" ") : ""}`);
  await browser.close();
}

main().then(() => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  cleanup();
  if (failures) {
    console.error(`${failures} check(s) failed in ${seconds} s`);
    process.exit(1);
  }
  console.log(`all checks passed in ${seconds} s`);
  process.exit(0);
}, (e) => die(e && e.stack || String(e)));
