// Records what each framework's own A2A server sends, for Go golden tests:
//
//   node lib/frameworks/capture.mjs ../bridge/testdata/frameworks
//
// For each framework (lib/frameworks/launch.js) it runs the e2e scenarios as
// plain HTTP requests shaped like shim's (0.3 JSON-RPC, and what the
// framework does with A2A-Version: 1.0 and the 1.0 method names) and writes,
// per exchange, the request (`NN-name.request.json`: method, path, headers,
// body) and the raw response body as received (`NN-name.response.sse` for a
// stream, `.json` otherwise), plus `exchanges.json` (status and content type
// of each). Ids and timestamps are the server's own, as sent.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { FRAMEWORKS, startFramework } from "./launch.js";

const out = resolve(process.argv[2] ?? "captures");
const only = process.argv[3];

function message(text, { contextId, taskId, parts } = {}) {
  return {
    kind: "message",
    role: "user",
    messageId: `msg-${Math.random().toString(16).slice(2, 10)}`,
    ...(contextId ? { contextId } : {}),
    ...(taskId ? { taskId } : {}),
    parts: parts ?? [{ kind: "text", text }],
  };
}

function v1message(text, { contextId, taskId } = {}) {
  return {
    role: "ROLE_USER",
    messageId: `msg-${Math.random().toString(16).slice(2, 10)}`,
    ...(contextId ? { contextId } : {}),
    ...(taskId ? { taskId } : {}),
    parts: [{ text }],
  };
}

class Recorder {
  constructor(dir, fw) {
    this.dir = dir;
    this.fw = fw;
    this.n = 0;
    this.index = [];
    this.id = 0;
  }

  static file(n, name, ext) {
    return `${String(n).padStart(2, "0")}-${name}.${ext}`;
  }

  /** One HTTP exchange; `onChunk(textSoFar)` sees a stream as it arrives. */
  async exchange(name, { method = "POST", path, headers = {}, body, onChunk, signal }) {
    const n = ++this.n;
    const reqHeaders = { ...(body ? { "Content-Type": "application/json" } : {}), ...headers };
    const req = { method, path, headers: reqHeaders, ...(body ? { body } : {}) };
    writeFileSync(join(this.dir, Recorder.file(n, name, "request.json")), JSON.stringify(req, null, 2) + "\n");
    const started = Date.now();
    const res = await fetch(this.fw.url + path, { method, headers: reqHeaders, body: body ? JSON.stringify(body) : undefined, signal });
    const type = res.headers.get("content-type") ?? "";
    let text = "";
    const dec = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        text += dec.decode(chunk, { stream: true });
        if (onChunk) await onChunk(text);
      }
    } catch (e) {
      // The client gave the stream up (`signal`, as shim drops a cancelled turn's stream): what came is kept.
      if (!signal?.aborted) throw e;
    }
    text += dec.decode();
    const ext = type.startsWith("text/event-stream") ? "response.sse" : "response.json";
    writeFileSync(join(this.dir, Recorder.file(n, name, ext)), text);
    // ms: from the request to the response's last byte (a prompt that waited for an earlier run shows here).
    this.index.push({ n, name, method, path, a2aVersion: reqHeaders["A2A-Version"] ?? null, rpc: body?.method ?? null, status: res.status, contentType: type, response: Recorder.file(n, name, ext), ms: Date.now() - started });
    return { text, status: res.status, frames: sseFrames(text) };
  }

  rpc(name, method, params, { v1 = false, stream = false, onChunk, signal } = {}) {
    const headers = { ...(v1 ? { "A2A-Version": "1.0" } : {}), ...(stream ? { Accept: "text/event-stream" } : {}) };
    return this.exchange(name, { path: this.fw.endpointPath, headers, body: { jsonrpc: "2.0", id: ++this.id, method, params }, onChunk, signal });
  }

  save() {
    this.index.sort((a, b) => a.n - b.n);
    writeFileSync(join(this.dir, "exchanges.json"), JSON.stringify(this.index, null, 2) + "\n");
  }
}

function sseFrames(text) {
  return text
    .split(/\r?\n\r?\n/)
    // (VoltAgent puts an ASCII record separator, U+001E, before each JSON: dropped here to find ids.)
    .map((ev) => ev.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart().replace(/^\u001e/, "")).join("\n"))
    .filter(Boolean)
    .map((d) => {
      try {
        return JSON.parse(d);
      } catch {
        return d;
      }
    });
}

