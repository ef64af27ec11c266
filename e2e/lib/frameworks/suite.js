// The scenarios every real framework's own A2A server runs through (SPEC
// §12.8 Tests), one suite per framework (test/mastra.test.js,
// test/adk.test.js; test/voltagent.test.js has its own, since no stream of
// VoltAgent's is JSON). The framework serves one agent "helper" on loopback,
// driven offline by a scripted model (lib/frameworks/). shim is pointed at it
// the way a user would: at the agent's card (`--card-url`, a `--url` that is
// the card URL, or the base URL when the card is at the base's well-known
// path, §1.2), or at the JSON-RPC endpoint alone (`--endpoint`, the index
// then keyed by the endpoint, §12.8). Per way: a streamed answer, a second
// prompt on the same context, a cancel, a failure, an approval, and history
// (session/list, then session/load by a second process). Every ACP line shim
// writes is schema-checked (lib/shim.js); every HTTP exchange goes through a
// recording proxy (lib/frameworks/launch.js).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { startFramework } from "./launch.js";
import { Shim, countOf, initialize, tempDir, textOf, textPrompt, waitFor, within } from "../shim.js";

export const WHO = { mastra: "Mastra", voltagent: "VoltAgent", adk: "ADK" };
const FORMS = { elicitation: { form: {} } };

/** How a user points shim at each framework's card. */
const CARD = {
  // Mastra keeps its card under the agent's own path: --card-url (no --url).
  mastra: (fw) => ["--card-url", fw.cardUrl],
  // VoltAgent too: a --url that is the card URL.
  voltagent: (fw) => ["--url", fw.cardUrl],
  // ADK's toA2a serves the card at the base's well-known path: plain --url.
  adk: (fw) => ["--url", fw.url],
};

/** The ways a user points shim at a framework's agent. */
export const WAYS = {
  card: (fw) => CARD[fw.name](fw),
  // The JSON-RPC endpoint alone: no card, so the dialect is named (all serve 0.3).
  endpoint: (fw) => ["--endpoint", fw.endpoint, "--a2a-version", "0.3"],
};

/** The JSON-RPC requests shim sent to the framework since exchange `from`. */
export function rpcs(fw, from = 0) {
  const endpointPath = new URL(fw.endpoint).pathname;
  return fw.exchanges
    .slice(from)
    .filter((e) => e.method === "POST" && e.path === endpointPath)
    .map((e) => {
      try {
        return JSON.parse(e.requestBody);
      } catch {
        return { unparsed: e.requestBody };
      }
    });
}

/** Consecutive user/agent text chunks merged: [[kind, text], …]. */
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

export async function drive(fw, way, op, { stateDir, timeout = 30000 } = {}) {
  const shim = new Shim({ stateDir, args: WAYS[way](fw) });
  await shim.run((acp) => op(acp, shim), { timeout });
  shim.assertClean(assert);
  return shim;
}

export async function newSession(acp, cwd, caps) {
  await initialize(acp, 1, caps);
  return (await acp.request("session/new", { cwd, mcpServers: [] })).sessionId;
}

export const rejection = (p) => p.then((res) => assert.fail(`the prompt must fail; it answered ${JSON.stringify(res)}`), (e) => e);

