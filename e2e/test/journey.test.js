// A Zed-like journey (SPEC §11.1–§11.4, §11.6): one session, driven the way
// Zed drives it — initialize with Zed's capabilities (elicitation forms,
// _meta.terminal_output, auth.terminal) — through the card's commands,
// /status answered by shim, a skill's command with skillHint, the mode
// picker switched to allow-commands and an auto-approved command, a form
// answered through the client's elicitation handler and resumed in the same
// prompt, a native steer injected into a running turn, and back to ask.
// native.test.js and forms.test.js test each step alone; this one keeps the
// session's state between them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DIALECTS, wire } from "../lib/dialects.js";
import { startAgent, wireText } from "../lib/agent.js";
import { scenario } from "../lib/scenario.js";
import { CLIENT_INFO, initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const SKILLS = [
  { id: "Review PR", name: "Review", description: "Reviews a pull request", examples: ["#12"], tags: [] },
  { id: "deploy", name: "Deploy", description: "Deploys the service", examples: [], tags: [] },
];

// What Zed sends in initialize (besides fs and terminal, which Zed offers
// but shim never uses): forms, terminal output in tool cards, terminal auth.
const ZED_CAPS = {
  elicitation: { form: {} },
  auth: { terminal: true },
  _meta: { terminal_output: true },
};

const DEPLOY_FORM = {
  kind: "form",
  title: "Deploy settings",
  steps: [
    {
      title: "Target",
      schema: {
        type: "object",
        properties: { env: { title: "Environment", type: "string", oneOf: [{ const: "staging", title: "Staging" }, { const: "prod", title: "Production" }] } },
        required: ["env"],
      },
    },
    { title: "Scale", schema: { type: "object", properties: { replicas: { title: "Replicas", type: "integer" } } } },
  ],
};

/** The agent's side of the journey, by what each turn is asked. */
function journeyScript(agentRef) {
  return async (t) => {
    t.task();
    // Resumes: the turn that parked decides by the task's first message.
    if (t.resumed) {
      const first = agentRef.turns.find((x) => x.taskId === t.taskId && !x.resumed);
      t.working();
      if (first.text.startsWith("build")) {
        if (t.text === "approved") {
          t.tool({ toolCallId: first.text === "build it" ? "cmd1" : "cmd2", name: "run_command", phase: "completed", result: "ok\nexit code 0" });
        }
        t.artifact(`${t.taskId}-a`, `Build ${t.text}.`);
      } else {
        t.artifact(`${t.taskId}-a`, `Deploying with ${t.text}.`);
      }
      t.complete();
      return;
    }
    if (t.text.startsWith("/review-pr")) {
      t.artifact(`${t.taskId}-a`, "Reviewed #12.");
    } else if (t.text.startsWith("build")) {
      const id = t.text === "build it" ? "cmd1" : "cmd2";
      t.tool({ toolCallId: id, name: "run_command", phase: "started", args: JSON.stringify({ command: "make" }) });
      t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: "make" });
      return;
    } else if (t.text.startsWith("/deploy")) {
      t.inputRequired("Deploy settings", DEPLOY_FORM);
      return;
    } else if (t.text === "look at A") {
      t.artifact(`${t.taskId}-a`, "Part one.");
      const s = await agentRef.nextSteer();
      t.steerConsumed([{ id: s.id, text: s.text }]);
      t.artifact(`${t.taskId}-a`, " Part two.", { append: true });
    } else {
      t.artifact(`${t.taskId}-a`, `Unexpected: ${t.text}`);
    }
    t.complete();
  };
}

