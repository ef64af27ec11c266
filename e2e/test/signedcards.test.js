// Signed agent cards (SPEC §17): cards signed by the official A2A
// JavaScript SDK (@a2a-js/sdk 1.3.0, generateAgentCardSignature, with each
// algorithm it signs with) and served by its own card handler, in the
// normalized form the SDK signs (canonicalizeAgentCard). The official ACP
// client drives shim: a signed card is used and its key pinned (the
// thumbprint jose computes, RFC 7638); a card then signed by another key
// is refused with -32000 and data.reason card_signature, and the agent
// gets no request after the card.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as jose from "jose";
import { canonicalizeAgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import { startAgent } from "../lib/agent.js";
import { scenario } from "../lib/scenario.js";
import { initialize, tempDir, textPrompt } from "../lib/shim.js";

const answerScript = async (t) => {
  t.task();
  t.artifact(`${t.taskId}-answer`, "signed hello");
  t.complete();
};

/** A new key of alg and the signer the SDK makes with it (jwk in the protected header). */
async function sdkSigner(alg) {
  const { publicKey, privateKey } = await jose.generateKeyPair(alg, { extractable: true, crv: alg === "EdDSA" ? "Ed25519" : undefined });
  const jwk = await jose.exportJWK(publicKey);
  const sign = (card) =>
    generateAgentCardSignature(privateKey, { alg, kid: `e2e-${alg.toLowerCase()}`, typ: "JOSE", jwk })(JSON.parse(canonicalizeAgentCard(card)));
  return { sign, thumbprint: await jose.calculateJwkThumbprint(jwk, "sha256") };
}

const pinsOf = (configDir) => JSON.parse(readFileSync(join(configDir, "known_agents.json"), "utf8"));

for (const alg of ["ES256", "ES384", "EdDSA", "RS256", "PS256"]) {
  test(`a card the SDK signs with ${alg} is used, and its key pinned`, async () => {
    const key = await sdkSigner(alg);
    const config = tempDir("shim-config-");
    await scenario({ dialect: "1.0", script: answerScript, sign: key.sign, args: ["--config-dir", config] }, async ({ acp, agent }) => {
      await initialize(acp);
      const s = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
      const r = await acp.request("session/prompt", textPrompt(s.sessionId, "hi"));
      assert.equal(r.stopReason, "end_turn");
      const pins = pinsOf(config);
      const pin = pins.agents[`${agent.url}/.well-known/agent-card.json`];
      assert.equal(pin?.thumbprint, key.thumbprint, `pinned ${JSON.stringify(pins)}`);
    });
  });
}

test("a card signed by another key than the pinned one is refused, and nothing is sent after it", async () => {
  const first = await sdkSigner("ES256");
  const second = await sdkSigner("EdDSA");
  const config = tempDir("shim-config-");
  const agent = await startAgent({ dialect: "1.0", script: answerScript, sign: first.sign });
  try {
    await scenario({ dialect: "1.0", agent, args: ["--config-dir", config] }, async ({ acp }) => {
      await initialize(acp);
      await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
    });
    await agent.resign(second.sign);
    const before = agent.requests.length;
    await scenario({ dialect: "1.0", agent, args: ["--config-dir", config, "--token", "tok-e2e-signed-0123456789"] }, async ({ acp }) => {
      await initialize(acp);
      for (let i = 0; i < 2; i++) {
        const err = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] }).then(
          (r) => assert.fail(`answered ${JSON.stringify(r)}`),
          (e) => e,
        );
        assert.equal(err.code, -32000);
        assert.equal(err.data?.reason, "card_signature");
        assert.equal(err.data?.pinned, first.thumbprint);
        assert.equal(err.data?.offered, second.thumbprint);
        assert.match(err.message, /shim login --trust-new-key/);
      }
    });
    assert.deepEqual(agent.requests.slice(before), [], "no A2A request after the refused card");
    assert.equal(pinsOf(config).agents[`${agent.url}/.well-known/agent-card.json`].thumbprint, first.thumbprint);
  } finally {
    await agent.close();
  }
});
