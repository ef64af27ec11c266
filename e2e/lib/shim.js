// Runs the built shim as an editor would, and drives it with the official
// ACP TypeScript client (@agentclientprotocol/sdk 2.4.0: client(),
// ndJsonStream, connectWith).
//
// Both directions of stdio are tapped below the SDK: every line shim writes
// is recorded raw, must be a JSON-RPC message, and is validated against the
// official ACP schema by the definition its method and side name; every
// line the client writes is recorded so responses can be matched to the
// method they answer. Lines written raw by a test (ids starting "raw-",
// and the id-null answers to malformed input) stay out of the SDK.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { validateAgentMessage, validateDef } from "./schema.js";

const here = dirname(fileURLToPath(import.meta.url));
// $SHIM_BIN (relative to the current directory), else this repo's bin/shim.
export const SHIM_BIN = process.env.SHIM_BIN ? resolve(process.env.SHIM_BIN) : resolve(here, "../../bin/shim");

export const CLIENT_INFO = { name: "zed", title: "Zed", version: "0.210.0" };

// The scratch directories a test file made, removed when its process exits
// (a run left a state or home directory behind for each test).
const madeDirs = [];
process.on("exit", () => {
  for (const d of madeDirs) rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = "shim-e2e-") {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  madeDirs.push(d);
  return d;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rejects with a clear message when p does not settle within ms. */
export function within(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Polls fn until it returns a truthy value, or fails after ms. */
export async function waitFor(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

function lineSplitter(onLine) {
  let buf = "";
  const dec = new TextDecoder();
  return {
    push(chunk) {
      buf += dec.decode(chunk, { stream: true });
      let i;
      const out = [];
      while ((i = buf.indexOf("\n")) >= 0) {
        out.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
      return out.map(onLine);
    },
    flush() {
      const rest = buf + dec.decode();
      buf = "";
      return rest.trim() ? [onLine(rest)] : [];
    },
  };
}

const idKey = (id) => JSON.stringify(id);

export class Shim {
  /**
   * @param {object} o
   * @param {string} [o.url]      the agent's base URL (--url); none when the args point shim elsewhere (--card-url, --endpoint)
   * @param {string} [o.stateDir] --state-dir (a fresh temp dir by default)
   * @param {string[]} [o.args]   more flags (e.g. --a2a-version 0.3, --root p=/x)
   */
  constructor({ url, stateDir, args = [] }) {
    this.ownState = !stateDir;
    this.stateDir = stateDir ?? tempDir("shim-state-");
    this.configDir = tempDir("shim-config-");
    this.args = [
      ...(url === undefined ? [] : ["--url", url]),
      "--state-dir", this.stateDir,
      "--config-dir", this.configDir,
      "--keyring", "off",
      "--steer-grace", "0",
      "--log-level", "debug",
      ...args,
    ];
    /** every line shim wrote: {i, t, text, msg} */
    this.received = [];
    /** every line written to shim: {t, text, msg} */
    this.sent = [];
    /** schema or framing problems: strings */
    this.problems = [];
    this.sentMethods = new Map();
    this.stderr = "";
    // The answers of the editor's dialogs: (params, ctx) → answer; ctx.signal
    // aborts when shim withdraws the request ($/cancel_request).
    this.permissionAnswer = () => ({ outcome: { outcome: "cancelled" } });
    this.elicitationAnswer = () => ({ action: "decline" });
    /** the elicitation/complete notifications shim sent: their params */
    this.completed = [];
    this.listeners = new Set();

    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith("SHIM_")) delete env[k];
    this.child = spawn(SHIM_BIN, this.args, { stdio: ["pipe", "pipe", "pipe"], env });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exitedAt = Date.now();
        resolve({ code, signal });
      });
    });
    this.spawnError = new Promise((resolve) => this.child.once("error", resolve));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (s) => {
      this.stderr += s;
    });
    this.child.stdin.on("error", () => {});

    // shim → client: record, validate, and forward what belongs to the SDK.
    const enc = new TextEncoder();
    const inSplit = lineSplitter((line) => this.onAgentLine(line));
    const fromShim = Readable.toWeb(this.child.stdout).pipeThrough(
      new TransformStream({
        transform: (chunk, ctl) => {
          for (const fwd of inSplit.push(chunk)) if (fwd) ctl.enqueue(enc.encode(fwd + "\n"));
        },
        flush: (ctl) => {
          for (const fwd of inSplit.flush()) if (fwd) ctl.enqueue(enc.encode(fwd + "\n"));
        },
      }),
    );
    // client → shim: record each line, then write it to shim's stdin.
    const toShim = new WritableStream({
      write: (chunk) => {
        const text = new TextDecoder().decode(chunk);
        for (const line of text.split("\n")) if (line.trim()) this.recordSent(line);
        return new Promise((resolve, reject) => {
          if (this.child.stdin.destroyed || this.child.stdin.writableEnded) {
            reject(new Error("shim's stdin is closed"));
            return;
          }
          this.child.stdin.write(chunk, (err) => (err ? reject(err) : resolve()));
        });
      },
    });
    this.stream = ndJsonStream(toShim, fromShim);

    this.app = client({ name: "shim-e2e" })
      .onNotification("session/update", () => {})
      .onNotification("elicitation/complete", ({ params }) => {
        this.completed.push(params);
      })
      .onRequest("session/request_permission", async (ctx) => this.permissionAnswer(ctx.params, ctx))
      .onRequest("elicitation/create", async (ctx) => {
        const answer = await this.elicitationAnswer(ctx.params, ctx);
        // The test's own answer must be one a real client can give.
        const why = validateDef("CreateElicitationResponse", answer);
        if (why) this.problems.push(`the test's elicitation answer: ${why}`);
        return answer;
      });
  }

  recordSent(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = undefined;
    }
    if (msg && typeof msg === "object" && !Array.isArray(msg) && typeof msg.method === "string" && Object.hasOwn(msg, "id")) {
      this.sentMethods.set(idKey(msg.id), msg.method);
    }
    this.sent.push({ t: Date.now(), text: line, msg, at: this.received.length });
  }

  /** Records one line from shim; returns the line to forward to the SDK, or null. */
  onAgentLine(text) {
    const rec = { i: this.received.length, t: Date.now(), text, msg: undefined };
    this.received.push(rec);
    if (!text.trim()) {
      this.problems.push("shim wrote an empty line on stdout");
      return null;
    }
    try {
      rec.msg = JSON.parse(text);
    } catch {
      this.problems.push(`shim wrote a line that is not JSON on stdout: ${text.slice(0, 200)}`);
      return null;
    }
    const why = validateAgentMessage(rec.msg, (id) => this.sentMethods.get(idKey(id)));
    if (why) this.problems.push(`${why}\n    in: ${text.slice(0, 400)}`);
    for (const l of this.listeners) l(rec);
    const m = rec.msg;
    const isResponse = m && typeof m === "object" && !Array.isArray(m) && !("method" in m);
    if (isResponse && (m.id === null || (typeof m.id === "string" && m.id.startsWith("raw-")))) return null;
    return text;
  }

  /** Writes one raw line to shim's stdin, bypassing the SDK. */
  writeRaw(line) {
    this.recordSent(line);
    this.child.stdin.write(line + "\n");
  }

  /** Raw lines received after index `from` (default 0). */
  messages(from = 0) {
    return this.received.slice(from).map((r) => r.msg);
  }

  /** The session/update payloads shim sent for a session, in order. */
  updates(sessionId, from = 0) {
    return this.received
      .slice(from)
      .filter((r) => r.msg?.method === "session/update" && r.msg.params?.sessionId === sessionId)
      .map((r) => r.msg.params.update);
  }

  /** The raw record of the response to a request sent with this method (last one). */
  responseTo(method) {
    const ids = [...this.sentMethods].filter(([, m]) => m === method).map(([k]) => k);
    return this.received.filter((r) => r.msg && !("method" in r.msg) && ids.includes(idKey(r.msg.id)));
  }

  /** The request ids shim withdrew ($/cancel_request), in order. */
  withdrawn() {
    return this.received.filter((r) => r.msg?.method === "$/cancel_request").map((r) => r.msg.params?.requestId);
  }

  /** The credentials file shim stored sign-ins in (--config-dir), or null. */
  credentials() {
    try {
      return JSON.parse(readFileSync(join(this.configDir, "credentials.json"), "utf8"));
    } catch {
      return null;
    }
  }

  /** Requests shim sent to the client with this method. */
  requestsFromShim(method) {
    return this.received.filter((r) => r.msg?.method === method && Object.hasOwn(r.msg, "id") && r.msg.id !== null);
  }

  /**
   * Runs op with the SDK's ClientContext (connectWith), then closes stdin and
   * waits for shim to exit. Throws the op's error with shim's stderr tail.
   */
  async run(op, { timeout = 20000, outlive = false } = {}) {
    // connectWith ends the op when the connection closes; a scenario that
    // outlives shim (it closes stdin itself) holds a connect() handle instead.
    const drive = outlive
      ? (async () => {
          const conn = this.app.connect(this.stream);
          try {
            return await op(conn.agent, this);
          } finally {
            conn.close();
          }
        })()
      : this.app.connectWith(this.stream, (agent) => op(agent, this));
    try {
      await within(
        Promise.race([
          drive,
          this.spawnError.then((e) => {
            throw new Error(`cannot run ${SHIM_BIN}: ${e.message} (build it with make build, or set SHIM_BIN)`);
          }),
        ]),
        timeout,
        "the scenario",
      );
    } catch (err) {
      if (this.problems.length) err.message += `\n--- invalid ACP from shim ---\n${this.problems.join("\n")}`;
      err.message += `\n--- shim stderr (tail) ---\n${this.stderr.split("\n").slice(-40).join("\n")}`;
      throw err;
    } finally {
      await this.stop();
    }
  }

  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      const exited = await within(this.exited, 3000, "shim to exit").then(() => true, () => false);
      if (!exited) this.child.kill("SIGKILL");
      await this.exited;
    }
    if (process.env.E2E_TRACE) {
      console.error(`--- shim ${this.args.join(" ")}`);
      for (const r of this.sent) console.error(`→ ${r.text}`);
      for (const r of this.received) console.error(`← ${r.text}`);
      console.error(this.stderr);
    }
    rmSync(this.configDir, { recursive: true, force: true });
    if (this.ownState) rmSync(this.stateDir, { recursive: true, force: true });
  }

  /** Fails when any line shim wrote was not a valid ACP message. */
  assertClean(assert) {
    assert.deepEqual(this.problems, [], "every message shim writes must be valid ACP (schema v1)");
  }
}

/** initialize the way Zed does. */
export function initialize(agent, protocolVersion = 1, moreCapabilities = {}) {
  return agent.request("initialize", {
    protocolVersion,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, ...moreCapabilities },
    clientInfo: CLIENT_INFO,
  });
}

/** Text of the content blocks of updates of one kind, joined. */
export function textOf(updates, kind) {
  return updates
    .filter((u) => u.sessionUpdate === kind && u.content?.type === "text")
    .map((u) => u.content.text)
    .join("");
}

export function countOf(updates, kind) {
  return updates.filter((u) => u.sessionUpdate === kind).length;
}

export function textPrompt(sessionId, text) {
  return { sessionId, prompt: [{ type: "text", text }] };
}
