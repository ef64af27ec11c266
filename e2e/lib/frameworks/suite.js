// The scenarios every real framework's own A2A server runs through (SPEC
// §12.8 Tests), one suite per framework (test/mastra.test.js,
// test/adk.test.js, test/strands.test.js, test/beeai.test.js;
// test/voltagent.test.js has its own, since no stream of VoltAgent's is
// JSON). Where a framework departs from the spec in a way SPEC §16 says shim
// reads and shim does not read yet, the check is written as §16 says and
// marked `todo: "SPEC §16: …"` (it runs and reports, and does not fail the
// suite until the reading lands and the mark is removed). The framework
// serves one agent "helper" on loopback, driven offline by a scripted model
// (lib/frameworks/). shim is pointed at it the way a user would: at the
// agent's card (`--card-url`, a `--url` that is the card URL, or the base URL
// when the card is at the base's well-known path, §1.2), or at the JSON-RPC
// endpoint alone (`--endpoint`, the index then keyed by the endpoint, §12.8).
// Per way: a streamed answer, a second prompt on the same context, a cancel,
// a failure, an approval (where the framework has one), and history
// (session/list, then session/load by a second process). Every ACP line shim
// writes is schema-checked (lib/shim.js); every HTTP exchange goes through a
// recording proxy (lib/frameworks/launch.js).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { FRAMEWORKS, startFramework } from "./launch.js";
import { Shim, initialize, tempDir, textOf, textPrompt, waitFor, within } from "../shim.js";

export const WHO = { mastra: "Mastra", voltagent: "VoltAgent", adk: "ADK", strands: "Strands", beeai: "BeeAI" };
const FORMS = { elicitation: { form: {} } };

/** How a user points shim at each framework's card. */
const CARD = {
  // Mastra keeps its card under the agent's own path: --card-url (no --url).
  mastra: (fw) => ["--card-url", fw.cardUrl],
  // VoltAgent too: a --url that is the card URL.
  voltagent: (fw) => ["--url", fw.cardUrl],
  // ADK's toA2a serves the card at the base's well-known path: plain --url.
  adk: (fw) => ["--url", fw.url],
  // Strands and BeeAI (the @a2a-js/sdk 0.3.14 Express handlers) too.
  strands: (fw) => ["--url", fw.url],
  beeai: (fw) => ["--url", fw.url],
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

/** A JSON-RPC call of the test's own to the framework (through the recording proxy), its result. */
async function frameworkCall(fw, method, params) {
  const res = await fetch(fw.endpoint, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: "e2e", method, params }) });
  return (await res.json()).result;
}

/**
 * The answer's text pieces as the framework sent them on the first
 * message/stream since exchange `from`: the text of each artifact frame
 * that adds text (an append, or an artifact's first frame), in order; a
 * replace of text already sent (ADK's closing frame) adds none.
 */
function answerPieces(fw, from) {
  const endpointPath = new URL(fw.endpoint).pathname;
  const ex = fw.exchanges.slice(from).find((e) => e.path === endpointPath && /"message\/stream"/.test(e.requestBody));
  const seen = new Set();
  const pieces = [];
  for (const line of ex?.responseBody.split("\n") ?? []) {
    if (!line.startsWith("data:")) continue;
    const r = JSON.parse(line.slice(5)).result;
    if (r?.kind !== "artifact-update") continue;
    const text = (r.artifact.parts ?? []).map((p) => p.text ?? "").join("");
    const first = !seen.has(r.artifact.artifactId);
    seen.add(r.artifact.artifactId);
    if (text !== "" && (first || r.append)) pieces.push(text);
  }
  return pieces;
}

/** Whether the chunks are the pieces in order, each chunk one or more whole pieces. */
function onFrameBoundaries(chunks, pieces) {
  let i = 0;
  for (const chunk of chunks) {
    let joined = "";
    while (i < pieces.length && joined.length < chunk.length) joined += pieces[i++];
    if (joined !== chunk) return false;
  }
  return i === pieces.length;
}

