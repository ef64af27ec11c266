// VoltAgent's own A2A server (lib/frameworks/voltagent.mjs), pointed at its
// card and at its endpoint alone (lib/frameworks/suite.js). Every event of
// its streams carries U+001E before the JSON (`data: \x1e{"jsonrpc":…}`);
// A2A says an event's data is a JSON-RPC response, and U+001E is not JSON,
// so shim does not strip it (bridge/testdata/frameworks/README.md). What a
// person sees: each prompt ends at once with an error saying the agent's
// stream is not JSON, the character escaped (never a silent end, never a
// hang), and shim keeps serving. The scenarios of SPEC §12.8 that need a
// readable stream (answer, second prompt, cancel, failure, approval, history)
// run on the frameworks that send JSON (mastra.test.js, adk.test.js).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { startFramework } from "../lib/frameworks/launch.js";
import { WAYS, drive, newSession, rejection, rpcs } from "../lib/frameworks/suite.js";
import { tempDir, textPrompt, within } from "../lib/shim.js";

describe("VoltAgent's own A2A server", () => {
  let fw;
  let cwd;
  before(async () => {
    fw = await startFramework("voltagent");
    cwd = tempDir("shim-fw-cwd-");
  });
  after(async () => {
    await fw?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  for (const way of Object.keys(WAYS)) {
    test(`voltagent: its stream is not JSON (U+001E before every event): each prompt ends at once with an error saying so, the character escaped; shim keeps serving [${way}]`, async () => {
      await drive(fw, way, async (acp) => {
        const mark = fw.exchanges.length;
        const sessionId = await newSession(acp, cwd);
        // The agent's name is the card's; with --endpoint alone there is no card (§4.1).
        const agentName = way === "card" ? "helper" : "A2A agent";
        for (const ask of ["Say hello.", "Break. [scenario:fail]"]) {
          const err = await rejection(within(acp.request("session/prompt", textPrompt(sessionId, ask)), 10000, `the answer to ${JSON.stringify(ask)}`));
          assert.equal(err.code, -32603, `code; got ${err.code} ${err.message}`);
          assert.ok(err.message.startsWith(`${agentName}: the agent's stream is not JSON`), `the message says the stream is not JSON; got ${err.message}`);
          assert.ok(err.message.includes(String.raw`'\x1e'`), `the message names U+001E escaped; got ${err.message}`);
          assert.doesNotMatch(err.message, /[\u0000-\u001f\u007f-\u009f]/, "no control character reaches the editor");
        }
        // Both prompts reached VoltAgent, and what it sent was U+001E-prefixed events.
        const streams = rpcs(fw, mark).filter((r) => r.method === "message/stream");
        assert.equal(streams.length, 2, "two message/stream");
        const endpointPath = new URL(fw.endpoint).pathname;
        const bodies = fw.exchanges.slice(mark).filter((e) => e.path === endpointPath && /"message\/stream"/.test(e.requestBody));
        for (const b of bodies) assert.ok(b.responseBody.startsWith("data: \u001e{"), `VoltAgent's stream starts ${JSON.stringify(b.responseBody.slice(0, 20))}`);
        // shim keeps serving: the next requests answer.
        const other = await acp.request("session/new", { cwd, mcpServers: [] });
        assert.ok(other.sessionId && other.sessionId !== sessionId, "a new session");
        const list = await acp.request("session/list", { cwd });
        assert.ok(Array.isArray(list.sessions));
      });
    });
  }
});
