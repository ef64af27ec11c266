// VoltAgent's own A2A server (lib/frameworks/voltagent.mjs), pointed at its
// card and at its endpoint alone (lib/frameworks/suite.js). Every event of
// its streams carries U+001E before the JSON (`data: \x1e{"jsonrpc":…}`),
// as RFC 7464 JSON text sequences do; shim reads the JSON after it (SPEC
// §16, record separators). What a person sees: the answer, streamed; a
// failed run as that failure; and shim keeps serving.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { startFramework } from "../lib/frameworks/launch.js";
import { WAYS, drive, newSession, rejection, rpcs } from "../lib/frameworks/suite.js";
import { tempDir, textOf, textPrompt, within } from "../lib/shim.js";

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
    test(`voltagent: its events start with U+001E before the JSON: read as the JSON after it, the answer shown; a failed run fails; shim keeps serving [${way}]`, async () => {
      await drive(fw, way, async (acp, shim) => {
        const mark = fw.exchanges.length;
        const sessionId = await newSession(acp, cwd);
        const res = await within(acp.request("session/prompt", textPrompt(sessionId, "Say hello.")), 10000, "the answer");
        assert.equal(res.stopReason, "end_turn");
        assert.equal(textOf(shim.updates(sessionId), "agent_message_chunk"), "Hello from VoltAgent.");
        const err = await rejection(within(acp.request("session/prompt", textPrompt(sessionId, "Break. [scenario:fail]")), 10000, "the failure"));
        assert.equal(err.code, -32603, `code; got ${err.code} ${err.message}`);
        assert.doesNotMatch(err.message, /not JSON/);
        assert.doesNotMatch(err.message, /[\u0000-\u001f\u007f-\u009f]/, "no control character reaches the editor");
        // Both prompts reached VoltAgent, and what it sent was U+001E-prefixed events.
        const streams = rpcs(fw, mark).filter((r) => r.method === "message/stream");
        assert.equal(streams.length, 2, "two message/stream");
        const endpointPath = new URL(fw.endpoint).pathname;
        const bodies = fw.exchanges.slice(mark).filter((e) => e.path === endpointPath && /"message\/stream"/.test(e.requestBody));
        for (const b of bodies) assert.ok(b.responseBody.startsWith("data: \u001e{"), `VoltAgent's stream starts ${JSON.stringify(b.responseBody.slice(0, 20))}`);
        // The log says once what the server did.
        assert.equal(shim.stderr.split("record separator (U+001E)").length - 1, 1, "one log line");
        // shim keeps serving: the next requests answer.
        const other = await acp.request("session/new", { cwd, mcpServers: [] });
        assert.ok(other.sessionId && other.sessionId !== sessionId, "a new session");
      });
    });
  }
});
