// Parks (input-required, SPEC §6): an approval asked with
// session/request_permission and resumed in the same prompt, approved and
// denied; a question answered by the next prompt.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DIALECTS, wire } from "../lib/dialects.js";
import { wireText } from "../lib/agent.js";
import { scenario } from "../lib/scenario.js";
import { initialize, textOf, textPrompt, within } from "../lib/shim.js";

async function newSession(acp) {
  await initialize(acp);
  return (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
}

/** A run_command that parks for approval, then runs or not by the resume's text. */
async function approvalScript(t) {
  t.task();
  if (!t.resumed) {
    t.tool({ toolCallId: "cmd1", name: "run_command", phase: "started", args: JSON.stringify({ command: "npm test" }) });
    await t.sleep(15);
    t.inputRequired("Approve shell command?", {
      kind: "approval",
      title: "Approve shell command?",
      detail: "npm test\n\nruns via: /bin/sh -c",
    });
    return;
  }
  t.working();
  if (t.text === "approved" && t.metadata?.hitl_resume === true) {
    t.tool({ toolCallId: "cmd1", name: "run_command", phase: "completed", result: "12 passing" });
    t.artifact(`${t.taskId}-answer`, "Tests pass: 12 passing.");
  } else {
    t.tool({ toolCallId: "cmd1", name: "run_command", phase: "failed", result: "denied by the user", error: "denied by the user" });
    t.artifact(`${t.taskId}-answer`, `Not run (${t.text}).`);
  }
  t.complete();
}

for (const dialect of DIALECTS) {
  for (const [choice, label, resumeText, answer] of [
    ["approve", "approved", "approved", "Tests pass: 12 passing."],
    ["deny", "denied", "denied", "Not run (denied)."],
    ["dismiss", "dismissed (fails closed)", "denied", "Not run (denied)."],
  ]) {
    test(`approval ${label}: request_permission, the same task resumed with "${resumeText}" in the same prompt [A2A ${dialect}]`, async () => {
      await scenario({ dialect, script: approvalScript }, async ({ acp, shim, agent }) => {
        const asked = [];
        shim.permissionAnswer = (params) => {
          asked.push(params);
          return choice === "dismiss"
            ? { outcome: { outcome: "cancelled" } }
            : { outcome: { outcome: "selected", optionId: choice } };
        };
        const sessionId = await newSession(acp);
        const res = await within(
          acp.request("session/prompt", textPrompt(sessionId, "run the tests")),
          10000,
          "the prompt to finish after the permission answer",
        );
        assert.equal(res.stopReason, "end_turn");

        // The permission request.
        assert.equal(asked.length, 1, "one session/request_permission");
        const req = shim.requestsFromShim("session/request_permission")[0].msg.params;
        assert.equal(req.sessionId, sessionId);
        const ids = req.options.map((o) => o.optionId);
        assert.ok(ids.includes("approve") && ids.includes("deny"), `options ${ids}`);
        assert.equal(req.options.find((o) => o.optionId === "approve").kind, "allow_once");
        assert.equal(req.options.find((o) => o.optionId === "deny").kind, "reject_once");
        assert.ok(ids.includes("approve_session"), "a shell command also offers Allow for this session");
        assert.equal(req.options.find((o) => o.optionId === "approve_session").kind, "allow_always");

        // One card for the command (SPEC §18): the dialog names it, with
        // its kind, its title (the command) and input, the approval's
        // words as its content; pending while the dialog is open, then
        // running and completed when approved, failed "Denied" when not.
        const ups = shim.updates(sessionId);
        const cards = ups.filter((u) => u.sessionUpdate === "tool_call");
        assert.deepEqual(cards.map((u) => u.toolCallId), ["cmd1"], "one tool_call, the command's");
        assert.equal(req.toolCall.toolCallId, "cmd1", "the dialog names the command's card");
        assert.equal(req.toolCall.kind, "execute");
        assert.equal(req.toolCall.title, "npm test");
        assert.deepEqual(req.toolCall.rawInput, { command: "npm test" });
        assert.ok(
          req.toolCall.content?.some((c) => c.type === "content" && c.content.text.startsWith("Approve shell command?")),
          `the approval's words in the dialog's content; got ${JSON.stringify(req.toolCall.content)}`,
        );
        const reqLine = shim.requestsFromShim("session/request_permission")[0].i;
        const cardLines = shim.received.filter((r) => r.msg?.params?.update?.toolCallId === "cmd1");
        const before = cardLines.filter((r) => r.i < reqLine).map((r) => r.msg.params.update.status).filter(Boolean);
        const after = cardLines.filter((r) => r.i > reqLine).map((r) => r.msg.params.update);
        assert.deepEqual(before, ["in_progress", "pending"], "the card goes pending before the dialog opens");
        if (choice === "approve") {
          assert.deepEqual(after.map((u) => u.status).filter(Boolean), ["in_progress", "completed"], "approved: running, then ended by the call");
        } else {
          assert.deepEqual(after.map((u) => u.status).filter(Boolean), ["failed"], "denied: failed, and nothing after");
          assert.deepEqual(after[0].content, [{ type: "content", content: { type: "text", text: "Denied" } }]);
        }

        // The A2A side: the same task resumed with the answer and hitl_resume.
        const sends = agent.calls(wire(dialect).stream);
        assert.equal(sends.length, 2, `two streaming sends; got ${agent.methods()}`);
        const first = agent.turns[0];
        const resume = sends[1].params.message;
        assert.equal(resume.taskId, first.taskId, "the resume names the parked task");
        assert.equal(resume.contextId, sessionId);
        assert.equal(wireText(resume), resumeText);
        assert.equal(resume.metadata?.hitl_resume, true);
        assert.equal(resume.metadata?.bypass_permissions, undefined, "no bypass without Allow for this session");

        assert.ok(textOf(ups, "agent_message_chunk").endsWith(answer), `the answer after the resume; got ${JSON.stringify(textOf(ups, "agent_message_chunk"))}`);
      });
    });
  }

  test(`question: **Input needed:** ends the turn; the next prompt answers the parked task [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      if (!t.resumed) {
        t.working();
        t.inputRequired("Which branch?", { question: "Which branch?" });
        return;
      }
      t.artifact(`${t.taskId}-answer`, `Deploying ${t.text}.`);
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim, agent }) => {
      shim.permissionAnswer = () => {
        throw new Error("a question must not open a permission dialog");
      };
      const sessionId = await newSession(acp);
      const first = await acp.request("session/prompt", textPrompt(sessionId, "deploy it"));
      assert.equal(first.stopReason, "end_turn");
      const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
      assert.ok(shown.includes("**Input needed:** Which branch?"), `shown: ${JSON.stringify(shown)}`);
      assert.equal(shim.requestsFromShim("session/request_permission").length, 0);

      const mark = shim.received.length;
      const second = await acp.request("session/prompt", textPrompt(sessionId, "main"));
      assert.equal(second.stopReason, "end_turn");
      assert.equal(textOf(shim.updates(sessionId, mark), "agent_message_chunk"), "Deploying main.");

      const sends = agent.calls(wire(dialect).stream);
      assert.equal(sends.length, 2);
      const answer = sends[1].params.message;
      assert.equal(answer.taskId, agent.turns[0].taskId, "the answer names the parked task");
      assert.equal(answer.contextId, sessionId);
      assert.equal(wireText(answer), "main", "the user's text as is");
      assert.equal(answer.metadata?.hitl_resume, true);

      // Answered once: the prompt after that starts a fresh task.
      const third = await acp.request("session/prompt", textPrompt(sessionId, "deploy again"));
      assert.equal(third.stopReason, "end_turn");
      const fresh = agent.calls(wire(dialect).stream)[2].params.message;
      assert.ok(!fresh.taskId, `a fresh turn names no task; got ${fresh.taskId}`);
      assert.notEqual(fresh.metadata?.hitl_resume, true);
      assert.equal(wireText(fresh), "deploy again");
    });
  });
}

// A park about a command no card shows yet (the agent asks before it
// announces the call): one card, titled by the command, that the dialog
// names and the call's later announce updates (SPEC §18).
test("approval before its call is announced: one card, the dialog's, taken by the announce [A2A 1.0]", async () => {
  const script = async (t) => {
    t.task();
    if (!t.resumed) {
      t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: "npm test\n\nruns via: /bin/sh -c" });
      return;
    }
    t.working();
    t.tool({ toolCallId: "cmd9", name: "run_command", phase: "started", args: JSON.stringify({ command: "npm test" }) });
    t.tool({ toolCallId: "cmd9", name: "run_command", phase: "completed", result: "12 passing" });
    t.complete("Tests pass.");
  };
  await scenario({ dialect: "1.0", script }, async ({ acp, shim }) => {
    shim.permissionAnswer = () => ({ outcome: { outcome: "selected", optionId: "approve" } });
    const sessionId = await newSession(acp);
    const res = await within(acp.request("session/prompt", textPrompt(sessionId, "run the tests")), 10000, "the prompt");
    assert.equal(res.stopReason, "end_turn");
    const req = shim.requestsFromShim("session/request_permission")[0].msg.params;
    const id = req.toolCall.toolCallId;
    assert.equal(req.toolCall.title, "npm test");
    assert.equal(req.toolCall.kind, "execute");
    const ups = shim.updates(sessionId);
    assert.deepEqual(ups.filter((u) => u.sessionUpdate === "tool_call").map((u) => [u.toolCallId, u.title, u.status]), [[id, "npm test", "pending"]]);
    assert.equal(ups.filter((u) => u.toolCallId === "cmd9").length, 0, "the announce made no card of its own");
    const statuses = ups.filter((u) => u.toolCallId === id).map((u) => u.status).filter(Boolean);
    assert.deepEqual(statuses, ["pending", "in_progress", "completed"]);
  });
});

// The capture executor's flow (reference/a2a/captures): an answer streamed
// before the park, and the resumed execution restarting the same artifact
// from its beginning. The stale task snapshot that opens the resumed stream
// and the restarted chunks must show nothing twice (SPEC §3.2, README).
async function restartingScript(t) {
  t.task();
  t.working();
  t.artifact("answer", "Hello");
  t.artifact("answer", ", ", { append: true });
  t.artifact("answer", "world", { append: true, lastChunk: !t.resumed });
  if (!t.resumed) {
    t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: "rm -rf build" });
    return;
  }
  t.artifact("answer", ": done.", { append: true, lastChunk: true });
  t.complete();
}

for (const dialect of DIALECTS) {
  test(`approval after a partial answer: the resumed task restarts its artifact, nothing is shown twice [A2A ${dialect}]`, async () => {
    await scenario({ dialect, script: restartingScript }, async ({ acp, shim }) => {
      shim.permissionAnswer = () => ({ outcome: { outcome: "selected", optionId: "approve" } });
      const sessionId = await newSession(acp);
      const res = await acp.request("session/prompt", textPrompt(sessionId, "clean the build"));
      assert.equal(res.stopReason, "end_turn");
      assert.equal(shim.requestsFromShim("session/request_permission").length, 1);
      assert.equal(textOf(shim.updates(sessionId), "agent_message_chunk"), "Hello, world: done.");
    });
  });
}
