// Strands Agents' own A2A server (@strands-agents/sdk's A2AExpressServer on
// the @a2a-js/sdk 0.3.14 it takes as a peer), as its documentation runs it:
// one agent "helper" per A2A context (`agentFactory`), a `delete_file` tool
// behind Strands' human-in-the-loop intervention (`HumanInTheLoop`: every
// tool call needs approval), served by the server's own Express router
// (`createMiddleware`, mounted on an Express app) on 127.0.0.1 and a random
// port. The card names the address the launcher's proxy listens on
// (`httpUrl`, as a deployment names its public one). The model is the AI
// SDK's MockLanguageModelV3 (lib/frameworks/mock-model.js) through Strands'
// own `VercelModel` adapter. Started by lib/frameworks/launch.js with
// lib/loopback.mjs preloaded (no outbound network).
//
// This directory is its own npm project (package.json, package-lock.json):
// Strands takes @a2a-js/sdk ^0.3.10 as a peer, and the suite's own is 1.x.
//
// stdout: one JSON line per event: {"event":"listening","port":N}, then what
// the model saw, and each run of the tool.
import express from "express";
import { z } from "zod";
import { Agent, tool } from "@strands-agents/sdk";
import { A2AExpressServer } from "@strands-agents/sdk/a2a/express";
import { VercelModel } from "@strands-agents/sdk/models/vercel";
import { HumanInTheLoop } from "@strands-agents/sdk/vended-interventions/hitl";
import { scriptedModel } from "../mock-model.js";

const report = (e) => process.stdout.write(JSON.stringify(e) + "\n");

const deleteFile = tool({
  name: "delete_file",
  description: "Delete a file in the workspace",
  inputSchema: z.object({ path: z.string() }),
  callback: async ({ path }) => {
    report({ event: "tool", name: "delete_file", args: { path } });
    return { deleted: path };
  },
});

const helper = () =>
  new Agent({
    name: "helper",
    description: "Helps with files.",
    systemPrompt: "You help with files.",
    model: new VercelModel({ provider: scriptedModel("Strands", report, { slowDelay: 50 }) }),
    tools: [deleteFile],
    interventions: [new HumanInTheLoop()],
    printer: false,
  });

const app = express();
const server = app.listen(0, "127.0.0.1");
await new Promise((ok) => server.once("listening", ok));
const publicPort = Number(process.env.E2E_PUBLIC_PORT) || server.address().port;
const a2a = new A2AExpressServer({
  agentFactory: helper,
  name: "helper",
  description: "Helps with files.",
  httpUrl: `http://127.0.0.1:${publicPort}`,
});
app.use(a2a.createMiddleware());
report({ event: "listening", port: server.address().port });
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
