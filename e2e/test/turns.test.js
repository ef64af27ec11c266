// Turns that do not complete: a failed task (SPEC §4.3 stop reasons, §18) and
// a cancel while streaming (SPEC §7 with --steer-grace 0).

import { test } from "node:test";
import assert from "node:assert/strict";
import { whenCancelled } from "../lib/agent.js";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const RAW_429 =
  "Error code: 429 - {'error': {'type': 'usage_limit_reached', 'message': 'The usage limit has been reached'}}";
const FRIENDLY = "The usage limit has been reached (HTTP 429, usage_limit_reached)";

async function newSession(acp) {
  await initialize(acp);
  return (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
}

for (const dialect of DIALECTS) {
  test(`failed turn: JSON-RPC error -32603 with data {state, taskId, detail}, said once (no ⚠️ chunk) [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      t.working();
      await t.sleep(15);
      t.fail(RAW_429);
    };
    await scenario({ dialect, script, name: "Tide Agent" }, async ({ acp, shim, agent }) => {
      const sessionId = await newSession(acp);
      const err = await acp.request("session/prompt", textPrompt(sessionId, "hello")).then(
        (res) => assert.fail(`the prompt must fail; it answered ${JSON.stringify(res)}`),
        (e) => e,
      );
      assert.equal(err.code, -32603, `code; got ${err.code} ${err.message}`);
      assert.equal(err.message, `Tide Agent: ${FRIENDLY}`);
      assert.equal(err.data?.state, "failed");
      assert.equal(err.data?.taskId, agent.turns[0].taskId);
      assert.equal(err.data?.detail, RAW_429);

      // Said once (SPEC §18): the error, and no ⚠️ line as answer text too.
      const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
      assert.equal(shown, "", `no answer text besides the error; got ${JSON.stringify(shown)}`);
    });
  });

  test(`cancel while streaming: stopReason cancelled at once, CancelTask reaches the server [A2A ${dialect}]`, async () => {
    let streaming;
    const started = new Promise((r) => (streaming = r));
    const script = async (t) => {
      t.task();
      const id = `${t.taskId}-answer`;
      t.artifact(id, "Counting:");
      streaming();
      const cancelled = whenCancelled(t);
      for (let i = 0; i < 200 && !t.cancelled; i++) {
        await Promise.race([t.sleep(50), cancelled]);
        t.artifact(id, ` ${i}`, { append: true });
      }
    };
    await scenario({ dialect, script }, async ({ acp, shim, agent }) => {
      const sessionId = await newSession(acp);
      const prompt = acp.request("session/prompt", textPrompt(sessionId, "count slowly"));
      await within(started, 5000, "the agent to start streaming");
      await waitFor(() => textOf(shim.updates(sessionId), "agent_message_chunk").includes("Counting:"), 5000, "the first chunk");
      const t0 = Date.now();
      await acp.notify("session/cancel", { sessionId });
      const res = await within(prompt, 2000, "the prompt to answer after session/cancel");
      assert.equal(res.stopReason, "cancelled");
      assert.ok(Date.now() - t0 < 1000, `cancelled at once; took ${Date.now() - t0} ms`);

      const taskId = agent.turns[0].taskId;
      await waitFor(() => agent.calls(wire(dialect).cancel).length > 0, 3000, `${wire(dialect).cancel} on the server`).catch(() => {});
      const cancels = agent.calls(wire(dialect).cancel);
      assert.equal(cancels.length, 1, `one ${wire(dialect).cancel}; the server got ${agent.methods()}`);
      assert.equal(cancels[0].params.id, taskId);
      assert.deepEqual(agent.cancels, [taskId], "the executor's cancelTask ran for the task");
    });
  });
}