/** The task id of the first frame of the stream that answered the n-th message/stream since exchange `from`. */
function firstTaskId(fw, from, n = 0) {
  const endpointPath = new URL(fw.endpoint).pathname;
  const ex = fw.exchanges.slice(from).filter((e) => e.path === endpointPath && /"message\/stream"/.test(e.requestBody))[n];
  const data = ex?.responseBody.split("\n").find((l) => l.startsWith("data:"));
  const r = data ? JSON.parse(data.slice(5)).result : undefined;
  return r?.kind === "task" ? r.id : r?.taskId;
}

/** @param {"mastra"|"adk"|"strands"|"beeai"} name */
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
      // BeeAI's ToolCallingAgent answers whole, at the end: nothing streams in pieces.
      const streamsText = FRAMEWORKS[name].streamsText !== false;
      const answerTitle = streamsText
        ? "streamed answer, shown as it streams, the progress note never as answer text"
        : "the answer (sent whole at the end), its progress frames under another task id never shown";
      test(`${name}: ${answerTitle} [${way}]`, async (t) => {
        let ups;
        await drive(fw, way, async (acp, shim) => {
          const mark = fw.exchanges.length;
          const sessionId = await newSession(acp, cwd);
          const res = await acp.request("session/prompt", textPrompt(sessionId, "Say hello."));
          assert.equal(res.stopReason, "end_turn");
          ups = shim.updates(sessionId);
          // Mastra's first frame is a working snapshot saying "Generating response...":
          // a status note (SPEC §12.8), never part of the answer.
          assert.equal(textOf(ups, "agent_message_chunk"), hello);
          if (streamsText) {
            // The framework streamed its answer in pieces (its frames, as
            // the proxy recorded them, are known to be separate); shim
            // shows them whole and in order (SPEC §4.3: each append's new
            // text), each chunk whole frames: queued chunks of one message
            // merge while shim's output waits on the editor (README), so
            // how many chunks there are depends on timing and is not
            // counted. That the first piece shows while the model still
            // runs is the cancel tests' (they wait for "slow 1.").
            const pieces = answerPieces(fw, mark);
            assert.ok(pieces.length >= 2, `${who} streamed its answer in pieces; got ${JSON.stringify(pieces)}`);
            assert.equal(pieces.join(""), hello);
            const chunks = ups.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);
            assert.ok(onFrameBoundaries(chunks, pieces), `each chunk is whole frames, in order; chunks ${JSON.stringify(chunks)}, frames ${JSON.stringify(pieces)}`);
          } else {
            // BeeAI's progress notes (each message of its agent's memory as JSON)
            // go out as working updates under the task id the SDK made, not the
            // one BeeAI's task snapshot names: frames of another task (§4.3).
            const endpointPath = new URL(fw.endpoint).pathname;
            const body = fw.exchanges.slice(mark).find((e) => e.path === endpointPath && /"message\/stream"/.test(e.requestBody)).responseBody;
            assert.match(body, /\\"toolName\\":\\"final_answer\\"/, "BeeAI sent its progress notes");
            const shown = ups.filter((u) => u.content?.type === "text").map((u) => u.content.text).join("\n");
            assert.doesNotMatch(shown, /final_answer/, `a progress frame of another task id was shown: ${JSON.stringify(ups)}`);
          }
          const sent = rpcs(fw, mark).filter((r) => r.method === "message/stream");
          assert.equal(sent.length, 1, "one message/stream");
          assert.equal(sent[0].params.message.contextId, sessionId, "the session is the A2A context");
        });
        if (name === "beeai") {
          await t.test("BeeAI re-sends its submitted task snapshot with the answer in its history, then completes with the same message: shown once, as the answer", () => {
            assert.equal(textOf(ups, "agent_thought_chunk"), "", `the answer was also shown as a thought: ${JSON.stringify(ups)}`);
            const answer = ups.find((u) => u.sessionUpdate === "agent_message_chunk");
            assert.deepEqual(ups.filter((u) => u.messageId === answer.messageId).map((u) => u.sessionUpdate), ["agent_message_chunk"], "the message is shown in one place");
          });
        }
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
          if (name === "beeai") {
            // BeeAI's A2A executor gives its agent the task's own history
            // only: a new task on the same context starts with nothing.
            assert.deepEqual(earlier, [], `${who}'s model saw ${JSON.stringify(seen.userTexts)}`);
          } else {
            // The framework's memory is the A2A context (Mastra's memory, ADK's
            // session, Strands' agent per context): the model saw the first prompt.
            assert.ok(earlier.includes("Say hello."), `${who}'s model saw ${JSON.stringify(seen.userTexts)}`);
          }
        });
      });

      if (name === "strands" || name === "beeai") sdk03Cancel(name, way, () => fw, () => cwd);
      const stops = name !== "adk";
      if (name === "mastra" || name === "adk") test(`${name}: cancel while streaming: cancelled at once, tasks/cancel reaches the framework, ${stops ? "which stops the run" : "which refuses it (ADK cannot cancel)"}, the session goes on [${way}]`, async (t) => {
        let next;
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
          next = shim.updates(sessionId, after);
        });
        // ADK's refusal came while its task was still working (its run goes on).
        if (!stops) await refusedCancelSaid(t, next);
      });

      // What each framework says of the model's error: the model's own words,
      // except BeeAI, which sends only "Agent error: The Agent has encountered
      // an error." (the model's message stays in its log).
      const modelError = name === "beeai" ? /Agent error: The Agent has encountered an error\./ : /The usage limit has been reached/;
      const failed = async (acp, shim) => {
        const mark = fw.exchanges.length;
        const sessionId = await newSession(acp, cwd);
        const err = await rejection(acp.request("session/prompt", textPrompt(sessionId, "Break. [scenario:fail]")));
        // The agent's name is the card's; with --endpoint alone there is no card (§4.1).
        const agentName = way === "card" ? "helper" : "A2A agent";
        assert.equal(err.code, -32603, `code; got ${err.code} ${err.message}`);
        assert.ok(err.message.startsWith(`${agentName}: `), `the agent's name first; got ${err.message}`);
        assert.match(err.message, modelError);
        // Said once (SPEC §18): the error, and no ⚠️ line in the answer as well.
        const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
        assert.ok(!shown.includes("⚠️") && !shown.includes(`${agentName} error: `), `no ⚠️ line besides the error; got ${JSON.stringify(shown)}`);
        return { err, mark };
      };
      if (name !== "strands") {
        test(`${name}: a failed run: -32603 naming the model's error, said once (no ⚠️ chunk) [${way}]`, async () => {
          await drive(fw, way, failed);
        });
      } else {
        // Strands' executor rethrows the model's error; @a2a-js/sdk 0.3.14 then
        // publishes `status-update {state: failed, final: true}` under a task id
        // of its own making (requestContext.task is unset for a new task), on
        // the turn's stream, after the `working` task frame of the real task.
        test(`strands: a failed run, sent under a placeholder task id: -32603 naming the model's error, said once (no ⚠️ chunk), data.taskId the turn's task [${way}]`, async () => {
          await drive(fw, way, async (acp, shim) => {
            const { err, mark } = await failed(acp, shim);
            assert.equal(err.data?.taskId, firstTaskId(fw, mark), "data.taskId names the task the turn knew");
            assert.equal(err.data?.state, "failed");
          });
        });
      }

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
      } else if (name === "strands") {
        sdk03StrandsApproval(way, () => fw, () => cwd);
      } else if (name === "adk") {
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

      if (name === "strands") {
        test(`strands: history: a turn that failed under a placeholder task id loads as failed, not as still running [${way}]`, async () => {
          const stateDir = tempDir("shim-state-");
          try {
            let sessionId;
            await drive(fw, way, async (acp) => {
              sessionId = await newSession(acp, cwd);
              assert.equal((await acp.request("session/prompt", textPrompt(sessionId, "Say hello."))).stopReason, "end_turn");
              await rejection(acp.request("session/prompt", textPrompt(sessionId, "Break. [scenario:fail]")));
            }, { stateDir });
            await drive(fw, way, async (acp, shim) => {
              await initialize(acp);
              const before = shim.received.length;
              await acp.request("session/load", { sessionId, cwd, mcpServers: [] });
              const shown = transcript(shim.updates(sessionId, before));
              assert.deepEqual(shown.slice(0, 3), [
                ["user_message_chunk", "Say hello."],
                ["agent_message_chunk", hello],
                ["user_message_chunk", "Break. [scenario:fail]"],
              ]);
              assert.equal(shown.length, 4, `one answer to the failed turn; got ${JSON.stringify(shown)}`);
              assert.equal(shown[3][0], "agent_message_chunk");
              assert.doesNotMatch(shown[3][1], /still running/, "the failed turn loads as still running");
              assert.ok(shown[3][1].startsWith("⚠️"), `the failed turn loads as failed; got ${JSON.stringify(shown[3][1])}`);
            }, { stateDir });
          } finally {
            rmSync(stateDir, { recursive: true, force: true });
          }
        });
      }
    }
  });
}

