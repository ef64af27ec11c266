// Native in the editor, the rendering side (SPEC §11.3, §11.5, §11.6): a
// form park asked through the client's elicitation handler and answered in
// the same prompt with the merged JSON; a declined form shown as text and
// answered by the next prompt; a todo tool's plan; a command card drawn as
// a terminal for a client that sends _meta.terminal_output.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DIALECTS, wire } from "../lib/dialects.js";
import { wireText } from "../lib/agent.js";
import { scenario } from "../lib/scenario.js";
import { initialize, textOf, textPrompt, within } from "../lib/shim.js";

const FORMS = { elicitation: { form: {} } };

async function newSession(acp, caps) {
  await initialize(acp, 1, caps);
  return (await acp.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
}

/** A form of two steps on the first message; a resume is echoed back. */
async function formScript(t) {
  t.task();
  if (!t.resumed) {
    t.working();
    t.inputRequired("Deploy settings", {
      kind: "form",
      title: "Deploy settings",
      description: "Where and how",
      steps: [
        {
          title: "Target",
          schema: {
            type: "object",
            properties: {
              env: { title: "Environment", type: "string", oneOf: [{ const: "staging", title: "Staging" }, { const: "prod", title: "Production" }] },
              regions: { title: "Regions", type: "array", items: { type: "string", enum: ["eu", "us"] } },
            },
            required: ["env"],
          },
        },
        { schema: { type: "object", properties: { replicas: { title: "Replicas", type: "integer" }, dry: { title: "Dry run", type: "boolean" } } } },
      ],
    });
    return;
  }
  t.artifact(`${t.taskId}-answer`, `Deploying with ${t.text}.`);
  t.complete();
}

for (const dialect of DIALECTS) {
  test(`form park: one elicitation/create per step, the merged JSON resumes the task in the same prompt [A2A ${dialect}]`, async () => {
    await scenario({ dialect, script: formScript }, async ({ acp, shim, agent }) => {
      const asked = [];
      const answers = [
        { action: "accept", content: { env: "prod", regions: ["eu"] } },
        { action: "accept", content: { replicas: 3, dry: false } },
      ];
      shim.elicitationAnswer = (params) => {
        asked.push(params);
        return answers.shift() ?? { action: "decline" };
      };
      const sessionId = await newSession(acp, FORMS);
      const res = await within(acp.request("session/prompt", textPrompt(sessionId, "deploy")), 10000, "the prompt after the forms");
      assert.equal(res.stopReason, "end_turn");

      assert.equal(asked.length, 2, "one form per step");
      assert.equal(asked[0].sessionId, sessionId);
      assert.equal(asked[0].mode, "form");
      assert.equal(asked[0].message, "Target\n\nWhere and how");
      assert.deepEqual(asked[0].requestedSchema, {
        type: "object",
        properties: {
          env: { type: "string", title: "Environment", enum: ["staging", "prod"] },
          regions: { type: "array", title: "Regions", items: { type: "string", enum: ["eu", "us"] } },
        },
        required: ["env"],
      });
      assert.equal(asked[1].message, "Deploy settings\n\nWhere and how");
      assert.deepEqual(Object.keys(asked[1].requestedSchema.properties), ["replicas", "dry"]);

      const sends = agent.calls(wire(dialect).stream);
      assert.equal(sends.length, 2, `two streaming sends; got ${agent.methods()}`);
      const resume = sends[1].params.message;
      assert.equal(resume.taskId, agent.turns[0].taskId, "the resume names the parked task");
      assert.equal(resume.metadata?.hitl_resume, true);
      assert.deepEqual(JSON.parse(wireText(resume)), { env: "prod", regions: ["eu"], replicas: 3, dry: false });
      const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
      assert.ok(!shown.includes("Input needed"), `no text question; got ${JSON.stringify(shown)}`);
      assert.ok(shown.startsWith("Deploying with {"), `the answer; got ${JSON.stringify(shown)}`);
    });
  });

  test(`form declined: **Input needed:** as text, nothing sent; the next prompt answers the park [A2A ${dialect}]`, async () => {
    await scenario({ dialect, script: formScript }, async ({ acp, shim, agent }) => {
      let asked = 0;
      shim.elicitationAnswer = () => {
        asked++;
        return { action: "decline" };
      };
      const sessionId = await newSession(acp, FORMS);
      const first = await acp.request("session/prompt", textPrompt(sessionId, "deploy"));
      assert.equal(first.stopReason, "end_turn");
      assert.equal(asked, 1, "the first step declined: no second form");
      const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
      assert.ok(shown.startsWith("**Input needed:** Deploy settings"), `shown: ${JSON.stringify(shown)}`);
      assert.equal(agent.calls(wire(dialect).stream).length, 1, "nothing sent to the agent");

      const second = await acp.request("session/prompt", textPrompt(sessionId, "prod, 2 replicas"));
      assert.equal(second.stopReason, "end_turn");
      const answer = agent.calls(wire(dialect).stream)[1].params.message;
      assert.equal(answer.taskId, agent.turns[0].taskId);
      assert.equal(answer.metadata?.hitl_resume, true);
      assert.equal(wireText(answer), "prod, 2 replicas");
    });
  });

  test(`plan: a todo tool's list as a plan update after its card [A2A ${dialect}]`, async () => {
    const todos = [
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress", priority: "high" },
      { content: "Dropped idea", status: "cancelled" },
      { content: "Write a test", status: "todo" },
    ];
    const script = async (t) => {
      t.task();
      t.tool({ toolCallId: "todo1", name: "write_todos", phase: "started", args: "" });
      t.tool({ toolCallId: "todo1", name: "write_todos", phase: "started", args: JSON.stringify({ todos }) });
      t.tool({ toolCallId: "todo1", name: "write_todos", phase: "completed", args: JSON.stringify({ todos }), result: "ok" });
      t.artifact(`${t.taskId}-answer`, "Planned.");
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim }) => {
      const sessionId = await newSession(acp, {});
      const res = await acp.request("session/prompt", textPrompt(sessionId, "plan it"));
      assert.equal(res.stopReason, "end_turn");
      const ups = shim.updates(sessionId);
      const plans = ups.filter((u) => u.sessionUpdate === "plan");
      assert.equal(plans.length, 1, "one plan for one list");
      assert.deepEqual(plans[0].entries, [
        { content: "Read the code", priority: "medium", status: "completed" },
        { content: "Fix the bug", priority: "high", status: "in_progress" },
        { content: "Write a test", priority: "medium", status: "pending" },
      ]);
      const card = ups.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "todo1");
      assert.equal(card.kind, "think");
      assert.equal(card.title, "Update plan");
      const i = ups.indexOf(plans[0]);
      assert.equal(ups[i - 1].sessionUpdate, "tool_call_update", "the plan follows the update with the complete args");
      assert.ok(ups[i - 1].rawInput, "that update carried the args");
    });
  });

  test(`terminal: a command card as a terminal for a client with _meta.terminal_output [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      t.tool({ toolCallId: "cmd1", name: "run_command", phase: "started", args: JSON.stringify({ command: "go test ./..." }) });
      t.tool({ toolCallId: "cmd1", name: "run_command", phase: "completed", result: "--- FAIL: TestX\nexit code 1" });
      t.artifact(`${t.taskId}-answer`, "One test fails.");
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim }) => {
      const sessionId = await newSession(acp, { _meta: { terminal_output: true } });
      const res = await acp.request("session/prompt", textPrompt(sessionId, "test it"));
      assert.equal(res.stopReason, "end_turn");
      const ups = shim.updates(sessionId).filter((u) => u.toolCallId === "cmd1");
      const open = ups.find((u) => u.sessionUpdate === "tool_call");
      assert.equal(open.kind, "execute");
      assert.deepEqual(open.content, [{ type: "terminal", terminalId: "cmd1" }]);
      assert.deepEqual(open._meta, { terminal_info: { terminal_id: "cmd1" } });
      const done = ups.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
      assert.deepEqual(done.content, [{ type: "terminal", terminalId: "cmd1" }], "the output is not repeated as text");
      assert.deepEqual(done._meta, {
        terminal_output: { terminal_id: "cmd1", data: "--- FAIL: TestX\nexit code 1" },
        terminal_exit: { terminal_id: "cmd1", exit_code: 1, signal: null },
      });
    });
  });
}
