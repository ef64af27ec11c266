// Starts a framework's own A2A server (lib/frameworks/<name>.mjs) as a child
// process with lib/loopback.mjs preloaded (it listens on 127.0.0.1 only and
// no fetch leaves the machine), and puts a small recording proxy in front of
// it: every HTTP exchange shim makes (method, path, A2A headers, request
// body, raw response body: SSE as sent) is kept in `exchanges`, so a test can
// check what went over the wire and a capture can be written as is.
//
// The child prints one JSON line per event on stdout ({"event": ...});
// `events` holds them and `waitEvent(pred)` resolves on the first match.
import { spawn } from "node:child_process";
import http from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** What each framework serves for its one agent "helper" (paths under the proxy's origin). */
export const FRAMEWORKS = {
  mastra: {
    script: "mastra.mjs",
    agent: "helper",
    cardPath: "/api/.well-known/helper/agent-card.json",
    endpointPath: "/api/a2a/helper",
  },
  voltagent: {
    script: "voltagent.mjs",
    agent: "helper",
    cardPath: "/.well-known/helper/agent-card.json",
    endpointPath: "/a2a/helper",
  },
  adk: {
    script: "adk.mjs",
    agent: "helper",
    cardPath: "/.well-known/agent-card.json",
    endpointPath: "/jsonrpc",
  },
  // Strands and BeeAI are npm projects of their own (lib/frameworks/<name>/),
  // each on the @a2a-js/sdk 0.3.14 it takes as a peer; both serve the card at
  // the base's well-known path and JSON-RPC at the base itself.
  strands: {
    script: "strands/server.mjs",
    agent: "helper",
    cardPath: "/.well-known/agent-card.json",
    endpointPath: "/",
  },
  beeai: {
    script: "beeai/server.mjs",
    agent: "helper",
    // Its ToolCallingAgent answers whole, at the end (no text streams).
    streamsText: false,
    cardPath: "/.well-known/agent-card.json",
    endpointPath: "/",
  },
};

const HEADERS_KEPT = ["a2a-version", "a2a-extensions", "x-a2a-extensions", "accept", "content-type"];

/** A recording proxy; `setTarget(port)` names the framework's port once it listens. */
function startProxy() {
  let target = 0;
  const exchanges = [];
  const listeners = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (d) => chunks.push(d));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const ex = {
        method: req.method,
        path: req.url,
        headers: Object.fromEntries(HEADERS_KEPT.filter((h) => req.headers[h] !== undefined).map((h) => [h, req.headers[h]])),
        requestBody: body.toString("utf8"),
        status: 0,
        responseHeaders: {},
        responseBody: "",
        done: false,
      };
      exchanges.push(ex);
      // The Host header is kept: a server that builds its card URL from it names the proxy.
      const headers = { ...req.headers };
      const up = http.request({ host: "127.0.0.1", port: target, method: req.method, path: req.url, headers }, (ur) => {
        ex.status = ur.statusCode;
        ex.responseHeaders = { "content-type": ur.headers["content-type"] };
        res.writeHead(ur.statusCode, ur.headers);
        ur.on("data", (d) => {
          ex.responseBody += d.toString("utf8");
          res.write(d);
        });
        ur.on("end", () => {
          ex.done = true;
          res.end();
          for (const l of listeners) l(ex);
        });
        ur.on("error", () => res.destroy());
      });
      up.on("error", (e) => {
        ex.error = e.message;
        res.destroy();
      });
      // The client went away (shim dropped the stream): drop the upstream too.
      res.on("close", () => {
        if (!ex.done) {
          ex.clientClosed = true;
          up.destroy();
        }
      });
      up.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        port: server.address().port,
        setTarget: (port) => { target = port; },
        exchanges,
        onExchange: (l) => listeners.add(l),
        close: () => new Promise((ok) => { server.closeAllConnections(); server.close(ok); }),
      });
    });
  });
}

/**
 * @param {"mastra"|"voltagent"|"adk"|"strands"|"beeai"} name
 * @returns {Promise<{name, url, cardUrl, endpoint, events, exchanges, waitEvent, log, close}>}
 */
export async function startFramework(name) {
  const fw = FRAMEWORKS[name];
  if (!fw) throw new Error(`unknown framework ${name}`);
  // The proxy listens first: a framework whose card names a fixed address
  // (ADK) is told the proxy's port, as a deployment names its public one.
  const proxy = await startProxy();
  const child = spawn(process.execPath, ["--import", join(here, "..", "loopback.mjs"), join(here, fw.script)], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "test", VOLTAGENT_DISABLE_ANNOUNCEMENTS: "1", E2E_PUBLIC_PORT: String(proxy.port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events = [];
  const waiters = new Set();
  let log = "";
  let buf = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (s) => {
    buf += s;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        log += line + "\n";
        continue;
      }
      if (!e || typeof e.event !== "string") {
        log += line + "\n";
        continue;
      }
      events.push(e);
      for (const w of waiters) if (w.pred(e)) { waiters.delete(w); w.resolve(e); }
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (s) => { log += s; });
  const exited = new Promise((ok) => child.once("exit", ok));

  /** The first event from index `from` on that matches pred (waits for it). */
  const waitEvent = (pred, { from = 0, ms = 15000, what = "an event from the framework" } = {}) => {
    const found = events.slice(from).find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      waiters.add(w);
      const t = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}\n--- ${name} log ---\n${log.slice(-4000)}`));
      }, ms);
      w.resolve = (e) => { clearTimeout(t); resolve(e); };
    });
  };

  let listening;
  try {
    listening = await Promise.race([
      waitEvent((e) => e.event === "listening", { ms: 60000, what: `${name} to listen` }),
      exited.then((code) => { throw new Error(`${name} exited (${code}) before listening\n${log}`); }),
    ]);
  } catch (e) {
    await proxy.close();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    throw e;
  }
  proxy.setTarget(listening.port);
  const url = `http://127.0.0.1:${proxy.port}`;
  return {
    name,
    agent: fw.agent,
    url,
    cardUrl: url + fw.cardPath,
    endpoint: url + fw.endpointPath,
    events,
    exchanges: proxy.exchanges,
    onExchange: proxy.onExchange,
    waitEvent,
    log: () => log,
    async close() {
      await proxy.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const t = setTimeout(() => child.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(t);
      }
    },
  };
}