/**
 * Cancel on a framework built on @a2a-js/sdk 0.3.14's DefaultRequestHandler.
 * Strands' executor refuses every cancel (-32004 UnsupportedOperation) and
 * runs on; its agent per context then holds the next prompt on that context
 * until the cancelled run ends (the rest of the 3 s slow answer here). BeeAI's
 * task snapshot names an id of BeeAI's own, not the SDK's, so the SDK finds
 * no run under the id shim cancels: it marks the stored task canceled
 * without telling BeeAI, whose run goes on to `completed`.
 */
function sdk03Cancel(name, way, getFw, getCwd) {
  const refuses = name === "strands";
  const what = refuses ? "which refuses it (-32004) and runs on" : "which answers canceled and runs on";
  test(`${name}: cancel: cancelled at once, tasks/cancel reaches the framework, ${what}; the next prompt is answered [${way}]`, async (t) => {
    const fw = getFw();
    let next;
    await drive(fw, way, async (acp, shim) => {
      const mark = fw.exchanges.length;
      const from = fw.events.length;
      const sessionId = await newSession(acp, getCwd());
      const slow = acp.request("session/prompt", textPrompt(sessionId, "Go slowly. [scenario:slow]"));
      if (name === "beeai") {
        // BeeAI streams no text: cancel once its model is working on the
        // answer and shim has read the task's first frame (its log says so;
        // nothing reaches the editor before the answer).
        await fw.waitEvent((e) => e.event === "model" && e.scenario === "slow", { from, what: "the slow model call" });
        await waitFor(() => shim.stderr.includes("the agent started a task"), 5000, "shim to read the task's first frame");
      } else {
        await waitFor(() => textOf(shim.updates(sessionId), "agent_message_chunk").includes("slow 1."), 15000, "the first slow chunk");
      }
      await acp.notify("session/cancel", { sessionId });
      assert.equal((await within(slow, 5000, "the cancelled prompt")).stopReason, "cancelled");
      const cancel = await waitFor(() => rpcs(fw, mark).find((r) => r.method === "tasks/cancel"), 5000, "tasks/cancel at the framework");
      const endpointPath = new URL(fw.endpoint).pathname;
      const ex = await waitFor(() => fw.exchanges.slice(mark).find((e) => e.done && e.path === endpointPath && /"tasks\/cancel"/.test(e.requestBody)), 5000, "the answer to tasks/cancel");
      const answer = JSON.parse(ex.responseBody);
      if (refuses) {
        assert.deepEqual(answer.error, { code: -32004, message: "Unsupported operation: Task cancellation is not supported" });
      } else {
        assert.equal(answer.result?.status?.state, "canceled", `BeeAI's answer: ${ex.responseBody}`);
      }
      const after = shim.received.length;
      const res = await acp.request("session/prompt", textPrompt(sessionId, "Say hello."));
      assert.equal(res.stopReason, "end_turn");
      next = shim.updates(sessionId, after);
      assert.equal(textOf(next, "agent_message_chunk"), helloFrom(name));
      // The run went on: the framework's own record of the task ends
      // completed with the whole slow answer, and the model was never stopped.
      const done = await until(async () => {
        const task = await frameworkCall(fw, "tasks/get", { id: cancel.params.id, historyLength: 10 });
        return task?.status?.state === "completed" ? task : undefined;
      }, 15000, "the cancelled run to end");
      assert.match(JSON.stringify(done), /slow 60\./);
      assert.ok(!fw.events.slice(from).some((e) => e.event === "model-aborted"), "the framework stopped its model");
    }, { timeout: 45000 });
    if (refuses) await refusedCancelSaid(t, next);
  });
}

