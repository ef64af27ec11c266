// Google ADK for TypeScript's own A2A server, as ADK's docs expose an agent
// over A2A: an `LlmAgent` "helper" on Gemini (`model: "gemini-2.5-flash"`,
// ADK's own `Gemini` class and the `@google/genai` client it uses), with a
// `delete_file` `FunctionTool` that needs confirmation
// (`requireConfirmation: true`, ADK's human-in-the-loop), turned into an
// Express app by `toA2a` (@google/adk/a2a) on 127.0.0.1 and a random port.
//
// ADK ships no mock model, so the model is not replaced: ADK's Gemini client
// is pointed at a scripted Gemini API on loopback (GOOGLE_GEMINI_BASE_URL,
// read by @google/genai; lib/gemini-model.js with the script below), so
// ADK's whole path runs: its LLM registry, Gemini class, genai's streaming
// and ADK's response aggregation. Started by lib/frameworks/launch.js with
// lib/loopback.mjs preloaded (no outbound network).
//
// The card names the address the launcher's recording proxy listens on
// (E2E_PUBLIC_PORT), as a deployment names its public address.
//
// stdout: JSON lines {"event": ...}: the listening port, what the model saw
// ("model" with the user texts it was given), a reply the client dropped
// ("model-aborted"), each run of the tool.
import express from "express";
import { FunctionTool, LlmAgent } from "@google/adk";
import { toA2a } from "@google/adk/a2a";
import { z } from "zod";
import { chunk, startModel } from "../gemini-model.js";

const report = (e) => process.stdout.write(JSON.stringify(e) + "\n");
const WHO = "ADK";

/** The user texts the model was given, oldest first (what it "remembers"). */
function userTexts(contents) {
  return contents
    .filter((c) => c.role === "user")
    .map((c) => (c.parts ?? []).filter((p) => typeof p.text === "string" && !p.thought).map((p) => p.text).join(""))
    .filter(Boolean);
}

function scenarioOf(contents) {
  const last = contents.at(-1) ?? { parts: [] };
  const tools = (last.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse.name);
  if (tools.length) return { name: "tool-result", tools };
  const texts = userTexts(contents);
  return { name: /\[scenario:([a-z-]+)\]/.exec(texts.at(-1) ?? "")?.[1] ?? "answer" };
}

const text = (deltas, delay) => ({ delay, frames: deltas.map((t, i) => chunk([{ text: t }], i === deltas.length - 1)) });

function script(body) {
  const contents = body.contents ?? [];
  const s = scenarioOf(contents);
  report({ event: "model", scenario: s.name, userTexts: userTexts(contents) });
  switch (s.name) {
    case "tool-result":
      return text(["The tool ", s.tools.join(", "), " ran."]);
    case "delete":
      return { frames: [chunk([{ functionCall: { name: "delete_file", args: { path: "notes/old.txt" } } }], true)] };
    case "fail":
      // What the Gemini API answers when the quota is used up.
      return { status: 429, error: { code: 429, message: "The usage limit has been reached", status: "RESOURCE_EXHAUSTED" } };
    case "slow":
      return text(Array.from({ length: 60 }, (_, i) => `slow ${i + 1}. `), 150);
    case "second": {
      const earlier = userTexts(contents).slice(0, -1);
      return text(["Earlier you said: ", earlier.map((t) => JSON.stringify(t)).join(", ") || "nothing", "."]);
    }
    default:
      return text(["Hello", " from", ` ${WHO}.`]);
  }
}

const model = await startModel(process.cwd(), {
  script,
  onAbort: (body) => report({ event: "model-aborted", scenario: scenarioOf(body.contents ?? []).name }),
});
process.env.GOOGLE_GEMINI_BASE_URL = model.url;
process.env.GEMINI_API_KEY ??= "offline-e2e";

const deleteFile = new FunctionTool({
  name: "delete_file",
  description: "Delete a file in the workspace",
  parameters: z.object({ path: z.string() }),
  requireConfirmation: true,
  execute: async ({ path }) => {
    report({ event: "tool", name: "delete_file", args: { path } });
    return { deleted: path };
  },
});

const helper = new LlmAgent({
  name: "helper",
  model: "gemini-2.5-flash",
  description: "Helps with files.",
  instruction: "You help with files.",
  tools: [deleteFile],
});

// The app listens first, so that the card can name the public port.
const app = express();
app.use(express.json({ limit: "50mb" }));
const server = app.listen(0, "127.0.0.1");
await new Promise((ok) => server.once("listening", ok));
const port = Number(process.env.E2E_PUBLIC_PORT) || server.address().port;
// Loopback, no sign-in (toA2a fails closed without one unless told).
await toA2a(helper, { app, host: "127.0.0.1", port, allowUnauthenticated: true });
report({ event: "listening", port: server.address().port });
process.on("SIGTERM", () => {
  model.close();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