/** @param {"mastra"|"adk"} name */
export function frameworkSuite(name) {
  describe(`${WHO[name] ?? name}'s own A2A server`, () => {
    let fw;
    let cwd;
    before(async () => {
      fw = await startFramework(name);
      cwd = tempDir("shim-fw-cwd-");
    });
    after(async () => {
      await fw?.close();
      if (cwd) rmSync(cwd, { recursive: true, force: true });
    });
    const who = WHO[name];
    const hello = `Hello from ${who}.`;

    for (const way of Object.keys(WAYS)) {
      test(`${name}: streamed answer, shown as it streams, the progress note never as answer text [${way}]`, async () => {
        await drive(fw, way, async (acp, shim) => {
          const mark = fw.exchanges.length;
          const sessionId = await newSession(acp, cwd);
          const res = await acp.request("session/prompt", textPrompt(sessionId, "Say hello."));
          assert.equal(res.stopReason, "end_turn");
          const ups = shim.updates(sessionId);
          // Mastra's first frame is a working snapshot saying "Generating response...":
          // a status note (SPEC §12.8), never part of the answer.
          assert.equal(textOf(ups, "agent_message_chunk"), hello);
          assert.ok(countOf(ups, "agent_message_chunk") >= 2, `the answer streams in pieces; got ${countOf(ups, "agent_message_chunk")} chunk(s)`);
          const sent = rpcs(fw, mark).filter((r) => r.method === "message/stream");
          assert.equal(sent.length, 1, "one message/stream");
          assert.equal(sent[0].params.message.contextId, sessionId, "the session is the A2A context");
        });
      });

      test(`${name}: a second prompt on the same context [${way}]`, async () => {
        await drive(fw, way, async (acp, shim) => {
          const mark = fw.exchanges.length;
          const sessionId = await newSession(acp, cwd);
          let res = await acp.request("session/prompt", textPrompt(sessionId, "Say hello."));
          assert.equal(res.stopReason, "end_turn");
          const between = shim.received.length;
          const from = fw.events.length;
          const ask = "What did I say? [scenario:second]";
          res = await acp.request("session/prompt", textPrompt(sessionId, ask));
          assert.equal(res.stopReason, "end_turn");
          const sent = rpcs(fw, mark).filter((r) => r.method === "message/stream");
          assert.deepEqual(sent.map((r) => r.params.message.contextId), [sessionId, sessionId]);
          // What the model answered (from what its framework gave it) is what the editor shows.
          const seen = await fw.waitEvent((e) => e.event === "model" && e.scenario === "second", { from, what: "the model's second call" });
          const earlier = seen.userTexts.slice(0, -1);
          const expected = `Earlier you said: ${earlier.map((t) => JSON.stringify(t)).join(", ") || "nothing"}.`;
          assert.equal(textOf(shim.updates(sessionId, between), "agent_message_chunk"), expected);
          // The framework's memory is the A2A context (Mastra's memory, ADK's
          // session): the model saw the first prompt.
          assert.ok(earlier.includes("Say hello."), `${who}'s model saw ${JSON.stringify(seen.userTexts)}`);
        });
      });

      const stops = name !== "adk";
      test(`${name}: cancel while streaming: cancelled at once, tasks/cancel reaches the framework, ${stops ? "which stops the run" : "which refuses it (ADK cannot cancel)"}, the session goes on [${way}]`, async () => {
        await drive(fw, way, async (acp, shim) => {
          const mark = fw.exchanges.length;
          const from = fw.events.length;
          const sessionId = await newSession(acp, cwd);
          const slow = acp.request("session/prompt", textPrompt(sessionId, "Go slowly. [scenario:slow]"));
          await waitFor(() => textOf(shim.updates(sessionId), "agent_message_chunk").includes("slow 1."), 15000, "the first slow chunk");
          await acp.notify("session/cancel", { sessionId });
          assert.equal((await within(slow, 5000, "the cancelled prompt")).stopReason, "cancelled");
          await waitFor(() => rpcs(fw, mark).find((r) => r.method === "tasks/cancel"), 5000, "tasks/cancel at the framework");
          if (stops) {
            // The framework stopped its model run.
            await fw.waitEvent((e) => e.event === "model-aborted", { from, ms: 10000, what: "the model run to be aborted" });
          } else {
            // ADK's executor answers every tasks/cancel with an internal
            // error (not -32002 TaskNotCancelable) and its run goes on.
            const endpointPath = new URL(fw.endpoint).pathname;
            const ex = await waitFor(() => fw.exchanges.slice(mark).find((e) => e.done && e.path === endpointPath && /"tasks\/cancel"/.test(e.requestBody)), 5000, "the answer to tasks/cancel");
            assert.deepEqual(JSON.parse(ex.responseBody).error, { code: -32603, message: "Task cancellation is not supported yet." });
          }
          const after = shim.received.length;
          const res = await acp.request("session/prompt", textPrompt(sessionId, "Say hello."));
          assert.equal(res.stopReason, "end_turn");
          assert.equal(textOf(shim.updates(sessionId, after), "agent_message_chunk"), hello);
        });
      });

      test(`${name}: a failed run: a ⚠️ chunk, then -32603 naming the model's error [${way}]`, async () => {
        await drive(fw, way, async (acp, shim) => {
          const sessionId = await newSession(acp, cwd);
          const err = await rejection(acp.request("session/prompt", textPrompt(sessionId, "Break. [scenario:fail]")));
          // The agent's name is the card's; with --endpoint alone there is no card (§4.1).
          const agentName = way === "card" ? "helper" : "A2A agent";
          assert.equal(err.code, -32603, `code; got ${err.code} ${err.message}`);
          assert.ok(err.message.startsWith(`${agentName}: `), `the agent's name first; got ${err.message}`);
          assert.match(err.message, /The usage limit has been reached/);
          const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
          assert.ok(shown.trim().startsWith("⚠️"), `a ⚠️ line; got ${JSON.stringify(shown)}`);
          assert.ok(shown.includes(`${agentName} error: `), `the ⚠️ line names the agent; got ${JSON.stringify(shown)}`);
          assert.match(shown, /The usage limit has been reached/);
        });
      });

      if (name === "mastra") {
        test(`mastra: an approval: the tool call is a pending card before the form is answered; approved, the tool runs on the same task [${way}]`, async () => {
          await drive(fw, way, async (acp, shim) => {
            const mark = fw.exchanges.length;
            const from = fw.events.length;
            const sessionId = await newSession(acp, cwd, FORMS);
            const asked = [];
            shim.elicitationAnswer = (params) => {
              // What the person has seen when the form opens.
              asked.push({ params, seen: shim.updates(sessionId) });
              return { action: "accept", content: { approved: true } };
            };
            const res = await acp.request("session/prompt", textPrompt(sessionId, "Delete the old notes. [scenario:delete]"));
            assert.equal(res.stopReason, "end_turn");
            assert.equal(asked.length, 1, "one form");
            const card = asked[0].seen.find((u) => u.sessionUpdate === "tool_call" && u.kind === "delete");
            assert.ok(card, `a delete card before the form; seen ${JSON.stringify(asked[0].seen)}`);
            assert.equal(card.title, "Delete notes/old.txt");
            assert.equal(card.status, "pending");
            assert.deepEqual(card.rawInput, { path: "notes/old.txt" });
            assert.equal(asked[0].params.mode, "form");
            assert.equal(asked[0].params.requestedSchema?.properties?.approved?.type, "boolean");
            // The answer resumed the parked task with the values as data.
            const streams = rpcs(fw, mark).filter((r) => r.method === "message/stream");
            assert.equal(streams.length, 2, "the ask and the resume");
            const parked = streams[1].params.message;
            assert.ok(parked.taskId, "the resume names the parked task");
            assert.deepEqual(parked.parts.find((p) => p.kind === "data")?.data, { approved: true });
            await fw.waitEvent((e) => e.event === "tool", { from, ms: 5000, what: "delete_file to run" });
            const ups = shim.updates(sessionId);
            assert.match(textOf(ups, "agent_message_chunk"), /The tool delete_file ran\.$/);
            assert.equal(ups.filter((u) => u.toolCallId === card.toolCallId).at(-1).status, "completed", "the card ends with the turn");
          });
        });

        test(`mastra: an approval asked as text: the pending card and the tool call's data shown, the next prompt answers it [${way}]`, async () => {
          await drive(fw, way, async (acp, shim) => {
            const from = fw.events.length;
            const sessionId = await newSession(acp, cwd);
            let res = await acp.request("session/prompt", textPrompt(sessionId, "Delete the old notes. [scenario:delete]"));
            assert.equal(res.stopReason, "end_turn");
            let ups = shim.updates(sessionId);
            const card = ups.find((u) => u.sessionUpdate === "tool_call" && u.kind === "delete");
            assert.ok(card, `a pending delete card; got ${JSON.stringify(ups)}`);
            assert.equal(card.title, "Delete notes/old.txt");
            const shown = textOf(ups, "agent_message_chunk");
            assert.match(shown, /\*\*Input needed:\*\*/);
            assert.match(shown, /delete_file/);
            assert.match(shown, /notes\/old\.txt/);
            assert.ok(!fw.events.slice(from).some((e) => e.event === "tool"), "the tool ran before it was approved");
            const between = shim.received.length;
            res = await acp.request("session/prompt", textPrompt(sessionId, "yes"));
            assert.equal(res.stopReason, "end_turn");
            await fw.waitEvent((e) => e.event === "tool", { from, ms: 5000, what: "delete_file to run" });
            ups = shim.updates(sessionId, between);
            assert.match(textOf(ups, "agent_message_chunk"), /The tool delete_file ran\.$/);
          });
        });
      } else {
        test(`adk: an approval: ADK parks the delete on its tool confirmation; the call is seen before the answer (a pending card, its data); ADK takes no answer over A2A, asks again, and the tool never runs [${way}]`, async () => {
          await drive(fw, way, async (acp, shim) => {
            const mark = fw.exchanges.length;
            const from = fw.events.length;
            const sessionId = await newSession(acp, cwd);
            let res = await acp.request("session/prompt", textPrompt(sessionId, "Delete the old notes. [scenario:delete]"));
            assert.equal(res.stopReason, "end_turn");
            let ups = shim.updates(sessionId);
            // The park's data part is ADK's function call `adk_request_confirmation`
            // whose args hold the original call (delete_file, its path): a
            // pending card of that call (SPEC §12.8: the inner call's title and
            // kind by §5, its args), and the data with the question.
            const card = ups.find((u) => u.sessionUpdate === "tool_call" && u.kind === "delete");
            assert.ok(card, `a delete card for notes/old.txt; got ${JSON.stringify(ups)}`);
            assert.equal(card.title, "Delete notes/old.txt");
            assert.deepEqual(card.rawInput, { path: "notes/old.txt" });
            assert.equal(card.status, "pending", `the card is pending until answered; got ${JSON.stringify(card)}`);
            assert.ok(!ups.some((u) => u.sessionUpdate === "tool_call" && /adk_request_confirmation/.test(u.title)), "no card for ADK's confirmation wrapper");
            const asked = textOf(ups, "agent_message_chunk");
            assert.match(asked, /\*\*Input needed:\*\*/);
            assert.match(asked, /delete_file/, `the question shows the call's data; got ${JSON.stringify(asked)}`);
            assert.match(asked, /notes\/old\.txt/, `the question shows the call's data; got ${JSON.stringify(asked)}`);
            // The person answers; ADK wants its own FunctionResponse data part and,
            // behind toA2a, refuses tool confirmations from a remote peer anyway.
            const between = shim.received.length;
            res = await acp.request("session/prompt", textPrompt(sessionId, "yes"));
            assert.equal(res.stopReason, "end_turn");
            const streams = rpcs(fw, mark).filter((r) => r.method === "message/stream");
            assert.equal(streams.length, 2, "the ask and the answer");
            assert.ok(streams[1].params.message.taskId, "the answer names the parked task");
            assert.match(textOf(shim.updates(sessionId, between), "agent_message_chunk"), /No input provided for function call id/);
            assert.ok(!fw.events.slice(from).some((e) => e.event === "tool"), "the tool ran though ADK never took an approval");
          });
        });
      }

      test(`${name}: history: session/list finds the thread, session/load replays its turns in order, each question once [${way}]`, async () => {
        const stateDir = tempDir("shim-state-");
        try {
          let sessionId;
          let second;
          await drive(fw, way, async (acp, shim) => {
            sessionId = await newSession(acp, cwd);
            for (const q of ["Say hello.", "What did I say? [scenario:second]"]) {
              const mark = shim.received.length;
              const res = await acp.request("session/prompt", textPrompt(sessionId, q));
              assert.equal(res.stopReason, "end_turn");
              second = textOf(shim.updates(sessionId, mark), "agent_message_chunk");
            }
          }, { stateDir });
          await drive(fw, way, async (acp, shim) => {
            await initialize(acp);
            const list = await acp.request("session/list", { cwd });
            const row = list.sessions.find((s) => s.sessionId === sessionId);
            assert.ok(row, `session/list lists the thread; got ${JSON.stringify(list.sessions)}`);
            assert.equal(row.title, "Say hello.");
            const before = shim.received.length;
            await acp.request("session/load", { sessionId, cwd, mcpServers: [] });
            assert.deepEqual(transcript(shim.updates(sessionId, before)), [
              ["user_message_chunk", "Say hello."],
              ["agent_message_chunk", hello],
              ["user_message_chunk", "What did I say? [scenario:second]"],
              ["agent_message_chunk", second],
            ]);
          }, { stateDir });
        } finally {
          rmSync(stateDir, { recursive: true, force: true });
        }
      });
    }
  });
}
