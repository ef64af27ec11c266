// ACP conformance details of the stdio transport and the lifecycle
// (SPEC §4.1, §10; issue 8): version negotiation, unknown methods and
// notifications, batches, malformed lines, and the end of stdin.

import { test } from "node:test";
import assert from "node:assert/strict";
import { whenCancelled } from "../lib/agent.js";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { CLIENT_INFO, initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const answerScript = async (t) => {
  t.task();
  t.artifact(`${t.taskId}-answer`, "ok");
  t.complete();
};

test("initialize with protocolVersion 65535 answers 1", async () => {
  await scenario({ dialect: "1.0", script: answerScript }, async ({ acp }) => {
    const res = await initialize(acp, 65535);
    assert.equal(res.protocolVersion, 1);
    assert.equal(res.agentCapabilities?.loadSession, true);
    assert.equal(res.agentInfo?.name, "shim");
  });
});

test("an unknown method gets -32601, and the connection goes on", async () => {
  await scenario({ dialect: "1.0", script: answerScript }, async ({ acp }) => {
    await initialize(acp);
    const err = await acp.request("shim/no_such_method", { x: 1 }).then(
      (r) => assert.fail(`answered ${JSON.stringify(r)}`),
      (e) => e,
    );
    assert.equal(err.code, -32601);
    const again = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
    assert.equal(typeof again.sessionId, "string");
  });
});

test("unknown notifications, $/… and _… ones included, are ignored; the next request is answered", async () => {
  await scenario({ dialect: "1.0", script: answerScript }, async ({ acp, shim }) => {
    await initialize(acp);
    const mark = shim.received.length;
    await acp.notify("shim/unknown_notification", { a: 1 });
    await acp.notify("$/cancel_request", { requestId: 4242 });
    await acp.notify("$/progress", { token: "t", value: {} });
    await acp.notify("_zed/custom", { hello: "world" });
    await acp.notify("_ext", null);
    const res = await within(acp.request("session/new", { cwd: "/tmp", mcpServers: [] }), 3000, "session/new after the notifications");
    assert.equal(typeof res.sessionId, "string");
    // The session's commands follow its response (SPEC §11.1); nothing else may.
    const between = shim.received
      .slice(mark)
      .map((r) => r.msg)
      .filter((m) => m?.params?.update?.sessionUpdate !== "available_commands_update");
    assert.equal(between.length, 1, `nothing but the session/new response; got ${JSON.stringify(between)}`);
    // And a prompt still works.
    const p = await acp.request("session/prompt", textPrompt(res.sessionId, "hi"));
    assert.equal(p.stopReason, "end_turn");
  });
});

test("a JSON array line gets one -32600 with id null, its requests are not run; the next request is answered", async () => {
  await scenario({ dialect: "1.0", script: answerScript }, async ({ acp, shim }) => {
    await initialize(acp);
    const mark = shim.received.length;
    const inner = { jsonrpc: "2.0", id: "raw-batch-1", method: "session/new", params: { cwd: "/tmp", mcpServers: [] } };
    shim.writeRaw(JSON.stringify([inner]));
    await waitFor(() => shim.received.length > mark, 3000, "an answer to the array");
    const res = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
    assert.equal(typeof res.sessionId, "string");
    const between = shim.received.slice(mark).map((r) => r.msg);
    const errs = between.filter((m) => m && "error" in m);
    assert.equal(errs.length, 1, `one error answer; got ${JSON.stringify(between)}`);
    assert.equal(errs[0].id, null);
    assert.equal(errs[0].error.code, -32600);
    assert.ok(!between.some((m) => m?.id === "raw-batch-1"), "the request inside the array is not run");
  });
});

test("a line that is not JSON gets -32700 with id null; shim keeps serving", async () => {
  await scenario({ dialect: "1.0", script: answerScript }, async ({ acp, shim }) => {
    await initialize(acp);
    const mark = shim.received.length;
    shim.writeRaw('{"jsonrpc":"2.0","id":"raw-bad","method":');
    await waitFor(() => shim.received.length > mark, 3000, "an answer to the malformed line");
    const m = shim.received[mark].msg;
    assert.equal(m.id, null);
    assert.equal(m.error?.code, -32700);
    const res = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
    assert.equal(typeof res.sessionId, "string");
  });
});

for (const dialect of DIALECTS) {
  test(`stdin closed while a task runs: CancelTask reaches the server and the process exits within a second [A2A ${dialect}]`, async () => {
    let streaming;
    const started = new Promise((r) => (streaming = r));
    const script = async (t) => {
      t.task();
      const id = `${t.taskId}-answer`;
      t.artifact(id, "Working");
      streaming();
      const cancelled = whenCancelled(t);
      for (let i = 0; i < 200 && !t.cancelled; i++) {
        await Promise.race([t.sleep(50), cancelled]);
        t.artifact(id, ".", { append: true });
      }
    };
    await scenario({ dialect, script, outlive: true }, async ({ acp, shim, agent }) => {
      await initialize(acp);
      const { sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
      acp.request("session/prompt", textPrompt(sessionId, "work")).catch(() => {});
      await within(started, 5000, "the agent to start streaming");
      await waitFor(() => textOf(shim.updates(sessionId), "agent_message_chunk").startsWith("Working"), 5000, "the first chunk");

      const t0 = Date.now();
      shim.child.stdin.end();
      const exit = await within(shim.exited, 3000, "shim to exit after stdin closed").catch((e) => e);
      assert.ok(!(exit instanceof Error), exit.message);
      const took = shim.exitedAt - t0;
      assert.ok(took < 1000, `exited ${took} ms after stdin closed; want < 1000`);

      await new Promise((r) => setTimeout(r, 100));
      const cancels = agent.calls(wire(dialect).cancel);
      assert.equal(cancels.length, 1, `one ${wire(dialect).cancel} by the time shim exited; the server got ${agent.methods()}`);
      assert.equal(cancels[0].params.id, agent.turns[0].taskId);
      assert.ok(cancels[0].at <= shim.exitedAt + 50, "CancelTask was sent before the process exited");
    });
  });
}

test("shim writes nothing but ACP on stdout from start to exit", async () => {
  const shim = await scenario({ dialect: "1.0", script: answerScript }, async ({ acp }) => {
    await acp.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: CLIENT_INFO });
    const { sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
    await acp.request("session/prompt", textPrompt(sessionId, "hi"));
  });
  assert.ok(shim.received.length >= 3);
  assert.deepEqual(shim.problems, []);
});
