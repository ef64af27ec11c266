// What a person sees (SPEC §18), through the official ACP client 2.4.0: a
// failure said once (the prompt's error live, the ⚠️ line when the thread
// is loaded), files in the project linked with no --root, shim's own words
// plain, an empty prompt refused with nothing sent to the agent.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAgent } from "../lib/agent.js";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { initialize, tempDir, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const RAW_429 =
  "Error code: 429 - {'error': {'type': 'usage_limit_reached', 'message': 'The usage limit has been reached'}}";
const FRIENDLY = "The usage limit has been reached (HTTP 429, usage_limit_reached)";
const MCP = { name: "fs", command: "/usr/bin/mcp-fs", args: [], env: [] };

/** Why a text shim says of itself is not plain (SPEC §18), or "". */
function notPlain(text) {
  const s = text.trim();
  if ([...s].length > 200) return `${[...s].length} characters`;
  const stops = s.match(/[.!?…]+[)\]"']*(\s|$)/g) ?? [];
  const sentences = stops.length + (/[.!?…][)\]"']*$/.test(s) ? 0 : 1);
  if (sentences > 2) return `${sentences} sentences`;
  const word = s.match(/\b(tasks?|park|parks|parked|parking|bypass\w*|servers?|server-side)\b/i);
  if (word) return `the protocol word "${word[0]}"`;
  return "";
}

