// Cancelling requests (SPEC §14), through the official ACP client's own
// cancellation (request(..., {cancellationSignal}) sends $/cancel_request):
// a session/load reading a thread's history, and a prompt waiting for a
// chat busy elsewhere, each answer -32800 at once and leave nothing half
// done; the other way, a permission dialog open when its turn is
// cancelled is withdrawn by shim ($/cancel_request), which the client
// sees as its handler's signal aborting. Then a client that advertises
// none of ACP's newer capabilities: nothing gated reaches it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { countOf, initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

async function newSession(acp, caps) {
  await initialize(acp, 1, caps);
  return (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
}

async function answer(t) {
  t.task();
  t.artifact(`${t.taskId}-answer`, "Hello.");
  t.complete();
}

/** Rejects unless p fails with the ACP error code. */
function rejectsWith(p, code, what) {
  return assert.rejects(within(p, 5000, what), (err) => {
    assert.equal(err.code, code, `${what}: ${err.message}`);
    return true;
  });
}

for (const dialect of DIALECTS) {
  test(`$/cancel_request of a slow session/load: -32800 at once, the history read given up, nothing replayed [A2A ${dialect}]`, async () => {
    let holding = false;
    const get = wire(dialect).get;
    await scenario({ dialect, script: answer, hold: (m) => holding && m === get }, async ({ acp, shim, agent }) => {
      const sessionId = await newSession(acp);
      assert.equal((await acp.request("session/prompt", textPrompt(sessionId, "hi"))).stopReason, "end_turn");
      holding = true; // the agent now answers its task reads only when the caller gives up
      const before = shim.updates(sessionId).length;
      const stop = new AbortController();
      const load = acp.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] }, { cancellationSignal: stop.signal });
      await waitFor(() => agent.held.length > 0, 10000, "the load to read the history");
      stop.abort();
      await rejectsWith(load, -32800, "the cancelled load");
      await waitFor(() => agent.aborted.includes(get), 5000, "the history read given up at the agent");
      assert.equal(shim.updates(sessionId).length, before, "nothing replayed");
      holding = false;
      agent.release();
      assert.equal((await acp.request("session/prompt", textPrompt(sessionId, "again"))).stopReason, "end_turn");
    });
  });

  test(`$/cancel_request of a prompt waiting on a busy chat: -32800, nothing sent; the next prompt runs [A2A ${dialect}]`, async () => {
    let active = true;
    const busy = () => ({ active, last_state: active ? "TASK_STATE_WORKING" : "TASK_STATE_COMPLETED" });
    await scenario({ dialect, script: answer, busy }, async ({ acp, shim, agent }) => {
      // A chat shim did not mint (the first prompt of a minted one asks no
      // busy signal, SPEC §19).
      const sessionId = "chat-elsewhere-1";
      await initialize(acp, 1);
      await acp.request("session/resume", { sessionId, cwd: "/tmp", mcpServers: [] });
      const stop = new AbortController();
      const prompt = acp.request("session/prompt", textPrompt(sessionId, "first"), { cancellationSignal: stop.signal });
      await waitFor(() => textOf(shim.updates(sessionId), "agent_thought_chunk").includes("busy in another window"), 10000, "the busy notice");
      stop.abort();
      await rejectsWith(prompt, -32800, "the cancelled prompt");
      assert.equal(agent.calls(wire(dialect).stream).length, 0, "nothing sent to the agent");
      assert.equal(agent.calls(wire(dialect).cancel).length, 0, "no task to cancel");
      active = false;
      const next = await within(acp.request("session/prompt", textPrompt(sessionId, "second")), 10000, "the next prompt");
      assert.equal(next.stopReason, "end_turn");
      const sends = agent.calls(wire(dialect).stream);
      assert.equal(sends.length, 1);
    });
  });

  test(`a permission dialog open when its turn is cancelled is withdrawn ($/cancel_request) [A2A ${dialect}]`, async () => {
    async function approval(t) {
      t.task();
      if (!t.resumed) {
        t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: "npm test" });
        return;
      }
      t.complete(`Resumed with ${t.text}.`);
    }
    await scenario({ dialect, script: approval }, async ({ acp, shim }) => {
      const asked = [];
      let closed = false;
      shim.permissionAnswer = (_params, ctx) => {
        asked.push(ctx.requestId);
        // The dialog stays open until shim withdraws it.
        return new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            closed = true;
            resolve({ outcome: { outcome: "cancelled" } });
          }),
        );
      };
      const sessionId = await newSession(acp);
      const prompt = acp.request("session/prompt", textPrompt(sessionId, "run the tests"));
      await waitFor(() => asked.length === 1, 10000, "the permission dialog");
      await acp.notify("session/cancel", { sessionId });
      assert.equal((await within(prompt, 5000, "the cancelled prompt")).stopReason, "cancelled");
      await waitFor(() => closed, 5000, "the dialog closed by shim's $/cancel_request");
      assert.deepEqual(shim.withdrawn(), asked);
    });
  });
}

test("a client that advertises nothing new sees what it saw before: the two auth methods, questions as text, no elicitation", async () => {
  async function question(t) {
    t.task();
    if (!t.resumed) {
      t.inputRequired("Which branch?", { question: "Which branch?" });
      return;
    }
    t.complete(`On ${t.text}.`);
  }
  await scenario({ dialect: "1.0", script: question }, async ({ acp, shim }) => {
    const init = await initialize(acp, 1);
    assert.deepEqual(init.authMethods.map((m) => m.id), ["shim-credentials", "shim-login"]);
    assert.ok(init.authMethods.every((m) => m.type === undefined), "no terminal method");
    const { sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
    assert.equal((await acp.request("session/prompt", textPrompt(sessionId, "merge it"))).stopReason, "end_turn");
    assert.match(textOf(shim.updates(sessionId), "agent_message_chunk"), /\*\*Input needed:\*\* Which branch\?/);
    assert.equal((await acp.request("session/prompt", textPrompt(sessionId, "main"))).stopReason, "end_turn");
    assert.equal(countOf(shim.updates(sessionId), "tool_call"), 0);
    for (const method of ["elicitation/create", "elicitation/complete", "$/cancel_request"]) {
      assert.deepEqual(
        shim.received.filter((r) => r.msg?.method === method),
        [],
        `${method} reached a client that did not ask for it`,
      );
    }
  });
});
