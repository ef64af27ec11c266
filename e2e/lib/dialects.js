// The A2A dialects every scenario runs in, and the shim flags for each. The
// js server's card handler answers a request with `A2A-Version: 1.0` (which
// shim always sends) with the 1.0 card, so the 0.3 dialect is chosen with
// --a2a-version 0.3 against the legacyCompat server, whose card lists the
// JSONRPC interface at 1.0 and 0.3.
export const DIALECTS = (process.env.E2E_DIALECTS ?? "1.0,0.3").split(",").map((s) => s.trim()).filter(Boolean);

export function dialectArgs(dialect) {
  return dialect === "0.3" ? ["--a2a-version", "0.3"] : [];
}

/** The wire method names of a dialect. */
export function wire(dialect) {
  return dialect === "0.3"
    ? { stream: "message/stream", cancel: "tasks/cancel", get: "tasks/get" }
    : { stream: "SendStreamingMessage", cancel: "CancelTask", get: "GetTask" };
}
