// The HTTP+JSON binding (SPEC §12.3) against the official A2A JavaScript
// server's REST handler, in both dialects: 1.0's routes, and 0.3's (its
// legacy REST router, legacyCompat) under /v1 with the ProtoJSON of the
// 0.3.0 proto, as Google's platforms serve it too. A streamed answer with a
// tool call (tool-call-v1 rides message metadata, which the 0.3.0 proto
// keeps; it has no part metadata, so a part's mime type does not cross),
// then a cancel while streaming; the requests the server got say which
// routes and bodies shim used.

import { test } from "node:test";
import assert from "node:assert/strict";
import { whenCancelled } from "../lib/agent.js";
import { DIALECTS } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

async function newSession(acp) {
  await initialize(acp);
  return (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
}

/** The REST routes the agent got, a task's id as {id}. */
function routes(agent, taskId) {
  return agent.requests.filter((r) => r.method === "REST").map((r) => r.path.split(taskId).join("{id}").replace(/\?.*/, ""));
}

// Each dialect's routes and the spelling of a sent message's parts.
const SPELLING = {
  "1.0": { prefix: "/rest", parts: "parts", role: "ROLE_USER" },
  "0.3": { prefix: "/rest/v1", parts: "content", role: "ROLE_USER" },
};

for (const dialect of DIALECTS) {
  const { prefix, parts, role } = SPELLING[dialect];

  test(`HTTP+JSON: a streamed answer with a tool call over ${prefix}/message:stream, the message spelled as the dialect's ProtoJSON [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      t.tool({ toolCallId: "c1", name: "read_file", phase: "started", args: JSON.stringify({ path: "server/a2a.py" }) });
      t.tool({ toolCallId: "c1", name: "read_file", phase: "completed", result: "def handle(): ..." });
      const id = `${t.taskId}-answer`;
      t.artifact(id, "It lives in ");
      t.artifact(id, "server/a2a.py.", { append: true, lastChunk: true });
      t.complete();
    };
    await scenario({ dialect, binding: "http+json", script }, async ({ acp, shim, agent }) => {
      const sessionId = await newSession(acp);
      const res = await acp.request("session/prompt", textPrompt(sessionId, "where is the handler?"));
      assert.equal(res.stopReason, "end_turn");
      const ups = shim.updates(sessionId);
      assert.equal(textOf(ups, "agent_message_chunk"), "It lives in server/a2a.py.");
      const cards = ups.filter((u) => u.toolCallId === "c1").map((u) => `${u.sessionUpdate}:${u.status ?? ""}`);
      assert.equal(cards[0], "tool_call:in_progress", `the tool card opens; got ${cards}`);
      assert.equal(cards.at(-1), "tool_call_update:completed", `and completes; got ${cards}`);

      const sends = agent.requests.filter((r) => r.path === `POST ${prefix}/message:stream`);
      assert.equal(sends.length, 1, `one POST ${prefix}/message:stream; the server got ${routes(agent, "")}`);
      const msg = sends[0].body.message;
      assert.equal(msg.role, role);
      assert.deepEqual(msg[parts], [{ text: "where is the handler?" }], `the text as ${parts}: ${JSON.stringify(msg)}`);
      assert.equal(msg.contextId, sessionId);
      assert.equal(msg.kind, undefined, "no 0.3 JSON-RPC kind tag");
      assert.equal(sends[0].headers["a2a-version"], dialect === "1.0" ? "1.0" : undefined);
      assert.equal(agent.requests.filter((r) => r.method !== "REST").length, 0, "no JSON-RPC");
    });
  });

  test(`HTTP+JSON: cancel while streaming posts ${prefix}/tasks/{id}:cancel [A2A ${dialect}]`, async () => {
    let streaming;
    const started = new Promise((r) => (streaming = r));
    const script = async (t) => {
      t.task();
      t.artifact(`${t.taskId}-answer`, "Counting:");
      streaming();
      await whenCancelled(t);
    };
    await scenario({ dialect, binding: "http+json", script }, async ({ acp, shim, agent }) => {
      const sessionId = await newSession(acp);
      const prompt = acp.request("session/prompt", textPrompt(sessionId, "count slowly"));
      await within(started, 5000, "the agent to start streaming");
      await waitFor(() => textOf(shim.updates(sessionId), "agent_message_chunk").includes("Counting:"), 5000, "the first chunk");
      await acp.notify("session/cancel", { sessionId });
      const res = await within(prompt, 2000, "the prompt to answer after session/cancel");
      assert.equal(res.stopReason, "cancelled");

      const taskId = agent.turns[0].taskId;
      await waitFor(() => agent.cancels.length > 0, 3000, "the executor's cancelTask");
      assert.deepEqual(agent.cancels, [taskId]);
      assert.ok(
        routes(agent, taskId).includes(`POST ${prefix}/tasks/{id}:cancel`),
        `POST ${prefix}/tasks/{id}:cancel; the server got ${routes(agent, taskId)}`,
      );
    });
  });
}
