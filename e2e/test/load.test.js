// session/load of a finished thread by a second shim process on the same
// --state-dir (SPEC §4.2, §4.5): the history is replayed as session/update
// notifications before the load response.

import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { startAgent, wireText } from "../lib/agent.js";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, tempDir, textPrompt } from "../lib/shim.js";

/** Consecutive chunks of one kind merged: [[kind, text], …]. */
function transcript(updates) {
  const out = [];
  for (const u of updates) {
    if (!["user_message_chunk", "agent_message_chunk"].includes(u.sessionUpdate) || u.content?.type !== "text") continue;
    const last = out.at(-1);
    if (last && last[0] === u.sessionUpdate) last[1] += u.content.text;
    else out.push([u.sessionUpdate, u.content.text]);
  }
  return out.map(([k, s]) => [k, s.trim()]);
}

const ANSWERS = { "first question": "First answer.", "second question": "Second answer.", "third question": "Third answer." };

async function answerScript(t) {
  t.task();
  const id = `${t.taskId}-answer`;
  const a = ANSWERS[t.text] ?? `You said: ${t.text}`;
  t.artifact(id, a.slice(0, 6));
  await t.sleep(10);
  t.artifact(id, a.slice(6), { append: true });
  t.artifact(id, a, { lastChunk: true });
  t.complete();
}

/**
 * A thread of two finished turns, made by a first shim process; then op
 * runs with a second shim process on the same --state-dir.
 */
async function withFinishedThread(dialect, op) {
  const agent = await startAgent({ dialect, script: answerScript });
  const stateDir = tempDir("shim-state-");
  try {
    let sessionId;
    await scenario({ dialect, agent, stateDir }, async ({ acp }) => {
      await initialize(acp);
      sessionId = (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
      for (const q of ["first question", "second question"]) {
        const res = await acp.request("session/prompt", textPrompt(sessionId, q));
        assert.equal(res.stopReason, "end_turn");
      }
    });
    await scenario({ dialect, agent, stateDir }, (ctx) => op({ ...ctx, sessionId }));
  } finally {
    await agent.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

for (const dialect of DIALECTS) {
  test(`load a finished thread in a second process: history replayed before the load response [A2A ${dialect}]`, async () => {
    await withFinishedThread(dialect, async ({ acp, shim, agent, sessionId }) => {
      const init = await initialize(acp);
      assert.equal(init.agentCapabilities?.loadSession, true);
      await acp.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] });

      const loadLine = shim.responseTo("session/load").at(-1).i;
      const replayed = shim.received
        .filter((r) => r.i < loadLine && r.msg?.method === "session/update" && r.msg.params.sessionId === sessionId)
        .map((r) => r.msg.params.update);
      assert.deepEqual(
        transcript(replayed),
        [
          ["user_message_chunk", "first question"],
          ["agent_message_chunk", "First answer."],
          ["user_message_chunk", "second question"],
          ["agent_message_chunk", "Second answer."],
        ],
        "the thread, oldest first, each turn once, before the response",
      );
      // Nothing of the history comes after the response (give stray lines a moment).
      await new Promise((r) => setTimeout(r, 200));
      const late = shim.received
        .filter((r) => r.i > loadLine && r.msg?.method === "session/update" && r.msg.params.sessionId === sessionId)
        .map((r) => r.msg.params.update);
      assert.deepEqual(transcript(late), [], "no history after the load response");

      // The loaded session goes on in the same A2A context.
      const mark = shim.received.length;
      const res = await acp.request("session/prompt", textPrompt(sessionId, "third question"));
      assert.equal(res.stopReason, "end_turn");
      assert.deepEqual(transcript(shim.updates(sessionId, mark)), [["agent_message_chunk", "Third answer."]], "the new turn shows only its answer");
      const last = agent.calls(wire(dialect).stream).at(-1).params.message;
      assert.equal(wireText(last), "third question");
      assert.equal(last.contextId, sessionId);
    });
  });

  test(`load, then prompt: the thread keeps the title its first prompt gave it [A2A ${dialect}]`, async () => {
    await withFinishedThread(dialect, async ({ acp, shim, sessionId }) => {
      await initialize(acp);
      await acp.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] });
      await acp.request("session/prompt", textPrompt(sessionId, "third question"));
      const titles = shim
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === "session_info_update" && u.title !== undefined)
        .map((u) => u.title);
      for (const t of titles) assert.equal(t, "first question", `the editor was told the title is ${JSON.stringify(t)}; the thread's first prompt was "first question" (SPEC §4.2), and threads.json keeps that`);
    });
  });
}
