// ACP as clients speak it now (SPEC §14), through the official ACP client
// 2.4.0: more than one folder (additionalDirectories), notices, message
// ids live and replayed, session/set_model, W3C trace context on every A2A
// request a request causes; and once with a client that advertises none of
// it, which sees no notice (messageId and the additionalDirectories agent
// capability are always sent).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startAgent, textPart } from "../lib/agent.js";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, tempDir, textOf, textPrompt, waitFor } from "../lib/shim.js";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACESTATE = "congo=t61rcWkgMzE";
const META = { _meta: { traceparent: TRACEPARENT, tracestate: TRACESTATE } };
const MCP = { name: "fs", command: "/usr/bin/mcp-fs", args: [], env: [] };
const CHUNKS = ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"];

/** A working note, a read in the second folder, an answer in two appends. */
const scriptReading = (file) => async (t) => {
  t.task();
  t.working([textPart("Searching the code…")]);
  t.tool({ toolCallId: "r1", name: "read_file", phase: "completed", args: JSON.stringify({ path: file }), result: "package lib" });
  t.artifact("a1", "Hello", { append: false });
  t.artifact("a1", ", world.", { append: true });
  t.complete();
};

/** The chunks' "kind messageId", consecutive repeats merged (chunks of one message may merge). */
function chunkIds(updates) {
  const out = [];
  for (const u of updates.filter((u) => CHUNKS.includes(u.sessionUpdate))) {
    assert.ok(typeof u.messageId === "string" && u.messageId !== "", `a chunk without a messageId: ${JSON.stringify(u)}`);
    const k = `${u.sessionUpdate} ${u.messageId}`;
    if (out.at(-1) !== k) out.push(k);
  }
  return out;
}

const noticesOf = (updates) => updates.filter((u) => u.sessionUpdate === "notice").map((u) => `${u.severity}: ${u.title}`);

function folders() {
  const base = tempDir("shim-folders-");
  const first = join(base, "first");
  const second = join(base, "second");
  mkdirSync(first);
  mkdirSync(second);
  return { base, first, second, file: join(second, "lib.go") };
}

