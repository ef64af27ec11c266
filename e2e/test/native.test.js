// Native in the editor (SPEC §11.1, §11.2, §11.4, §4.2): the card's skills
// as commands after session/new, /status answered by shim, a skill's
// command carrying skillHint, the mode picker's switch and an
// auto-approved command, the model picker's metadata, _session/steering,
// session/delete.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const SKILLS = [
  { id: "Review PR", name: "Review", description: "Reviews a pull request\nin depth", examples: ["#12"], tags: [] },
  { id: "status", name: "Agent status", description: "", examples: [], tags: [] },
];

async function newSession(acp) {
  await initialize(acp);
  return acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
}

const answerWith = (text) => async (t) => {
  t.task();
  t.artifact(`${t.taskId}-a`, text);
  t.complete();
};

for (const dialect of DIALECTS) {
  test(`commands after session/new: the card's skills, then status [A2A ${dialect}]`, async () => {
    await scenario({ dialect, skills: SKILLS, script: answerWith("ok") }, async ({ acp, shim }) => {
      const { sessionId } = await newSession(acp);
      const rec = await waitFor(
        () => shim.received.find((r) => r.msg?.params?.update?.sessionUpdate === "available_commands_update"),
        5000,
        "available_commands_update",
      );
      const resp = shim.responseTo("session/new")[0];
      assert.ok(resp.i < rec.i, "the commands come after the session/new response");
      assert.equal(rec.msg.params.sessionId, sessionId);
      assert.deepEqual(rec.msg.params.update.availableCommands.map((c) => c.name), ["review-pr", "status-2", "status"]);
      assert.equal(rec.msg.params.update.availableCommands[0].description, "Reviews a pull request");
      assert.deepEqual(rec.msg.params.update.availableCommands[0].input, { hint: "#12" });
      assert.equal(rec.msg.params.update.availableCommands[1].description, "Agent status");
    });
  });

  test(`/status is answered by shim, with no A2A message [A2A ${dialect}]`, async () => {
    await scenario({ dialect, skills: SKILLS, script: answerWith("ok") }, async ({ acp, shim, agent }) => {
      const { sessionId } = await newSession(acp);
      const res = await acp.request("session/prompt", textPrompt(sessionId, "/status"));
      assert.equal(res.stopReason, "end_turn");
      const text = textOf(shim.updates(sessionId), "agent_message_chunk");
      for (const want of ["E2E Agent", agent.url, `A2A ${dialect}, JSON-RPC`, `${agent.url}/a2a`, "Credentials: none", "Ask every time (ask)", "Agent's default"]) {
        assert.ok(text.includes(want), `status lacks ${want}:\n${text}`);
      }
      assert.equal(agent.calls(wire(dialect).stream).length, 0, "no A2A message for /status");
    });
  });

  test(`a skill's command keeps its text and carries skillHint [A2A ${dialect}]`, async () => {
    await scenario({ dialect, skills: SKILLS, script: answerWith("reviewed") }, async ({ acp, agent }) => {
      const { sessionId } = await newSession(acp);
      await acp.request("session/prompt", textPrompt(sessionId, "/review-pr #12 please"));
      await acp.request("session/prompt", textPrompt(sessionId, "/other word"));
      assert.equal(agent.turns.length, 2);
      assert.equal(agent.turns[0].text, "/review-pr #12 please");
      assert.equal(agent.turns[0].metadata.skillHint, "Review PR");
      assert.equal(agent.turns[1].text, "/other word");
      assert.equal(agent.turns[1].metadata?.skillHint, undefined);
    });
  });

  test(`the mode picker: set_mode allow-commands, then a command approval is auto-approved [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      if (!t.resumed) {
        t.tool({ toolCallId: "cmd1", name: "run_command", phase: "started", args: JSON.stringify({ command: "make" }) });
        t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: "make" });
        return;
      }
      t.working();
      t.artifact(`${t.taskId}-a`, `Resumed: ${t.text}.`);
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim, agent }) => {
      const created = await newSession(acp);
      assert.equal(created.modes.currentModeId, "ask");
      assert.deepEqual(created.modes.availableModes.map((m) => m.id), ["ask", "allow-commands"]);
      assert.deepEqual(created.configOptions.map((o) => [o.id, o.currentValue]), [["permissions", "ask"]]);
      const { sessionId } = created;
      await acp.request("session/set_mode", { sessionId, modeId: "allow-commands" });
      const res = await within(acp.request("session/prompt", textPrompt(sessionId, "build it")), 10000, "the prompt");
      assert.equal(res.stopReason, "end_turn");
      assert.equal(shim.requestsFromShim("session/request_permission").length, 0, "the command is auto-approved");
      assert.equal(agent.turns.length, 2);
      assert.equal(agent.turns[0].metadata.bypass_permissions, true);
      assert.equal(agent.turns[1].text, "approved");
      assert.equal(agent.turns[1].metadata.bypass_permissions, true);
      assert.equal(agent.turns[1].metadata.hitl_resume, true);
      assert.ok(textOf(shim.updates(sessionId), "agent_message_chunk").includes("Resumed: approved."));
      const cfg = shim.updates(sessionId).filter((u) => u.sessionUpdate === "config_option_update").at(-1);
      assert.equal(cfg?.configOptions[0].currentValue, "allow-commands", "the config picker follows the mode");
    });
  });

  test(`the model picker: set_config_option model is sent as metadata model [A2A ${dialect}]`, async () => {
    await scenario({ dialect, args: ["--models", "gpt-x,claude-y"], script: answerWith("ok") }, async ({ acp, agent }) => {
      const created = await newSession(acp);
      assert.deepEqual(created.configOptions.map((o) => o.id), ["permissions", "model"]);
      const { sessionId } = created;
      const res = await acp.request("session/set_config_option", { sessionId, configId: "model", value: "claude-y" });
      assert.deepEqual(res.configOptions.map((o) => [o.id, o.currentValue]), [["permissions", "ask"], ["model", "claude-y"]]);
      await acp.request("session/prompt", textPrompt(sessionId, "hi"));
      await acp.request("session/set_config_option", { sessionId, configId: "model", value: "default" });
      await acp.request("session/prompt", textPrompt(sessionId, "again"));
      assert.equal(agent.turns[0].metadata.model, "claude-y");
      assert.equal(agent.turns[1].metadata?.model, undefined);
      await assert.rejects(
        acp.request("session/set_config_option", { sessionId, configId: "model", value: "nope" }),
        (err) => err.code === -32602,
      );
    });
  });

  test(`_session/steering: promptRequired when idle, injected into a running turn [A2A ${dialect}]`, async () => {
    let agentRef;
    const script = async (t) => {
      t.task();
      t.artifact(`${t.taskId}-a`, "Part one.");
      const s = await agentRef.nextSteer();
      t.steerConsumed([{ id: s.id, text: s.text }]);
      t.artifact(`${t.taskId}-a`, " Part two.", { append: true });
      t.complete();
    };
    const { startAgent } = await import("../lib/agent.js");
    const agent = await startAgent({ dialect, script, steer: true });
    agentRef = agent;
    try {
      await scenario({ dialect, agent }, async ({ acp, shim }) => {
        const { sessionId } = await newSession(acp);
        const idle = await acp.request("_session/steering", {
          sessionId,
          prompt: [{ type: "text", text: "too early" }],
          _meta: { steering: { idleBehavior: "promptRequired" } },
        });
        assert.equal(idle.outcome, "promptRequired");
        assert.equal(agent.steers.length, 0, "nothing posted when idle");
        const prompt = acp.request("session/prompt", textPrompt(sessionId, "look at A"));
        await waitFor(() => textOf(shim.updates(sessionId), "agent_message_chunk").includes("Part one."), 5000, "Part one.");
        const steered = await acp.request("_session/steering", { sessionId, prompt: [{ type: "text", text: "look at B" }] });
        assert.equal(steered.outcome, "injected");
        const res = await within(prompt, 10000, "the prompt");
        assert.equal(res.stopReason, "end_turn");
        assert.equal(textOf(shim.updates(sessionId), "agent_message_chunk"), "Part one.\n\n↪ steering: look at B\n\n Part two.");
        assert.equal(agent.steers.length, 1);
        assert.equal(agent.steers[0].ctx, sessionId);
        assert.match(agent.steers[0].id, /^zed-[0-9a-f]{12}$/);
        assert.equal(agent.calls(wire(dialect).stream).length, 1, "one A2A message");
      });
    } finally {
      await agent.close();
    }
  });

  test(`session/delete: the thread is listed no more [A2A ${dialect}]`, async () => {
    await scenario({ dialect, script: answerWith("ok") }, async ({ acp }) => {
      const { sessionId } = await newSession(acp);
      await acp.request("session/prompt", textPrompt(sessionId, "remember me"));
      const before = await acp.request("session/list", { cwd: "/tmp" });
      assert.ok(before.sessions.some((s) => s.sessionId === sessionId), "listed before the delete");
      await acp.request("session/delete", { sessionId });
      await acp.request("session/delete", { sessionId: "chat-zed-never-seen" });
      const after = await acp.request("session/list", { cwd: "/tmp" });
      assert.ok(!after.sessions.some((s) => s.sessionId === sessionId), "not listed after the delete");
    });
  });
}
