// One scenario: a scripted agent on the official A2A server, a shim process
// pointed at it, and the official ACP client driving shim.

import assert from "node:assert/strict";
import { startAgent } from "./agent.js";
import { dialectArgs } from "./dialects.js";
import { Shim } from "./shim.js";

/**
 * @param {object} o
 * @param {string} o.dialect     "1.0" or "0.3"
 * @param {string} [o.binding]   "jsonrpc" (default) or "http+json"
 * @param {Function} [o.script]  the agent's script (turn) => Promise<void>
 * @param {object} [o.agent]     an agent already started (then not closed here)
 * @param {string[]} [o.args]    more shim flags
 * @param {string} [o.stateDir]  shared --state-dir
 * @param {boolean} [o.outlive] the op outlives shim (uses connect(), not connectWith())
 * @param {object} [o.security], [o.busy], [o.hold], [o.sign] the agent's (startAgent)
 * @param {(ctx: {acp, shim, agent}) => Promise<void>} op
 */
export async function scenario(o, op) {
  const agent =
    o.agent ??
    (await startAgent({
      dialect: o.dialect, binding: o.binding, script: o.script, name: o.name, skills: o.skills, steer: o.steer,
      security: o.security, busy: o.busy, hold: o.hold, sign: o.sign,
    }));
  try {
    const shim = new Shim({ url: agent.url, stateDir: o.stateDir, args: [...dialectArgs(o.dialect), ...(o.args ?? [])] });
    await shim.run((acp) => op({ acp, shim, agent }), { timeout: o.timeout ?? 20000, outlive: o.outlive });
    shim.assertClean(assert);
    return shim;
  } finally {
    if (!o.agent) await agent.close();
  }
}