for (const dialect of DIALECTS) {
  test(`a client with session.notices: notices, more folders, message ids live and replayed, set_model, trace context [A2A ${dialect}]`, async () => {
    const f = folders();
    const stateDir = tempDir("shim-state-");
    const agent = await startAgent({ dialect, script: scriptReading(f.file) });
    try {
      let sessionId;
      let live;
      await scenario({ dialect, agent, stateDir, args: ["--models", "m1,m2", "--root", `app=${f.first}`] }, async ({ acp, shim }) => {
        const init = await initialize(acp, 1, { session: { notices: {} } });
        assert.deepEqual(init.agentCapabilities.sessionCapabilities.additionalDirectories, {});
        ({ sessionId } = await acp.request("session/new", { cwd: f.first, additionalDirectories: [f.second], mcpServers: [MCP], ...META }));
        // Said once per session, after the response.
        await waitFor(() => noticesOf(shim.updates(sessionId)).includes("info: The agent does not use your editor's MCP tools"), 5000, "the MCP notice");

        assert.deepEqual(await acp.request("session/set_model", { sessionId, modelId: "m2" }), {});
        const res = await acp.request("session/prompt", { ...textPrompt(sessionId, "read lib.go"), ...META });
        assert.equal(res.stopReason, "end_turn");
        const ups = shim.updates(sessionId);
        assert.deepEqual(noticesOf(ups), ["info: The agent does not use your editor's MCP tools", "info: Searching the code…"]);
        assert.ok(!textOf(ups, "agent_thought_chunk").includes("Searching"), "the progress note is a notice, not a thought");
        assert.equal(textOf(ups, "agent_message_chunk"), "Hello, world.");
        const taskId = agent.turns[0].taskId;
        live = chunkIds(ups);
        assert.deepEqual(live, [`agent_message_chunk ${taskId}/a1`]);
        const read = ups.find((u) => u.toolCallId === "r1" && u.locations?.length);
        assert.deepEqual(read?.locations, [{ path: f.file }], "a path in the additional folder links");
        assert.equal(agent.turns[0].metadata.model, "m2", "set_model chose the model of the next message");
        const preamble = agent.turns[0].text.split("\n")[0];
        assert.ok(preamble.startsWith("[Context: ") && preamble.includes(`and the folder ${f.second}.`), `the preamble names the folder: ${preamble}`);

        const { sessions } = await acp.request("session/list", { cwd: f.first, ...META });
        assert.deepEqual(sessions.find((s) => s.sessionId === sessionId)?.additionalDirectories, [f.second]);
        assert.equal(shim.updates(sessionId).filter((u) => u.sessionUpdate === "notice" && u.title.includes("MCP")).length, 1);
      });
      // The thread loaded again (another shim, the same index): the same ids.
      await scenario({ dialect, agent, stateDir }, async ({ acp, shim }) => {
        await initialize(acp, 1, { session: { notices: {} } });
        await acp.request("session/load", { sessionId, cwd: f.first, mcpServers: [], ...META });
        const ups = shim.updates(sessionId);
        const replayed = chunkIds(ups);
        assert.equal(replayed[0].split(" ")[0], "user_message_chunk");
        assert.deepEqual(replayed.filter((k) => k.startsWith("agent_message_chunk")), live, "the answer's message ids are the same live and replayed");
        // SPEC §18: the working status message the history holds replays as
        // a thought (live, to this client, it was a notice).
        assert.equal(textOf(ups, "agent_thought_chunk"), "Searching the code…");
      });
      // Every A2A request those requests caused carried their trace context.
      const streams = agent.calls(wire(dialect).stream);
      const reads = agent.calls(wire(dialect).get, "ListTasks", "tasks/list");
      assert.ok(streams.length === 1 && reads.length > 0, `calls: ${agent.methods()}`);
      for (const r of agent.requests) {
        assert.equal(r.headers.traceparent, TRACEPARENT, `${r.method} without the traceparent`);
        assert.equal(r.headers.tracestate, TRACESTATE, `${r.method} without the tracestate`);
      }
    } finally {
      await agent.close();
      rmSync(f.base, { recursive: true, force: true });
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test(`a client that advertises none of this sees no notice, and what it saw before [A2A ${dialect}]`, async () => {
    const f = folders();
    try {
      await scenario({ dialect, script: scriptReading(f.file) }, async ({ acp, shim, agent }) => {
        const init = await initialize(acp);
        assert.deepEqual(init.agentCapabilities.sessionCapabilities.additionalDirectories, {});
        const { sessionId } = await acp.request("session/new", { cwd: f.first, mcpServers: [MCP] });
        const res = await acp.request("session/prompt", textPrompt(sessionId, "read lib.go"));
        assert.equal(res.stopReason, "end_turn");
        const ups = shim.updates(sessionId);
        assert.deepEqual(noticesOf(ups), [], "no notice reaches a client that did not advertise notices");
        assert.equal(textOf(ups, "agent_thought_chunk"), "Searching the code…", "the progress note is a thought, as before");
        assert.equal(textOf(ups, "agent_message_chunk"), "Hello, world.");
        const taskId = agent.turns[0].taskId;
        assert.equal(chunkIds(ups).at(-1), `agent_message_chunk ${taskId}/a1`, "messageId is always sent");
        assert.ok(!ups.some((u) => u.toolCallId === "r1" && u.locations?.length), "no folder beside the cwd: no link");
        for (const r of agent.requests) assert.equal(r.headers.traceparent, undefined, `${r.method} with a traceparent nobody sent`);
        assert.ok(!shim.received.some((r) => r.msg?.params?.update?.sessionUpdate === "notice"), "no notice at all");
      });
    } finally {
      rmSync(f.base, { recursive: true, force: true });
    }
  });
}