for (const dialect of DIALECTS) {
  test(`a failure is said once: the prompt's error live, no ⚠️ chunk; the ⚠️ line when the thread is loaded [A2A ${dialect}]`, async () => {
    const stateDir = tempDir("shim-state-");
    const agent = await startAgent({
      dialect,
      name: "Tide Agent",
      script: async (t) => {
        t.task();
        t.artifact(`${t.taskId}-a`, "Looking.");
        t.fail(RAW_429);
      },
    });
    try {
      let sessionId;
      await scenario({ dialect, agent, stateDir }, async ({ acp, shim }) => {
        await initialize(acp);
        ({ sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] }));
        const err = await acp.request("session/prompt", textPrompt(sessionId, "hello")).then(
          (res) => assert.fail(`the prompt must fail; it answered ${JSON.stringify(res)}`),
          (e) => e,
        );
        assert.equal(err.code, -32603);
        assert.equal(err.message, `Tide Agent: ${FRIENDLY}`);
        assert.equal(err.data?.state, "failed");
        const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
        assert.equal(shown, "Looking.", `the answer, and no ⚠️ line besides the error; got ${JSON.stringify(shown)}`);
      });
      // Loaded again (another shim, the same index): no error answers a
      // load, so the failed turn shows its ⚠️ line.
      await scenario({ dialect, agent, stateDir }, async ({ acp, shim }) => {
        await initialize(acp);
        await acp.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] });
        const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
        assert.equal(shown, `Looking.\n\n⚠️ Tide Agent error: ${FRIENDLY}`);
      });
    } finally {
      await agent.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test(`files in the project link with no --root: a file in the cwd links, one not there or out of it does not [A2A ${dialect}]`, async () => {
    const base = tempDir("shim-project-");
    const cwd = join(base, "app");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "README.md"), "# App\n");
    writeFileSync(join(base, "x"), "outside the project\n");
    const reads = ["README.md", "nope.md", "../x"];
    const script = async (t) => {
      t.task();
      reads.forEach((path, i) => {
        t.tool({ toolCallId: `r${i + 1}`, name: "read_file", phase: "started", args: JSON.stringify({ path }) });
        t.tool({ toolCallId: `r${i + 1}`, name: "read_file", phase: "completed", result: "text" });
      });
      t.complete("Read them.");
    };
    try {
      // --url only, as every editor recipe starts shim.
      await scenario({ dialect, script }, async ({ acp, shim }) => {
        await initialize(acp);
        const { sessionId } = await acp.request("session/new", { cwd, mcpServers: [] });
        const res = await acp.request("session/prompt", textPrompt(sessionId, "read the files"));
        assert.equal(res.stopReason, "end_turn");
        const ups = shim.updates(sessionId);
        const linked = (id) => ups.filter((u) => u.toolCallId === id && u.locations?.length).map((u) => u.locations);
        assert.deepEqual(linked("r1")[0], [{ path: join(cwd, "README.md") }], "README.md in the cwd links to its absolute path");
        assert.deepEqual(linked("r2"), [], "a file that is not there links nowhere");
        assert.deepEqual(linked("r3"), [], "../x leaves the project: no link");
      });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test(`shim's own words are plain: its notices and notes, with and without the notices capability [A2A ${dialect}]`, async () => {
    // The agent asks before every command even when told to skip asking.
    const script = async (t) => {
      t.task();
      if (t.resumed) {
        t.working();
        t.tool({ toolCallId: "cmd1", name: "run_command", phase: "completed", result: "ok" });
        t.artifact(`${t.taskId}-a`, "Built.");
        t.complete();
        return;
      }
      t.tool({ toolCallId: "cmd1", name: "run_command", phase: "started", args: JSON.stringify({ command: "make" }) });
      t.inputRequired("Approve shell command?", { kind: "approval", title: "Approve shell command?", detail: "make" });
    };
    for (const notices of [true, false]) {
      await scenario({ dialect, script }, async ({ acp, shim, agent }) => {
        await initialize(acp, 1, notices ? { session: { notices: {} } } : {});
        const { sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [MCP] });
        await acp.request("session/set_mode", { sessionId, modeId: "allow-commands" });
        const res = await within(acp.request("session/prompt", textPrompt(sessionId, "build it")), 10000, "the approved prompt");
        assert.equal(res.stopReason, "end_turn");
        assert.equal(shim.requestsFromShim("session/request_permission").length, 0, "shim answered the approval");
        assert.equal(agent.calls(wire(dialect).stream).length, 2, "the message and its approved resume");
        const ups = shim.updates(sessionId);
        const said = ups.filter((u) => u.sessionUpdate === "notice");
        const answer = textOf(ups, "agent_message_chunk");
        const note = "This agent asks before every command even in 'Allow commands' mode: shim answered 'allow' for you (a delete is still asked).";
        if (notices) {
          await waitFor(() => shim.updates(sessionId).some((u) => u.sessionUpdate === "notice" && u.title.includes("MCP")), 5000, "the MCP notice");
          const all = shim.updates(sessionId).filter((u) => u.sessionUpdate === "notice");
          assert.deepEqual(
            all.map((u) => u.title).sort(),
            ["The agent does not use your editor's MCP tools", "This agent asks before every command"],
          );
          assert.ok(all.some((u) => u.description === note), `the note: ${JSON.stringify(all)}`);
          for (const n of all) {
            for (const part of [n.title, n.description ?? ""]) assert.equal(notPlain(part), "", `not plain: ${JSON.stringify(part)}`);
          }
          assert.equal(answer, "Built.");
        } else {
          assert.deepEqual(said, []);
          assert.ok(answer.startsWith(`${note}\n\n`), `the note as answer text; got ${JSON.stringify(answer)}`);
          assert.equal(notPlain(answer.slice(0, note.length)), "");
        }
      });
    }
  });

  test(`an empty prompt is refused: -32602 "the prompt is empty", nothing reaches the agent [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      t.complete(`You asked: ${t.text}`);
    };
    await scenario({ dialect, script }, async ({ acp, shim, agent }) => {
      await initialize(acp);
      const { sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
      for (const prompt of [[], [{ type: "text", text: "" }], [{ type: "text", text: " \n\t" }]]) {
        const err = await acp.request("session/prompt", { sessionId, prompt }).then(
          (res) => assert.fail(`an empty prompt answered ${JSON.stringify(res)}`),
          (e) => e,
        );
        assert.equal(err.code, -32602, `code; got ${err.code} ${err.message}`);
        assert.equal(err.message, "the prompt is empty");
      }
      assert.deepEqual(agent.calls(wire(dialect).stream, "SendMessage", "message/send"), [], "no message reached the agent");
      const shown = shim.updates(sessionId).filter((u) => /_chunk$|^tool_call|^notice$/.test(u.sessionUpdate));
      assert.deepEqual(shown, [], "nothing shown");
      // The session still works: the next prompt with words is the agent's first.
      const res = await acp.request("session/prompt", textPrompt(sessionId, "hello"));
      assert.equal(res.stopReason, "end_turn");
      assert.equal(agent.calls(wire(dialect).stream).length, 1);
      assert.equal(textOf(shim.updates(sessionId), "agent_message_chunk"), "You asked: hello");
    });
  });
}
