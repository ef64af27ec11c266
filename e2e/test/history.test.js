// What a person sees of their history (SPEC §18): session/list lists
// conversations (a chat that never got a prompt is not one), and a thread
// loaded by a second shim process keeps what was said: a park's question
// and the user's answer, a form's values, an approval as the call's card
// with its outcome, the thoughts. Driven through the official ACP client;
// every line shim writes is schema-checked (lib/shim.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { messageText, startAgent, textPart } from "../lib/agent.js";
import { DIALECTS } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, tempDir, textPrompt, within } from "../lib/shim.js";

const FORMS = { elicitation: { form: {} } };

/** User and agent text, thoughts and tool cards, in order: [[kind, text or card], …], consecutive chunks of one message merged. */
function transcript(updates) {
  const out = [];
  for (const u of updates) {
    if (u.sessionUpdate === "tool_call") {
      out.push(["tool_call", `${u.title} [${u.status}]`]);
      continue;
    }
    if (!["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"].includes(u.sessionUpdate) || u.content?.type !== "text") continue;
    const last = out.at(-1);
    if (last && last[0] === u.sessionUpdate && last[2] === u.messageId) last[1] += u.content.text;
    else out.push([u.sessionUpdate, u.content.text, u.messageId]);
  }
  return out.map(([k, s]) => [k, s.trim()]);
}

/** One script for every turn of the thread, chosen by the first prompt's text. */
async function threadScript(t) {
  t.task();
  const asked = messageText(t.resumed ? t.rc.task.history[0] : t.userMessage);
  if (asked === "deploy it") {
    if (!t.resumed) {
      t.thought("Deploys need a branch.");
      t.inputRequired("Which branch?", { question: "Which branch?" });
      return;
    }
    t.working([textPart(`Deploying ${t.text}…`)]);
    t.artifact(`${t.taskId}-answer`, `Deployed ${t.text}.`);
    t.complete();
    return;
  }
  if (asked === "run the tests" || asked === "clean up") {
    const command = asked === "run the tests" ? "npm test" : "rm -rf build";
    if (!t.resumed) {
      t.tool({ toolCallId: "cmd1", name: "run_command", phase: "started", args: JSON.stringify({ command }) });
      t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: `${command}\n\nruns via: /bin/sh -c` });
      return;
    }
    if (t.text === "approved") {
      t.tool({ toolCallId: "cmd1", name: "run_command", phase: "completed", result: "12 passing" });
      t.artifact(`${t.taskId}-answer`, "Tests pass.");
    } else {
      t.tool({ toolCallId: "cmd1", name: "run_command", phase: "failed", result: "denied by the user" });
      t.artifact(`${t.taskId}-answer`, "Not run.");
    }
    t.complete();
    return;
  }
  if (asked === "configure") {
    if (!t.resumed) {
      t.inputRequired("Settings", {
        kind: "form",
        title: "Settings",
        steps: [{ schema: { type: "object", properties: { env: { title: "Environment", type: "string", enum: ["staging", "prod"] }, replicas: { title: "Replicas", type: "integer" } } } }],
      });
      return;
    }
    t.artifact(`${t.taskId}-answer`, "Configured.");
    t.complete();
    return;
  }
  t.artifact(`${t.taskId}-answer`, `You said: ${t.text}`);
  t.complete();
}

/** The JSON-RPC request line of a method shim received, its position. */
function lineOf(shim, method) {
  return shim.responseTo(method).at(-1).i;
}