for (const dialect of DIALECTS) {
  test(`a Zed-like journey: commands, /status, a skill, allow-commands, a form, a steer, back to ask — one session [A2A ${dialect}]`, async () => {
    const ref = {};
    const agent = await startAgent({ dialect, skills: SKILLS, steer: true, script: journeyScript(ref) });
    ref.turns = agent.turns;
    ref.nextSteer = agent.nextSteer;
    const stream = wire(dialect).stream;
    const sends = () => agent.calls(stream);
    try {
      await scenario({ dialect, agent, timeout: 40000 }, async ({ acp, shim }) => {
        // initialize as Zed does.
        const init = await initialize(acp, 1, ZED_CAPS);
        assert.equal(CLIENT_INFO.name, "zed");
        assert.equal(init.protocolVersion, 1);
        assert.deepEqual(init._meta, { steering: { supported: true } });
        const login = init.authMethods.find((m) => m.id === "shim-login");
        assert.equal(login?.type, "terminal", "auth.terminal: the terminal sign-in method");
        assert.deepEqual(login.args, ["login"]);

        // session/new, then the commands after the response.
        const created = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
        const { sessionId } = created;
        assert.equal(created.modes.currentModeId, "ask");
        assert.deepEqual(created.configOptions.map((o) => [o.id, o.currentValue]), [["permissions", "ask"]]);
        const cmds = await waitFor(
          () => shim.received.find((r) => r.msg?.params?.update?.sessionUpdate === "available_commands_update"),
          5000,
          "available_commands_update",
        );
        assert.ok(shim.responseTo("session/new")[0].i < cmds.i, "the commands come after the session/new response");
        assert.equal(cmds.msg.params.sessionId, sessionId);
        assert.deepEqual(cmds.msg.params.update.availableCommands.map((c) => c.name), ["review-pr", "deploy", "status"]);
        assert.deepEqual(cmds.msg.params.update.availableCommands[0].input, { hint: "#12" });

        // /status: answered by shim, no A2A message.
        let from = shim.received.length;
        let res = await acp.request("session/prompt", textPrompt(sessionId, "/status"));
        assert.equal(res.stopReason, "end_turn");
        let shown = textOf(shim.updates(sessionId, from), "agent_message_chunk");
        for (const want of ["E2E Agent", `A2A ${dialect}, JSON-RPC`, "Ask every time (ask)"]) {
          assert.ok(shown.includes(want), `status lacks ${want}:\n${shown}`);
        }
        assert.equal(sends().length + agent.calls("SendMessage", "message/send").length, 0, "no A2A message for /status");

        // A skill's command: the text as typed, plus skillHint.
        from = shim.received.length;
        res = await acp.request("session/prompt", textPrompt(sessionId, "/review-pr #12 please"));
        assert.equal(res.stopReason, "end_turn");
        assert.equal(sends().length, 1);
        assert.equal(wireText(sends()[0].params.message), "/review-pr #12 please");
        assert.equal(sends()[0].params.message.metadata?.skillHint, "Review PR");
        assert.equal(sends()[0].params.message.metadata?.bypass_permissions, undefined, "ask: no bypass yet");
        assert.equal(textOf(shim.updates(sessionId, from), "agent_message_chunk"), "Reviewed #12.");

        // The mode picker: allow-commands; the command approval is auto-approved.
        await acp.request("session/set_mode", { sessionId, modeId: "allow-commands" });
        const cfg = await waitFor(
          () => shim.updates(sessionId).filter((u) => u.sessionUpdate === "config_option_update").at(-1),
          5000,
          "config_option_update after set_mode",
        );
        assert.equal(cfg.configOptions[0].currentValue, "allow-commands", "the config picker follows the mode");
        from = shim.received.length;
        res = await within(acp.request("session/prompt", textPrompt(sessionId, "build it")), 10000, "the auto-approved prompt");
        assert.equal(res.stopReason, "end_turn");
        assert.equal(shim.requestsFromShim("session/request_permission").length, 0, "the command is auto-approved");
        assert.equal(sends().length, 3, "the message and its resume");
        const [build, buildResume] = sends().slice(1).map((r) => r.params.message);
        assert.equal(build.metadata?.bypass_permissions, true);
        assert.equal(buildResume.taskId, agent.turns.at(-2).taskId, "the resume names the parked task");
        assert.equal(wireText(buildResume), "approved");
        assert.equal(buildResume.metadata?.hitl_resume, true);
        assert.equal(buildResume.metadata?.bypass_permissions, true);
        let ups = shim.updates(sessionId, from);
        // The scripted server parks although bypass was sent: shim says so once.
        shown = textOf(ups, "agent_message_chunk");
        assert.ok(shown.startsWith("This agent asks before every command even in 'Allow commands' mode"), `the note; got ${JSON.stringify(shown)}`);
        assert.ok(shown.endsWith("Build approved."), `the answer; got ${JSON.stringify(shown)}`);
        // _meta.terminal_output: the command card is a terminal.
        const open = ups.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "cmd1");
        assert.deepEqual(open?.content, [{ type: "terminal", terminalId: "cmd1" }]);
        const done = ups.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "cmd1" && u.status === "completed");
        assert.deepEqual(done?._meta?.terminal_output, { terminal_id: "cmd1", data: "ok\nexit code 0" });

        // A form: asked through the client's elicitation handler, the merged
        // JSON resumed on the same task in the same prompt.
        const asked = [];
        const answers = [
          { action: "accept", content: { env: "prod" } },
          { action: "accept", content: { replicas: 3 } },
        ];
        shim.elicitationAnswer = (params) => {
          asked.push(params);
          return answers.shift() ?? { action: "decline" };
        };
        from = shim.received.length;
        res = await within(acp.request("session/prompt", textPrompt(sessionId, "/deploy now")), 10000, "the prompt after the form");
        assert.equal(res.stopReason, "end_turn");
        assert.equal(asked.length, 2, "one elicitation/create per step");
        assert.deepEqual(asked.map((a) => [a.sessionId, a.mode, a.message]), [
          [sessionId, "form", "Target"],
          [sessionId, "form", "Scale"],
        ]);
        assert.deepEqual(asked[0].requestedSchema.properties.env, { type: "string", title: "Environment", enum: ["staging", "prod"] });
        assert.equal(sends().length, 5, "the message and its resume");
        const [deploy, deployResume] = sends().slice(3).map((r) => r.params.message);
        assert.equal(deploy.metadata?.skillHint, "deploy");
        assert.equal(deployResume.taskId, agent.turns.at(-2).taskId, "the resume names the parked task");
        assert.deepEqual(JSON.parse(wireText(deployResume)), { env: "prod", replicas: 3 });
        assert.equal(deployResume.metadata?.hitl_resume, true);
        assert.equal(deployResume.metadata?.bypass_permissions, true, "still allow-commands");
        shown = textOf(shim.updates(sessionId, from), "agent_message_chunk");
        assert.ok(!shown.includes("Input needed"), `no text question; got ${JSON.stringify(shown)}`);
        assert.ok(shown.startsWith("Deploying with {"), `the answer; got ${JSON.stringify(shown)}`);

        // A native steer into a running turn: injected, the marker where
        // the agent read it, no second A2A message.
        from = shim.received.length;
        const prompt = acp.request("session/prompt", textPrompt(sessionId, "look at A"));
        await waitFor(() => textOf(shim.updates(sessionId, from), "agent_message_chunk").includes("Part one."), 5000, "Part one.");
        const steered = await acp.request("_session/steering", { sessionId, prompt: [{ type: "text", text: "look at B" }] });
        assert.equal(steered.outcome, "injected");
        res = await within(prompt, 10000, "the steered prompt");
        assert.equal(res.stopReason, "end_turn");
        assert.equal(textOf(shim.updates(sessionId, from), "agent_message_chunk"), "Part one.\n\n↪ steering: look at B\n\n Part two.");
        assert.equal(agent.steers.length, 1);
        assert.equal(agent.steers[0].ctx, sessionId);
        assert.equal(agent.steers[0].text, "look at B");
        assert.match(agent.steers[0].id, /^zed-[0-9a-f]{12}$/);
        assert.equal(sends().length, 6, "the steer rode the running turn");

        // Back to ask: no bypass, the next command approval is asked.
        await acp.request("session/set_mode", { sessionId, modeId: "ask" });
        await waitFor(
          () => shim.updates(sessionId).filter((u) => u.sessionUpdate === "config_option_update").at(-1)?.configOptions[0].currentValue === "ask",
          5000,
          "config_option_update back to ask",
        );
        shim.permissionAnswer = () => ({ outcome: { outcome: "selected", optionId: "approve" } });
        from = shim.received.length;
        res = await within(acp.request("session/prompt", textPrompt(sessionId, "build again")), 10000, "the asked prompt");
        assert.equal(res.stopReason, "end_turn");
        const perms = shim.requestsFromShim("session/request_permission");
        assert.equal(perms.length, 1, "ask: the command approval is asked");
        assert.equal(perms[0].msg.params.sessionId, sessionId);
        assert.equal(sends().length, 8);
        for (const m of sends().slice(6).map((r) => r.params.message)) {
          assert.equal(m.metadata?.bypass_permissions, undefined, "ask: no bypass_permissions");
        }
        assert.equal(wireText(sends()[7].params.message), "approved");
        assert.equal(sends()[7].params.message.taskId, agent.turns.at(-2).taskId, "the resume names the parked task");
        assert.equal(textOf(shim.updates(sessionId, from), "agent_message_chunk"), "Build approved.");

        // One session all along.
        assert.equal(shim.responseTo("session/new").length, 1);
        assert.deepEqual(new Set(sends().map((r) => r.params.message.contextId)), new Set([sessionId]), "one A2A context, the session's");
      });
    } finally {
      await agent.close();
    }
  });
}