const taskIdOf = (frames) => {
  for (const f of frames) {
    const r = f?.result;
    if (!r) continue;
    if (r.kind === "task" || (r.id && r.status)) return r.id;
    if (r.taskId) return r.taskId;
    if (r.task?.id) return r.task.id;
    if (r.statusUpdate?.taskId) return r.statusUpdate.taskId;
  }
  return undefined;
};

async function captureOne(name, root) {
  const fw = await startFramework(name);
  const dir = join(root, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  fw.streamsText = FRAMEWORKS[name].streamsText;
  const rec = new Recorder(dir, { url: fw.url, endpointPath: new URL(fw.endpoint).pathname });
  const cardPath = new URL(fw.cardUrl).pathname;
  try {
    await rec.exchange("card", { method: "GET", path: cardPath });
    await rec.exchange("card-a2a-version-1.0", { method: "GET", path: cardPath, headers: { "A2A-Version": "1.0" } });
    if (cardPath !== "/.well-known/agent-card.json") await rec.exchange("card-at-base-well-known", { method: "GET", path: "/.well-known/agent-card.json" });

    const ctx = "ctx-capture-1";
    // A streamed answer, then a second prompt on the same context.
    const answer = await rec.rpc("answer-stream", "message/stream", { message: message("Say hello.", { contextId: ctx }) }, { stream: true });
    const second = await rec.rpc("second-prompt-stream", "message/stream", { message: message("What did I say? [scenario:second]", { contextId: ctx }) }, { stream: true });

    // The same ask without streaming (message/send).
    await rec.rpc("answer-send", "message/send", { message: message("Say hello.", { contextId: "ctx-capture-send" }) });

    // A failure.
    const failure = await rec.rpc("failure-stream", "message/stream", { message: message("Break. [scenario:fail]", { contextId: ctx }) }, { stream: true });

    // A cancel while the answer streams: tasks/cancel after the first text
    // (BeeAI streams no text: once its model is working on the answer).
    let cancelled = false;
    let cancelTask;
    let streamed = "";
    const cancel = (text) => {
      if (cancelled) return;
      cancelled = true;
      cancelTask = taskIdOf(sseFrames(text));
      // Not awaited here: the cancel answer and the stream's end race, as in life.
      rec.pendingCancel = rec.rpc("cancel-request", "tasks/cancel", { id: cancelTask });
    };
    const from = fw.events.length;
    const working = fw.streamsText === false
      ? fw.waitEvent((e) => e.event === "model" && e.scenario === "slow", { from, what: "the slow model call" }).then(() => new Promise((ok) => setTimeout(ok, 300))).then(() => cancel(streamed))
      : null;
    await rec.rpc("cancel-stream", "message/stream", { message: message("Go slowly. [scenario:slow]", { contextId: ctx }) }, {
      stream: true,
      onChunk: async (text) => {
        streamed = text;
        if (text.includes("slow 2.")) cancel(text);
      },
    });
    if (working) await working;
    if (rec.pendingCancel) await rec.pendingCancel;

    // An approval: a tool that needs approval (delete_file), then the answer.
    const park = await rec.rpc("approval-park-stream", "message/stream", { message: message("Delete the old notes. [scenario:delete]", { contextId: ctx }) }, { stream: true });
    const parkedTask = taskIdOf(park.frames);
    const last = park.frames.at(-1)?.result;
    const state = last?.status?.state ?? last?.statusUpdate?.status?.state;
    if (state === "input-required" && parkedTask && name !== "adk") {
      // The answer as SPEC §12.8 sends a form's values: a data part, and its JSON as text.
      await rec.rpc("approval-resume-stream", "message/stream", {
        message: message("", { contextId: ctx, taskId: parkedTask, parts: [{ kind: "data", data: { approved: true } }, { kind: "text", text: "{\"approved\":true}" }] }),
      }, { stream: true });
    } else if (state === "input-required" && parkedTask) {
      // ADK: the person's answer as shim sends a text answer (§6), then the
      // answer ADK documents (a FunctionResponse to adk_request_confirmation,
      // ToolConfirmation confirmed), which its toA2a server refuses from a peer.
      await rec.rpc("approval-resume-text-stream", "message/stream", {
        message: { ...message("yes", { contextId: ctx, taskId: parkedTask }), metadata: { hitl_resume: true } },
      }, { stream: true });
      const ask = last.status.message.parts.find((p) => p.data?.name === "adk_request_confirmation")?.data;
      await rec.rpc("approval-resume-function-response-stream", "message/stream", {
        message: message("", { contextId: ctx, taskId: parkedTask, parts: [{ kind: "data", data: { id: ask?.id, name: "adk_request_confirmation", response: { confirmed: true } }, metadata: { adk_type: "function_response" } }] }),
      }, { stream: true });
    }

    // History: each task read back (0.3 tasks/get, with history).
    for (const [i, r] of [answer, second, park].entries()) {
      const id = taskIdOf(r.frames);
      if (id) await rec.rpc(`history-tasks-get-${i + 1}`, "tasks/get", { id, historyLength: 100 });
    }
    if (cancelTask) await rec.rpc("history-tasks-get-cancelled", "tasks/get", { id: cancelTask, historyLength: 100 });
    // tasks/get without historyLength (the server's choice; shim's 0.3 replay sends one).
    const first = taskIdOf(answer.frames);
    if (first) await rec.rpc("history-tasks-get-1-no-history-length", "tasks/get", { id: first });

    // The 1.0 dialect: A2A-Version 1.0 with the 1.0 method names, and with 0.3's.
    const ctx1 = "ctx-capture-v1";
    await rec.rpc("v1-SendStreamingMessage", "SendStreamingMessage", { message: v1message("Say hello.", { contextId: ctx1 }) }, { v1: true, stream: true });
    await rec.rpc("v1-message-stream", "message/stream", { message: v1message("Say hello.", { contextId: ctx1 }) }, { v1: true, stream: true });
    await rec.rpc("v1-ListTasks", "ListTasks", { contextId: ctx, includeArtifacts: true }, { v1: true });
    await rec.rpc("v1-tasks-list", "tasks/list", { contextId: ctx, includeArtifacts: true }, { v1: true });
    await rec.rpc("v1-GetTask", "GetTask", { id: taskIdOf(answer.frames), historyLength: 100 }, { v1: true });

    // SPEC §16's readings, recorded for every framework (after the rest, so
    // the numbering of the exchanges above stays as it was):
    // the A2A 0.2 card path at the base;
    await rec.exchange("card-at-0.2-path", { method: "GET", path: "/.well-known/agent.json" });
    // the failed run's task read back (what its first frame named), and the
    // same failure without streaming (message/send);
    const failedTask = taskIdOf(failure.frames);
    if (failedTask) await rec.rpc("history-tasks-get-failed", "tasks/get", { id: failedTask, historyLength: 100 });
    await rec.rpc("failure-send", "message/send", { message: message("Break. [scenario:fail]", { contextId: "ctx-capture-send" }) });
    // an approval that did not park (the task ended instead): the person's
    // answer as the next prompt on that context, as shim sends a reply, then
    // one more prompt there.
    if (state !== "input-required") {
      await rec.rpc("approval-answer-next-prompt-stream", "message/stream", { message: message("yes", { contextId: ctx }) }, { stream: true });
      await rec.rpc("after-approval-prompt-stream", "message/stream", { message: message("Say hello.", { contextId: ctx }) }, { stream: true });
    }
    // A cancel as shim makes it: tasks/cancel, then the stream given up
    // once it is answered; then the next prompt on that context at once
    // (its `ms` shows whether it waited for the cancelled run).
    const ctxCancel = "ctx-capture-cancel";
    const gaveUp = new AbortController();
    let cancelled2 = false;
    let streamed2 = "";
    const cancel2 = (text) => {
      if (cancelled2) return;
      cancelled2 = true;
      rec.pendingCancel2 = rec.rpc("cancel-2-request", "tasks/cancel", { id: taskIdOf(sseFrames(text)) }).finally(() => gaveUp.abort());
    };
    const from2 = fw.events.length;
    const working2 = fw.streamsText === false
      ? fw.waitEvent((e) => e.event === "model" && e.scenario === "slow", { from: from2, what: "the slow model call" }).then(() => new Promise((ok) => setTimeout(ok, 300))).then(() => cancel2(streamed2))
      : null;
    await rec.rpc("cancel-2-stream", "message/stream", { message: message("Go slowly. [scenario:slow]", { contextId: ctxCancel }) }, {
      stream: true,
      signal: gaveUp.signal,
      onChunk: async (text) => {
        streamed2 = text;
        if (text.includes("slow 2.")) cancel2(text);
      },
    });
    if (working2) await working2;
    if (rec.pendingCancel2) await rec.pendingCancel2;
    await rec.rpc("after-cancel-prompt-stream", "message/stream", { message: message("Say hello.", { contextId: ctxCancel }) }, { stream: true });
  } finally {
    rec.save();
    await fw.close();
  }
  console.log(`${name}: ${rec.n} exchanges in ${dir}`);
}

for (const name of only ? [only] : ["mastra", "voltagent", "adk", "strands", "beeai"]) await captureOne(name, out);
