// Preload for the Gemini CLI A2A server (node --import): its sockets listen
// on 127.0.0.1 only, and fetch() to any other host (telemetry) is refused.
import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    if (typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
  } else if (args[0] && typeof args[0] === "object" && !args[0].path) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
const fetch0 = globalThis.fetch;
globalThis.fetch = async function (input, init) {
  const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) throw new TypeError(`offline: ${u.host}`);
  return fetch0.call(this, input, init);
};