for (const dialect of DIALECTS) {
  test(`history lists conversations: a chat never prompted is not listed, here or in another process; prompted, it is, titled by its first message [A2A ${dialect}]`, async () => {
    const agent = await startAgent({ dialect, script: threadScript });
    const stateDir = tempDir("shim-state-");
    try {
      let talked;
      let empty;
      await scenario({ dialect, agent, stateDir }, async ({ acp }) => {
        await initialize(acp);
        talked = (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
        assert.equal((await acp.request("session/prompt", textPrompt(talked, "Hello   there\nagent"))).stopReason, "end_turn");
        empty = (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
        const { sessions } = await acp.request("session/list", { cwd: "/tmp" });
        assert.deepEqual(sessions.map((s) => [s.sessionId, s.title]), [[talked, "Hello there agent"]], "only the conversation, titled by its first message");
      });
      await scenario({ dialect, agent, stateDir }, async ({ acp }) => {
        await initialize(acp);
        const { sessions } = await acp.request("session/list", { cwd: "/tmp" });
        assert.ok(!sessions.some((s) => s.sessionId === empty), `the chat never prompted is listed: ${JSON.stringify(sessions)}`);
        assert.deepEqual(sessions.map((s) => [s.sessionId, s.title]), [[talked, "Hello there agent"]]);
      });
    } finally {
      await agent.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test(`a loaded thread keeps what was said: the question and the answer, a form's values, approvals as the call's card with its outcome, the thoughts [A2A ${dialect}]`, async () => {
    const agent = await startAgent({ dialect, script: threadScript });
    const stateDir = tempDir("shim-state-");
    try {
      let sessionId;
      let live;
      await scenario({ dialect, agent, stateDir }, async ({ acp, shim }) => {
        await initialize(acp, 1, FORMS);
        sessionId = (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
        const prompt = (text) => within(acp.request("session/prompt", textPrompt(sessionId, text)), 10000, `the prompt "${text}"`);
        assert.equal((await prompt("deploy it")).stopReason, "end_turn");
        assert.equal((await prompt("main")).stopReason, "end_turn");
        for (const [text, choice] of [["run the tests", "approve"], ["clean up", "deny"]]) {
          shim.permissionAnswer = () => ({ outcome: { outcome: "selected", optionId: choice } });
          assert.equal((await prompt(text)).stopReason, "end_turn");
        }
        shim.elicitationAnswer = () => ({ action: "accept", content: { env: "staging", replicas: 2 } });
        assert.equal((await prompt("configure")).stopReason, "end_turn");
        live = shim.updates(sessionId);
      }, { timeout: 40000 });
      await scenario({ dialect, agent, stateDir }, async ({ acp, shim }) => {
        await initialize(acp);
        await acp.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] });
        const loadLine = lineOf(shim, "session/load");
        const replayed = shim.received
          .filter((r) => r.i < loadLine && r.msg?.method === "session/update" && r.msg.params.sessionId === sessionId)
          .map((r) => r.msg.params.update);
        assert.deepEqual(transcript(replayed), [
          ["user_message_chunk", "deploy it"],
          ["agent_thought_chunk", "Deploys need a branch."],
          ["agent_message_chunk", "**Input needed:** Which branch?"],
          ["user_message_chunk", "main"],
          ["agent_thought_chunk", "Deploying main…"],
          ["agent_message_chunk", "Deployed main."],
          ["user_message_chunk", "run the tests"],
          ["tool_call", "npm test [completed]"],
          ["agent_message_chunk", "Tests pass."],
          ["user_message_chunk", "clean up"],
          ["tool_call", "rm -rf build [failed]"],
          ["agent_message_chunk", "Not run."],
          ["user_message_chunk", "configure"],
          ["agent_message_chunk", "**Input needed:** Settings\n- Environment: one of staging, prod\n- Replicas"],
          ["user_message_chunk", "env: staging\nreplicas: 2"],
          ["agent_message_chunk", "Configured."],
        ]);
        const denied = replayed.find((u) => u.sessionUpdate === "tool_call" && u.status === "failed");
        assert.match(JSON.stringify(denied.content), /Denied/, `the denied call's card says so; got ${JSON.stringify(denied)}`);
        for (const u of replayed.filter((u) => u.sessionUpdate === "user_message_chunk")) {
          assert.ok(!["approved", "denied"].includes(u.content.text), `an approval replayed as the user's words: ${JSON.stringify(u)}`);
        }
        // The thoughts and the question are those the live turns showed.
        const liveText = (kind) => live.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");
        assert.ok(liveText("agent_thought_chunk").includes("Deploys need a branch."), "the live turn showed the reasoning as a thought");
        assert.ok(liveText("agent_thought_chunk").includes("Deploying main…"), "the live turn showed the working status as a thought");
        assert.ok(liveText("agent_message_chunk").includes("**Input needed:** Which branch?"), "the live turn asked the question");
      });
    } finally {
      await agent.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
}
