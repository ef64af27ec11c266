// The scripted model the AI SDK frameworks (Mastra, VoltAgent, Strands, BeeAI)
// run on: the AI SDK's own MockLanguageModelV3 from `ai/test` (ai 6.0.326),
// no network. The reply is chosen by a "[scenario:NAME]" tag in the newest
// user text; a prompt whose last message is a tool result gets a closing
// answer naming the tool. Every call is reported through `report` (the
// launcher prints it as a JSON line the test reads), so a test can wait on
// what the model saw.
//
// Streamed calls (doStream) send the reply in pieces. A call without
// streaming (doGenerate: BeeAI's ToolCallingAgent) gets the same reply whole;
// with `answerTool` the text is sent as a call of that tool with
// `{response: text}` (BeeAI's agent answers only through its `final_answer`
// tool), and "slow" waits its 60 pieces' time before answering, unless aborted.
// "slow" is 60 pieces 150 ms apart; Strands and BeeAI, which run a cancelled
// answer to its end, take 50 ms (`slowDelay`) to keep their tests short.
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 7, text: 7, reasoning: 0 },
};
const finish = (unified = "stop") => ({ type: "finish", finishReason: { unified, raw: unified }, usage });
const textChunks = (id, deltas) => [
  { type: "text-start", id },
  ...deltas.map((delta) => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

function textOf(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((p) => p.type === "text").map((p) => p.text).join("");
}

/** The user texts the model was given, oldest first (what it "remembers"). */
export function userTexts(prompt) {
  return prompt.filter((m) => m.role === "user").map((m) => textOf(m.content)).filter(Boolean);
}

function scenarioOf(prompt) {
  const last = prompt[prompt.length - 1];
  if (last?.role === "tool") {
    const names = last.content.filter((p) => p.type === "tool-result").map((p) => p.toolName);
    return { name: "tool-result", tools: names };
  }
  const texts = userTexts(prompt);
  const newest = texts[texts.length - 1] ?? "";
  return { name: /\[scenario:([a-z-]+)\]/.exec(newest)?.[1] ?? "answer" };
}

/** The scripted reply to a prompt: the scenario, its stream parts, the delay between them. */
function reply(who, prompt, slowDelay) {
  const s = scenarioOf(prompt);
  let chunks;
  let delay = 15;
  switch (s.name) {
    case "tool-result":
      chunks = [...textChunks("t", ["The tool ", s.tools.join(", "), " ran."]), finish()];
      break;
    case "delete":
      chunks = [
        { type: "tool-call", toolCallId: "call-delete-1", toolName: "delete_file", input: JSON.stringify({ path: "notes/old.txt" }) },
        finish("tool-calls"),
      ];
      break;
    case "fail":
      chunks = null;
      break;
    case "slow":
      delay = slowDelay;
      chunks = [...textChunks("t", Array.from({ length: 60 }, (_, i) => `slow ${i + 1}. `)), finish()];
      break;
    case "second": {
      const earlier = userTexts(prompt).slice(0, -1);
      chunks = [...textChunks("t", ["Earlier you said: ", earlier.map((t) => JSON.stringify(t)).join(", ") || "nothing", "."]), finish()];
      break;
    }
    default:
      chunks = [...textChunks("t", ["Hello", " from", ` ${who}.`]), finish()];
  }
  return { scenario: s, chunks, delay };
}

// A provider error the way a real one arrives: the call fails.
const usageLimit = () => Object.assign(new Error("The usage limit has been reached"), { statusCode: 429, isRetryable: false });

/** The whole reply of a call without streaming (doGenerate), as the AI SDK's LanguageModelV3 result. */
function generated(chunks, answerTool) {
  const text = chunks.filter((c) => c.type === "text-delta").map((c) => c.delta).join("");
  const calls = chunks.filter((c) => c.type === "tool-call");
  const content = calls.map(({ toolCallId, toolName, input }) => ({ type: "tool-call", toolCallId, toolName, input }));
  if (text && answerTool) content.push({ type: "tool-call", toolCallId: `call-${answerTool}-1`, toolName: answerTool, input: JSON.stringify({ response: text }) });
  else if (text) content.push({ type: "text", text });
  const unified = content.some((c) => c.type === "tool-call") ? "tool-calls" : "stop";
  return { content, finishReason: { unified, raw: unified }, usage, warnings: [] };
}

/**
 * @param {string} who   the framework's name, in the answers
 * @param {(event: object) => void} report
 * @param {{answerTool?: string, slowDelay?: number}} [opts]  answerTool: answer a call
 *   without streaming through this tool; slowDelay: ms between the 60 pieces of "slow"
 */
export function scriptedModel(who, report, { answerTool, slowDelay = 150 } = {}) {
  return new MockLanguageModelV3({
    provider: "shim-e2e",
    modelId: "scripted",
    doStream: async ({ prompt, abortSignal }) => {
      const { scenario: s, chunks, delay } = reply(who, prompt, slowDelay);
      report({ event: "model", scenario: s.name, userTexts: userTexts(prompt) });
      if (!chunks) throw usageLimit();
      const stream = simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...chunks], chunkDelayInMs: delay });
      if (abortSignal) {
        abortSignal.addEventListener("abort", () => report({ event: "model-aborted", scenario: s.name }), { once: true });
      }
      return { stream };
    },
    doGenerate: async ({ prompt, abortSignal }) => {
      const { scenario: s, chunks, delay } = reply(who, prompt, slowDelay);
      report({ event: "model", scenario: s.name, userTexts: userTexts(prompt) });
      if (!chunks) throw usageLimit();
      if (s.name === "slow") {
        // The call is pending while it "thinks": an abort now is the run stopped.
        // (BeeAI aborts a run's signal when the run ends, too: only an abort
        // while the call is pending counts.)
        await new Promise((resolve, reject) => {
          const aborted = () => {
            clearTimeout(t);
            report({ event: "model-aborted", scenario: s.name });
            reject(abortSignal.reason ?? new Error("aborted"));
          };
          const t = setTimeout(() => {
            abortSignal?.removeEventListener("abort", aborted);
            resolve();
          }, delay * chunks.length);
          abortSignal?.addEventListener("abort", aborted, { once: true });
        });
      }
      return generated(chunks, answerTool);
    },
  });
}
