// Answers, thoughts and tool calls streamed by the official A2A server
// (SPEC §4.3, §5), in both dialects.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { COST_V1, wireText } from "../lib/agent.js";
import { DIALECTS, wire } from "../lib/dialects.js";
import { scenario } from "../lib/scenario.js";
import { countOf, initialize, tempDir, textOf, textPrompt, waitFor } from "../lib/shim.js";

const COST = {
  [COST_V1]: {
    usage: { input_tokens: 1200, output_tokens: 85, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 },
    durationMs: 1800,
    costUsd: 0.01,
    success: true,
  },
};

async function newSession(acp, cwd = "/tmp") {
  await initialize(acp);
  const res = await acp.request("session/new", { cwd, mcpServers: [] });
  assert.equal(typeof res.sessionId, "string");
  return res.sessionId;
}

for (const dialect of DIALECTS) {
  test(`streamed answer: appended chunks, then a full replace adds nothing [A2A ${dialect}]`, async () => {
    // Each chunk is sent once the editor has the one before: shim merges
    // only chunks already queued behind a busy writer, so each arrives on
    // its own whatever the machine's load.
    let seen = async () => {};
    const script = async (t) => {
      t.task();
      const id = `${t.taskId}-answer`;
      t.artifact(id, "The handler ");
      await seen(1);
      t.artifact(id, "lives in ", { append: true });
      await seen(2);
      t.artifact(id, "server/a2a.py.", { append: true });
      await seen(3);
      t.artifact(id, "The handler lives in server/a2a.py.", { lastChunk: true, metadata: COST });
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim, agent }) => {
      const sessionId = await newSession(acp);
      seen = (n) => waitFor(() => countOf(shim.updates(sessionId), "agent_message_chunk") >= n, 10000, `chunk ${n} in the editor`);
      const res = await acp.request("session/prompt", textPrompt(sessionId, "where is the handler?"));
      assert.equal(res.stopReason, "end_turn");

      const ups = shim.updates(sessionId);
      assert.equal(textOf(ups, "agent_message_chunk"), "The handler lives in server/a2a.py.", "the answer, exactly once");
      assert.ok(countOf(ups, "agent_message_chunk") >= 3, "the appended chunks arrive as they stream");
      assert.equal(
        ups.filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content?.type !== "text").length,
        0,
        "no other content in the answer",
      );

      // cost-v1 on the final artifact → PromptResponse.usage (SPEC §4.4), read raw:
      // the field is not in the v1 schema, so the SDK need not keep it.
      const raw = shim.responseTo("session/prompt").at(-1).msg.result;
      assert.equal(raw.usage?.inputTokens, 1200);
      assert.equal(raw.usage?.outputTokens, 85);
      assert.equal(raw.usage?.totalTokens, 1285);
      assert.equal(raw.usage?.cachedReadTokens, 1000);

      // The A2A side: one streaming send in this dialect, the text as is, contextId = sessionId.
      const sends = agent.calls(wire(dialect).stream);
      assert.equal(sends.length, 1, `one ${wire(dialect).stream}; got ${agent.methods()}`);
      assert.equal(wireText(sends[0].params.message), "where is the handler?");
      assert.equal(sends[0].params.message.contextId, sessionId);
      if (dialect === "1.0") assert.equal(sends[0].headers["a2a-version"], "1.0");
    });
  });

  test(`answer shaped like protoAgent's: leading blank lines dropped, the trimmed replace adds nothing [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      const id = `${t.taskId}-answer`;
      t.artifact(id, "\n\nIt is in ");
      await t.sleep(15);
      t.artifact(id, "server/a2a.py.", { append: true });
      await t.sleep(15);
      t.artifact(id, "It is in server/a2a.py.", { lastChunk: true, metadata: COST });
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim }) => {
      const sessionId = await newSession(acp);
      const res = await acp.request("session/prompt", textPrompt(sessionId, "where?"));
      assert.equal(res.stopReason, "end_turn");
      assert.equal(textOf(shim.updates(sessionId), "agent_message_chunk"), "It is in server/a2a.py.");
    });
  });

  test(`thoughts: reasoning-v1 parts in working statuses become agent_thought_chunk [A2A ${dialect}]`, async () => {
    const script = async (t) => {
      t.task();
      t.working();
      t.thought("Looking for the handler. ");
      await t.sleep(15);
      t.thought("Found it in server/a2a.py.");
      await t.sleep(15);
      t.artifact(`${t.taskId}-answer`, "It is in server/a2a.py.");
      t.complete();
    };
    await scenario({ dialect, script }, async ({ acp, shim }) => {
      const sessionId = await newSession(acp);
      const res = await acp.request("session/prompt", textPrompt(sessionId, "where is the handler?"));
      assert.equal(res.stopReason, "end_turn");
      const ups = shim.updates(sessionId);
      assert.equal(textOf(ups, "agent_thought_chunk"), "Looking for the handler. Found it in server/a2a.py.");
      assert.equal(textOf(ups, "agent_message_chunk"), "It is in server/a2a.py.", "thoughts stay out of the answer");
      const firstThought = ups.findIndex((u) => u.sessionUpdate === "agent_thought_chunk");
      const firstAnswer = ups.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
      assert.ok(firstThought >= 0 && firstThought < firstAnswer, "thoughts arrive in stream order, before the answer");
    });
  });

  test(`tool calls: tool-call-v1 on status metadata → tool_call / tool_call_update with an absolute location [A2A ${dialect}]`, async () => {
    const root = tempDir("shim-proj-");
    writeFileSync(join(root, "a.txt"), "alpha\nbeta\n");
    const script = async (t) => {
      t.task();
      // Announced twice, as protoAgent does: first with empty args, then with the args.
      t.tool({ toolCallId: "c1", name: "read_file", phase: "started", args: "" });
      await t.sleep(15);
      t.tool({ toolCallId: "c1", name: "read_file", phase: "started", args: JSON.stringify({ project: "proj", path: "a.txt" }) });
      await t.sleep(15);
      t.tool({ toolCallId: "c1", name: "read_file", phase: "completed", result: "alpha\nbeta\n", outputChars: 11 });
      await t.sleep(15);
      t.artifact(`${t.taskId}-answer`, "a.txt holds two lines.");
      t.complete();
    };
    try {
      await scenario({ dialect, script, args: ["--root", `proj=${root}`, "--no-preamble"] }, async ({ acp, shim }) => {
        const sessionId = await newSession(acp, root);
        const res = await acp.request("session/prompt", textPrompt(sessionId, "what is in a.txt?"));
        assert.equal(res.stopReason, "end_turn");
        const ups = shim.updates(sessionId);
        const cards = ups.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === "c1");
        assert.ok(cards.length >= 2, `tool updates for c1: ${JSON.stringify(cards)}`);
        assert.equal(cards[0].sessionUpdate, "tool_call", "the first update for an id opens the card");
        assert.equal(cards.filter((u) => u.sessionUpdate === "tool_call").length, 1, "the card is opened once");
        assert.equal(cards[0].kind, "read");
        assert.equal(cards[0].status, "in_progress");

        const file = join(root, "a.txt");
        const located = cards.filter((u) => u.locations?.some((l) => l.path === file));
        assert.ok(located.length >= 1, `a location ${file}; got ${JSON.stringify(cards.map((c) => c.locations))}`);
        for (const c of cards) for (const l of c.locations ?? []) assert.ok(l.path.startsWith("/"), `absolute path: ${l.path}`);
        assert.ok(cards.some((u) => u.title === "Read proj/a.txt"), `title "Read proj/a.txt"; got ${cards.map((c) => c.title)}`);

        const last = cards.at(-1);
        assert.equal(last.sessionUpdate, "tool_call_update");
        assert.equal(last.status, "completed");
        const shown = (last.content ?? []).map((c) => c.content?.text ?? "").join("");
        assert.ok(shown.includes("alpha\nbeta"), `the result shown on the card; got ${JSON.stringify(last.content)}`);
        assert.equal(textOf(ups, "agent_message_chunk"), "a.txt holds two lines.");
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
