// The scripted model both AI SDK frameworks (Mastra, VoltAgent) run on: the
// AI SDK's own MockLanguageModelV3 from `ai/test` (ai 6.0.326), no network.
// The reply is chosen by a "[scenario:NAME]" tag in the newest user text; a
// prompt whose last message is a tool result gets a closing answer naming the
// tool. Every call is reported through `report` (the launcher prints it as a
// JSON line the test reads), so a test can wait on what the model saw.
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

/**
 * @param {string} who   the framework's name, in the answers
 * @param {(event: object) => void} report
 */
export function scriptedModel(who, report) {
  return new MockLanguageModelV3({
    provider: "shim-e2e",
    modelId: "scripted",
    doStream: async ({ prompt, abortSignal }) => {
      const s = scenarioOf(prompt);
      report({ event: "model", scenario: s.name, userTexts: userTexts(prompt) });
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
          // A provider error the way a real one arrives: the call fails.
          throw Object.assign(new Error("The usage limit has been reached"), { statusCode: 429, isRetryable: false });
        case "slow":
          delay = 150;
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
      const stream = simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...chunks], chunkDelayInMs: delay });
      if (abortSignal) {
        abortSignal.addEventListener("abort", () => report({ event: "model-aborted", scenario: s.name }), { once: true });
      }
      return { stream };
    },
  });
}
