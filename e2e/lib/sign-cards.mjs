// Signs agent cards with the official A2A JavaScript SDK's
// generateAgentCardSignature (@a2a-js/sdk 1.3.0), for the Go tests of
// a2a/cardsig to verify on a fresh clone without node. Run once by hand:
//
//   node e2e/lib/sign-cards.mjs a2a/cardsig/testdata/sdk
//
// It writes, for each algorithm the SDK signs with (ES256, ES384, EdDSA,
// RS256, PS256; new keys each run):
//   <alg>-jwk.json  the card signed with the public key in the protected
//                   header (jwk), as a first use pins it;
//   <alg>-jku.json  the card signed with kid + jku (the JWKS on the card's
//                   own origin, https://agent.example/jwks.json);
// and jwks.json (every public key, by kid), raw-as-returned.json (a card
// the SDK normalizes before signing, served as generateAgentCardSignature
// returns it: the input card plus signatures), normalized.json (what the
// SDK signs for that card: canonicalizeAgentCard's output).
//
// The SDK signs canonicalizeAgentCard(card): the card round-tripped
// through its v1.0 AgentCard type (members outside the schema dropped,
// members equal to their protobuf default dropped), then every empty
// string, null, empty list and empty object dropped, then JCS. The signed
// cards here are served in that normalized form (SPEC §17: an SDK that
// normalizes the card before signing serves the normalized form).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as jose from "jose";
import { canonicalizeAgentCard, generateAgentCardSignature } from "@a2a-js/sdk";

const out = process.argv[2];
if (!out) {
  console.error("usage: node e2e/lib/sign-cards.mjs <output dir>");
  process.exit(2);
}
mkdirSync(out, { recursive: true });

const origin = "https://agent.example";
const card = {
  name: "Signed test agent",
  description: "An agent whose card is signed by the A2A JavaScript SDK.",
  version: "1.0.0",
  supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  provider: { organization: "Example", url: origin },
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Says it back, «unicode» ✓", tags: ["test"], examples: ["hi"] }],
};
// The form the SDK signs, served as is.
const normalized = JSON.parse(canonicalizeAgentCard(card));

const write = (name, value) => writeFileSync(join(out, name), JSON.stringify(value, null, 2) + "\n");

const keys = [];
for (const alg of ["ES256", "ES384", "EdDSA", "RS256", "PS256"]) {
  const { publicKey, privateKey } = await jose.generateKeyPair(alg, { extractable: true, crv: alg === "EdDSA" ? "Ed25519" : undefined });
  const kid = `sdk-${alg.toLowerCase()}`;
  const jwk = { ...(await jose.exportJWK(publicKey)), kid };
  keys.push(jwk);
  const pub = { ...jwk };
  delete pub.kid;
  write(`${alg}-jwk.json`, await generateAgentCardSignature(privateKey, { alg, kid, typ: "JOSE", jwk: pub })(normalized));
  write(`${alg}-jku.json`, await generateAgentCardSignature(privateKey, { alg, kid, typ: "JOSE", jku: `${origin}/jwks.json` })(normalized));
  if (alg === "ES256") {
    // A card with members the SDK's normalization drops (an empty
    // string, a false default, a member outside the schema), served as
    // the SDK returns it.
    const raw = { ...card, documentationUrl: "", capabilities: { ...card.capabilities, extendedAgentCard: false }, "x-vendor": { a: 1 } };
    write("raw-as-returned.json", await generateAgentCardSignature(privateKey, { alg, kid, typ: "JOSE", jwk: pub })(raw));
    write("normalized.json", JSON.parse(canonicalizeAgentCard(raw)));
  }
}
write("jwks.json", { keys });
