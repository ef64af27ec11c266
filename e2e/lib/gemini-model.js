// A scripted stand-in for the Gemini API (v1beta streamGenerateContent, SSE)
// on 127.0.0.1, for running @google/gemini-cli-a2a-server offline (and, with
// its own script, Google ADK's agents: lib/frameworks/adk.mjs). The reply
// is chosen by a "[scenario:NAME]" tag in the newest user text; a request
// whose last content holds functionResponse parts (a tool result) gets a
// short closing answer. Every request is recorded.
import http from "node:http";
import path from "node:path";

export const chunk = (parts, finish) => ({
  candidates: [{ content: { role: "model", parts }, index: 0, ...(finish ? { finishReason: "STOP" } : {}) }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  modelVersion: "gemini-2.5-pro",
});

export function newestUserText(contents) {
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role !== "user") continue;
    const t = (contents[i].parts ?? []).filter((p) => typeof p.text === "string").map((p) => p.text).join("\n");
    if (t) return t;
  }
  return "";
}

function reply(body, workspace) {
  const contents = body.contents ?? [];
  const last = contents[contents.length - 1] ?? { parts: [] };
  const tools = (last.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse.name);
  if (tools.length) return { frames: [chunk([{ text: `The tool ${tools.join(", ")} ran.` }]), chunk([{ text: " Done." }], true)] };
  const scenario = /\[scenario:([a-z]+)\]/.exec(newestUserText(contents))?.[1];
  switch (scenario) {
    case "thought":
      return { frames: [
        chunk([{ text: "**Planning**\n\nA short answer will do.", thought: true }]),
        chunk([{ text: "Thought it through." }], true),
      ] };
    case "read":
      return { frames: [chunk([{ functionCall: { name: "read_file", args: { file_path: path.join(workspace, "hello.txt") } } }], true)] };
    case "shell":
      return { frames: [chunk([{ functionCall: { name: "run_shell_command",
        args: { command: "echo ran > shell-out.txt", description: "write a marker" } } }], true)] };
    case "slow":
      return { delay: 300, frames: Array.from({ length: 30 }, (_, i) => chunk([{ text: `slow ${i + 1}. ` }], i === 29)) };
    default:
      return { frames: [chunk([{ text: "Hello" }]), chunk([{ text: " from the model." }], true)] };
  }
}

/**
 * Starts the model; resolves to {url, requests, close()}.
 *
 * `script(body)`, when given, replaces Gemini CLI's script: it returns
 * {frames, delay} (frames as `chunk` builds them), or {status, error} for an
 * API error. `onAbort(body)` runs when the client drops a reply before its end.
 */
export function startModel(workspace, { script, onAbort } = {}) {
  const requests = [];
  const server = http.createServer(async (req, res) => {
    let raw = "";
    for await (const d of req) raw += d;
    let body = {};
    try { body = JSON.parse(raw || "{}"); } catch {}
    requests.push({ path: req.url, body });
    if (!/:streamGenerateContent/.test(req.url)) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: 404, message: "not scripted", status: "NOT_FOUND" } }));
      return;
    }
    const r = script ? script(body) : reply(body, workspace);
    if (r.error) {
      res.writeHead(r.status, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: r.error }));
      return;
    }
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    for (const f of r.frames) {
      await new Promise((ok) => setTimeout(ok, r.delay ?? 10));
      if (res.destroyed) {
        onAbort?.(body);
        break;
      }
      res.write(`data: ${JSON.stringify(f)}\r\n\r\n`);
    }
    res.end();
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, requests,
        close: () => new Promise((ok) => { server.closeAllConnections(); server.close(ok); }) });
    });
  });
}
