// VoltAgent's own A2A server (@voltagent/a2a-server) on VoltAgent's own
// Hono server (@voltagent/server-hono), as a VoltAgent app runs it: one agent
// "helper" (VoltAgent's default in-memory memory, a `delete_file` tool that
// needs approval) behind the A2A server "helper", on 127.0.0.1 and a random
// port. The model is the AI SDK's MockLanguageModelV3
// (lib/frameworks/mock-model.js). Started by lib/frameworks/launch.js with
// lib/loopback.mjs preloaded (no outbound network).
//
// stdout: JSON lines {"event": ...} (the listening port, what the model saw,
// each run of the tool) among VoltAgent's own banner lines.
import { A2AServer } from "@voltagent/a2a-server";
import { Agent, VoltAgent, createTool } from "@voltagent/core";
import { honoServer } from "@voltagent/server-hono";
import { z } from "zod";
import { scriptedModel } from "./mock-model.js";

const report = (e) => process.stdout.write(JSON.stringify(e) + "\n");

const deleteFile = createTool({
  name: "delete_file",
  description: "Delete a file in the workspace",
  parameters: z.object({ path: z.string() }),
  needsApproval: true,
  execute: async ({ path }) => {
    report({ event: "tool", name: "delete_file", args: { path } });
    return { deleted: path };
  },
});

const helper = new Agent({
  name: "helper",
  instructions: "You help with files.",
  model: scriptedModel("VoltAgent", report),
  tools: [deleteFile],
  // A failed model call fails the task at once (the default retries 3 times with backoff).
  maxRetries: 0,
});

const volt = new VoltAgent({
  agents: { helper },
  a2aServers: { helper: new A2AServer({ name: "helper", version: "0.1.0", description: "Helps with files." }) },
  // Port 0: the OS picks a free one (VoltAgent's port manager takes it as asked).
  server: honoServer({ port: 0, hostname: "127.0.0.1", enableSwaggerUI: false }),
});

// VoltAgent starts its server in the background; report the port once it listens.
const started = Date.now();
const poll = setInterval(() => {
  const http = volt.getServerInstance()?.server;
  const addr = http?.listening ? http.address() : null;
  if (addr && typeof addr === "object" && addr.port) {
    clearInterval(poll);
    report({ event: "listening", port: addr.port });
  } else if (Date.now() - started > 50000) {
    clearInterval(poll);
    console.error("VoltAgent's server did not start");
    process.exit(1);
  }
}, 20);
process.on("SIGTERM", () => process.exit(0));
