// Mastra's own A2A server, run as `mastra dev` / `mastra build` run it: one
// Mastra instance with an agent "helper" (memory on an in-memory store, a
// `delete_file` tool that needs approval), served by Mastra's Hono adapter
// (@mastra/hono's MastraServer with the A2A task store @mastra/server ships)
// on 127.0.0.1 and a random port. The model is the AI SDK's MockLanguageModelV3
// (lib/frameworks/mock-model.js). Started by lib/frameworks/launch.js with
// lib/loopback.mjs preloaded (no outbound network).
//
// stdout: one JSON line per event: {"event":"listening","port":N}, then
// what the model saw, and each run of the tool.
import { Mastra } from "@mastra/core";
import { Agent } from "@mastra/core/agent";
import { InMemoryStore } from "@mastra/core/storage";
import { createTool } from "@mastra/core/tools";
import { Memory } from "@mastra/memory";
import { MastraServer } from "@mastra/hono";
import { InMemoryTaskStore } from "@mastra/server/a2a/store";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { z } from "zod";
import { scriptedModel } from "./mock-model.js";

const report = (e) => process.stdout.write(JSON.stringify(e) + "\n");

const deleteFile = createTool({
  id: "delete_file",
  description: "Delete a file in the workspace",
  inputSchema: z.object({ path: z.string() }),
  requireApproval: true,
  execute: async ({ path }) => {
    report({ event: "tool", name: "delete_file", args: { path } });
    return { deleted: path };
  },
});

const storage = new InMemoryStore();
const helper = new Agent({
  id: "helper",
  name: "helper",
  instructions: "You help with files.",
  model: scriptedModel("Mastra", report),
  tools: { delete_file: deleteFile },
  memory: new Memory({ storage, options: { lastMessages: 20 } }),
});
const mastra = new Mastra({ agents: { helper }, storage, logger: false });

const app = new Hono();
await new MastraServer({ app, mastra, taskStore: new InMemoryTaskStore() }).init();
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => report({ event: "listening", port: info.port }));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
