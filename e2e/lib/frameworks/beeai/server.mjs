// BeeAI Framework's own A2A server (beeai-framework's A2AServer on the
// @a2a-js/sdk 0.3.14 it takes as a peer), as its documentation serves an
// agent: a ToolCallingAgent "helper" (the agent type its A2A server serves,
// with ReActAgent) with an UnconstrainedMemory and a `delete_file` tool
// (BeeAI's TypeScript tools have no approval step), registered on
// `A2AServer` and served by `serve()` on 127.0.0.1. The card names the
// address the launcher's proxy listens on (`url`, as a deployment names its
// public one). The model is the AI SDK's MockLanguageModelV3
// (lib/frameworks/mock-model.js) through BeeAI's own Vercel adapter
// (`VercelChatModel`); BeeAI's ToolCallingAgent calls it without streaming
// and answers only through its `final_answer` tool, so the scripted model
// sends its text as that tool's call. Started by lib/frameworks/launch.js
// with lib/loopback.mjs preloaded (no outbound network).
//
// This directory is its own npm project (package.json, package-lock.json,
// .npmrc): BeeAI takes @a2a-js/sdk ^0.3.4 as a peer, and the suite's own is
// 1.x.
//
// stdout: one JSON line per event: {"event":"listening","port":N}, then what
// the model saw, and each run of the tool; BeeAI's own log lines (JSON
// without "event") go to the launcher's log.
import http from "node:http";
import { once } from "node:events";
import { z } from "zod";
import { ToolCallingAgent } from "beeai-framework/agents/toolCalling/agent";
import { UnconstrainedMemory } from "beeai-framework/memory/unconstrainedMemory";
import { VercelChatModel } from "beeai-framework/adapters/vercel/backend/chat";
import { A2AServer } from "beeai-framework/adapters/a2a/serve/server";
import { DynamicTool, JSONToolOutput } from "beeai-framework/tools/base";
import { scriptedModel } from "../mock-model.js";

const report = (e) => process.stdout.write(JSON.stringify(e) + "\n");

/** BeeAI's adapter for any AI SDK language model (its provider packages subclass it the same way). */
class ScriptedChatModel extends VercelChatModel {}

const deleteFile = new DynamicTool({
  name: "delete_file",
  description: "Delete a file in the workspace",
  inputSchema: z.object({ path: z.string() }),
  handler: async ({ path }) => {
    report({ event: "tool", name: "delete_file", args: { path } });
    return new JSONToolOutput({ deleted: path });
  },
});

const helper = new ToolCallingAgent({
  llm: new ScriptedChatModel(scriptedModel("BeeAI", report, { answerTool: "final_answer", slowDelay: 50 })),
  memory: new UnconstrainedMemory(),
  tools: [deleteFile],
  meta: { name: "helper", description: "Helps with files." },
});

const port = Number(process.env.E2E_PUBLIC_PORT);
const server = new A2AServer({ host: "127.0.0.1", port: 0, protocol: "jsonrpc" }).register(helper, {
  name: "helper",
  description: "Helps with files.",
  ...(port ? { url: `http://127.0.0.1:${port}` } : {}),
});

// serve() listens on the configured port and keeps its HTTP server to
// itself; port 0 lets the OS pick a free one, read back from the server it
// creates (the one http.Server listen() call serve() makes).
const made = [];
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  made.push(this);
  return listen.apply(this, args);
};
await server.serve();
http.Server.prototype.listen = listen;
const [httpServer] = made;
if (!httpServer.listening) await once(httpServer, "listening");
report({ event: "listening", port: httpServer.address().port });
process.on("SIGTERM", () => {
  httpServer.close(() => process.exit(0));
  httpServer.closeAllConnections();
});
