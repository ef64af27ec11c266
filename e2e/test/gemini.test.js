// Gemini CLI's A2A server (SPEC §12.5): the real @google/gemini-cli-a2a-server
// 0.25.2, run offline (its model is lib/gemini-model.js on loopback, through
// GOOGLE_GEMINI_BASE_URL), behind shim with --agent-profile auto: a thought
// and a streamed answer, a read approved (its card followed to the file), a
// shell command denied, a cancel, and a second prompt on the same task; every
// ACP line schema-checked. E2E_REPEAT=10 runs it ten times in a row.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModel } from "../lib/gemini-model.js";
import { Shim, initialize, tempDir, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const serverBin = join(dirname(require.resolve("@google/gemini-cli-a2a-server/package.json")), "dist", "a2a-server.mjs");

async function startGeminiServer(model, home) {
  const child = spawn(process.execPath, ["--import", join(here, "..", "lib", "loopback.mjs"), serverBin], {
    env: { PATH: process.env.PATH, HOME: home, GEMINI_API_KEY: "fake", GOOGLE_GEMINI_BASE_URL: model.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const onData = (d) => { log += d; };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const port = await within(waitFor(() => /Agent Server started on http:\/\/localhost:(\d+)/.exec(log)?.[1], 90000,
    "the Gemini CLI A2A server to start"), 91000, "the server").catch((e) => { e.message += `\n${log}`; throw e; });
  return { url: `http://127.0.0.1:${port}`, log: () => log,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise((ok) => { child.once("exit", ok); child.kill("SIGTERM"); });
      }
      // A tool's process the server started may still hold its pipes: let go of them, so a
      // failed run does not keep this file alive until that process ends.
      child.stdout.destroy();
      child.stderr.destroy();
    } };
}

// E2E_REPEAT=N runs the scenario N times in a row (the issue's bar: 10 of 10).
const REPEAT = Math.max(1, Number.parseInt(process.env.E2E_REPEAT ?? "1", 10) || 1);

for (let run = 1; run <= REPEAT; run++) test(`Gemini CLI A2A server: thought, answer, read approved (its location followed), shell denied, cancel, second prompt on the same task${REPEAT > 1 ? ` (run ${run} of ${REPEAT})` : ""}`, { timeout: 150000 }, async () => {
  const ws = tempDir("shim-gemini-ws-");
  const home = tempDir("shim-gemini-home-");
  writeFileSync(join(ws, "hello.txt"), "Hello from the workspace.\n");
  const model = await startModel(ws);
  const server = await startGeminiServer(model, home);
  try {
    const trace = join(home, "frames.jsonl");
    const shim = new Shim({ url: server.url, args: ["--agent-profile", "auto", "--trace-frames", trace] });
    const asked = [];
    await shim.run(async (acp) => {
      await initialize(acp);
      const { sessionId } = await acp.request("session/new", { cwd: ws, mcpServers: [] });
      const updates = (from) => shim.updates(sessionId, from);

      // A thought, then the streamed answer; the turn's input-required is its end.
      let res = await acp.request("session/prompt", textPrompt(sessionId, "Think first. [scenario:thought]"));
      assert.equal(res.stopReason, "end_turn");
      let ups = updates();
      assert.match(textOf(ups, "agent_thought_chunk"), /\*\*Planning\*\*\n\nA short answer will do\./);
      assert.equal(textOf(ups, "agent_message_chunk"), "Thought it through.");
      let mark = shim.received.length;

      // A read, approved once after 6 s (longer than the server keeps an idle
      // connection): the tool still runs, on the same task and connection.
      shim.permissionAnswer = async (p) => {
        asked.push(p);
        await new Promise((ok) => setTimeout(ok, 6000));
        return { outcome: { outcome: "selected", optionId: "approve" } };
      };
      res = await acp.request("session/prompt", textPrompt(sessionId, "Read it. [scenario:read]"));
      assert.equal(res.stopReason, "end_turn");
      ups = updates(mark);
      assert.equal(asked.length, 1);
      assert.deepEqual(asked[0].options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
      const readId = asked[0].toolCall.toolCallId;
      const read = ups.filter((u) => u.toolCallId === readId);
      assert.equal(read[0].sessionUpdate, "tool_call");
      assert.equal(read[0].kind, "read");
      assert.equal(read[0].title, `Read ${join(ws, "hello.txt")}`);
      assert.equal(read.at(-1).status, "completed", JSON.stringify(read));
      // Follow-along: the file read lies in the session's folder (Gemini CLI names it in
      // args.file_path), so the card ends with its location (an update's `locations`,
      // even an empty list, replaces the card's).
      const finalLocations = read.reduce((locs, u) => (Array.isArray(u.locations) ? u.locations : locs), []);
      assert.deepEqual(finalLocations.map((l) => l.path), [join(ws, "hello.txt")], `the read card's location: ${JSON.stringify(read)}`);
      assert.equal(textOf(ups, "agent_message_chunk"), "The tool read_file ran. Done.");
      // While the dialog was open, the task's connection was kept busy.
      const sent = readFileSync(trace, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      assert.ok(sent.filter((f) => f.dir === "send" && f.method === "tasks/get" && !JSON.stringify(f.frame).includes("shim-probe")).length >= 2, "no tasks/get keep-alive while the approval was asked");
      mark = shim.received.length;

      // A shell command, denied: it never runs.
      shim.permissionAnswer = (p) => { asked.push(p); return { outcome: { outcome: "selected", optionId: "deny" } }; };
      res = await acp.request("session/prompt", textPrompt(sessionId, "Run it. [scenario:shell]"));
      assert.equal(res.stopReason, "end_turn");
      ups = updates(mark);
      const shell = ups.filter((u) => u.toolCallId === asked[1].toolCall.toolCallId);
      assert.equal(shell[0].kind, "execute");
      assert.equal(shell[0].title, "echo ran > shell-out.txt");
      assert.equal(shell.at(-1).status, "failed");
      assert.equal(existsSync(join(ws, "shell-out.txt")), false, "a denied command ran");
      mark = shim.received.length;

      // A cancel while the answer streams: cancelled at once, the task stays usable.
      const slow = acp.request("session/prompt", textPrompt(sessionId, "Go slowly. [scenario:slow]"));
      await waitFor(() => textOf(updates(mark), "agent_message_chunk").includes("slow 1."), 15000, "the first slow chunk");
      await acp.notify("session/cancel", { sessionId });
      assert.equal((await within(slow, 5000, "the cancelled prompt")).stopReason, "cancelled");
      mark = shim.received.length;

      // A second prompt on the same task: the model sees the earlier turns.
      const before = model.requests.length;
      res = await acp.request("session/prompt", textPrompt(sessionId, "Say hello."));
      assert.equal(res.stopReason, "end_turn");
      assert.equal(textOf(updates(mark), "agent_message_chunk"), "Hello from the model.");
      const last = model.requests.slice(before).find((r) => /streamGenerateContent/.test(r.path));
      const said = JSON.stringify(last.body.contents);
      for (const earlier of ["[scenario:thought]", "[scenario:read]", "[scenario:shell]", "[scenario:slow]"]) {
        assert.ok(said.includes(earlier), `the model's history lacks ${earlier}: the prompt did not continue the task`);
      }
    }, { timeout: 55000 });
    shim.assertClean(assert);
    const methods = readFileSync(trace, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).method);
    assert.ok(!methods.includes("tasks/cancel"), "tasks/cancel was sent: it makes the task terminal");
  } finally {
    await server.close();
    await model.close();
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});