/**
 * SPEC §16, a refused cancel: the framework refused tasks/cancel while the
 * task was still working, so the person is told, before the next prompt's
 * answer (as a thought: these clients advertise no notices), that the
 * earlier turn may still be finishing. `next`: the next prompt's updates.
 */
function refusedCancelSaid(t, next) {
  return t.test("the refused cancel is said: the next prompt on that context first says the earlier turn is still finishing", () => {
    const firstAnswer = next.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
    const said = next.slice(0, firstAnswer).filter((u) => u.sessionUpdate === "agent_thought_chunk");
    assert.ok(said.length > 0, `nothing said before the answer; got ${JSON.stringify(next)}`);
    assert.match(textOf(said, "agent_thought_chunk"), /still|finish/i);
  });
}

/**
 * Strands' human-in-the-loop (`HumanInTheLoop`) over its A2A server: the
 * interrupt is no `input-required` park; the executor streams the agent's
 * result (the interrupt list as JSON text) as the answer artifact and
 * completes the task. The agent of that context stays interrupted and can be
 * resumed only with Strands' own interruptResponse content blocks, which its
 * A2A adapter never builds from a message: every later message on that
 * context throws, and @a2a-js/sdk 0.3.14 sends that as a failure under a
 * placeholder task id.
 */
function sdk03StrandsApproval(way, getFw, getCwd) {
  test(`strands: an approval: Strands' interrupt ends the task with the question as answer text (the tool, its input), the tool does not run; the answer cannot resume it [${way}]`, async (t) => {
    const fw = getFw();
    let reply;
    let replyMark;
    let agentName;
    await drive(fw, way, async (acp, shim) => {
      const from = fw.events.length;
      const sessionId = await newSession(acp, getCwd());
      agentName = way === "card" ? "helper" : "A2A agent";
      const res = await acp.request("session/prompt", textPrompt(sessionId, "Delete the old notes. [scenario:delete]"));
      assert.equal(res.stopReason, "end_turn");
      const shown = textOf(shim.updates(sessionId), "agent_message_chunk");
      const interrupts = JSON.parse(shown);
      assert.equal(interrupts[0].name, "strands:human-in-the-loop");
      assert.match(interrupts[0].reason, /^Approve "delete_file"\?/);
      assert.match(interrupts[0].reason, /notes\/old\.txt/);
      // The task completed: had the tool run, it would have run before.
      assert.ok(!fw.events.slice(from).some((e) => e.event === "tool"), "the tool ran without an approval");
      replyMark = fw.exchanges.length;
      const between = shim.received.length;
      reply = await acp.request("session/prompt", textPrompt(sessionId, "yes")).then(
        (ok) => ({ ok }),
        (err) => ({ err }),
      );
      reply.shown = textOf(shim.updates(sessionId, between), "agent_message_chunk");
      assert.ok(!fw.events.slice(from).some((e) => e.event === "tool"), "the tool ran on an answer Strands cannot take");
    });
    await t.test("the answer fails under a placeholder task id (Strands: the agent is interrupted): shown as that failure", () => {
      assert.ok(reply.err, `the answer must fail; it answered ${JSON.stringify(reply.ok)}`);
      assert.equal(reply.err.code, -32603);
      assert.match(reply.err.message, /Agent is in an interrupted state/);
      assert.equal(reply.err.data?.taskId, firstTaskId(getFw(), replyMark));
      // Said once (SPEC §18): by the error, no ⚠️ line in the answer as well.
      assert.ok(!reply.shown.includes("⚠️") && !reply.shown.includes(`${agentName} error: `), `no ⚠️ line; got ${JSON.stringify(reply.shown)}`);
    });
  });
}

const helloFrom = (name) => `Hello from ${WHO[name]}.`;

/** Polls an async fn until it gives a truthy value, or fails after ms. */
async function until(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
