// Signing in from the editor (SPEC §14) against a real OAuth 2.0 server in
// this process (oidc-provider, lib/oidc.js): the agent's card signs in
// with OpenID Connect and its JSON-RPC endpoint takes only the access
// tokens that server issued. The official ACP client advertises URL
// elicitation; authenticate with "Sign in to <agent>" shows the device
// page and code through elicitation/create (url mode), the person signs in
// in the "browser", shim completes the elicitation, stores the sign-in,
// and the session that follows is signed in (the page shown is the one
// with the code in it, which passes shim's page checks). A sign-in refused at the
// server, or cancelled by the client ($/cancel_request), withdraws the
// page and stores nothing; a client without URL elicitation is told to
// run `shim login` and no flow starts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DIALECTS, wire } from "../lib/dialects.js";
import { CLIENT_ID, startOP } from "../lib/oidc.js";
import { scenario } from "../lib/scenario.js";
import { initialize, textOf, textPrompt, waitFor, within } from "../lib/shim.js";

const URL_CAPS = { elicitation: { url: {} } };

/** The card's security and the endpoint's check: OpenID Connect at op. */
function secured(op) {
  return {
    schemes: { corp: { openIdConnectSecurityScheme: { openIdConnectUrl: op.discoveryURL } } },
    requirements: [{ schemes: { corp: { list: ["openid"] } } }],
    check: (req) => op.valid((req.headers.authorization ?? "").replace(/^Bearer /, "")),
  };
}

async function answer(t) {
  t.task();
  t.artifact(`${t.taskId}-answer`, "Signed in and answering.");
  t.complete();
}

/** The id the client gave its authenticate request. */
function authenticateId(shim) {
  const sent = shim.sent.find((s) => s.msg?.method === "authenticate");
  return sent?.msg?.id;
}

async function withOP(fn) {
  const op = await startOP();
  try {
    await fn(op);
  } finally {
    await op.close();
  }
}

for (const dialect of DIALECTS) {
  test(`sign in from the editor: the device page as a URL elicitation, completed, stored, the session signed in [A2A ${dialect}]`, async () => {
    await withOP(async (op) => {
      await scenario(
        { dialect, script: answer, security: secured(op), args: ["--oauth-client-id", CLIENT_ID], timeout: 40000 },
        async ({ acp, shim, agent }) => {
          const pages = [];
          shim.elicitationAnswer = async (params) => {
            pages.push(params);
            await op.approve(params.url); // the person signs in in the browser
            return { action: "accept" };
          };
          const init = await initialize(acp, 1, URL_CAPS);
          const method = init.authMethods.find((m) => m.id === "shim-oauth");
          assert.equal(method?.name, `Sign in to ${new URL(agent.url).host}`, JSON.stringify(init.authMethods));
          assert.equal(method.type, undefined, "an agent method");
          assert.ok(!init.authMethods.some((m) => m.type === "terminal"), "no terminal method without auth.terminal");

          const res = await within(acp.request("authenticate", { methodId: "shim-oauth" }), 30000, "the sign-in");
          assert.deepEqual(res ?? {}, {});
          assert.equal(pages.length, 1, "one page shown");
          const page = pages[0];
          assert.equal(page.mode, "url");
          assert.equal(page.requestId, authenticateId(shim), "scoped to the authenticate request");
          assert.equal(page.sessionId, undefined);
          assert.ok(page.url.startsWith(`${op.issuer}/device`), page.url);
          const code = /^Sign in to .*: open the page and enter the code (\S+) there/.exec(page.message)?.[1];
          assert.ok(code, page.message);
          // The page with the code in it (verification_uri_complete, of the
          // device page's origin) passes shim's page checks and is the one
          // shown (SPEC §15).
          assert.equal(new URL(page.url).searchParams.get("user_code"), code, page.url);
          await waitFor(() => shim.completed.length === 1, 5000, "elicitation/complete");
          assert.equal(shim.completed[0].elicitationId, page.elicitationId);
          assert.deepEqual(shim.withdrawn(), [], "nothing withdrawn");
          assert.ok(op.requests.some((r) => r.path === "/device/auth"), "the device-code flow ran");

          const stored = shim.credentials();
          const token = stored?.tokens?.[agent.url];
          assert.ok(await op.valid(token), "the issued access token is stored as the URL's token");
          assert.equal(stored.oauth?.[agent.url]?.agent, "E2E Agent", "the agent's name stored with the sign-in");
          assert.equal(stored.oauth?.[agent.url]?.clientId, CLIENT_ID);

          const { sessionId } = await acp.request("session/new", { cwd: "/tmp", mcpServers: [] });
          const turn = await within(acp.request("session/prompt", textPrompt(sessionId, "hello")), 10000, "the signed-in prompt");
          assert.equal(turn.stopReason, "end_turn");
          assert.equal(textOf(shim.updates(sessionId), "agent_message_chunk"), "Signed in and answering.");
          const send = agent.calls(wire(dialect).stream)[0];
          assert.equal(send.headers.authorization, `Bearer ${token}`);
          const out = shim.received.map((r) => r.text).join("\n");
          assert.ok(!out.includes(token) && !shim.stderr.includes(token), "the access token never reaches stdout or the log");
        },
      );
    });
  });
}

test("sign-in refused at the server: the page withdrawn, no elicitation/complete, -32000, nothing stored", async () => {
  await withOP(async (op) => {
    await scenario({ dialect: "1.0", script: answer, security: secured(op), args: ["--oauth-client-id", CLIENT_ID], timeout: 40000 }, async ({ acp, shim }) => {
      const asked = [];
      shim.elicitationAnswer = async (params, ctx) => {
        asked.push(ctx.requestId);
        await op.deny(params.url); // the person refuses in the browser
        return { action: "accept" };
      };
      await initialize(acp, 1, URL_CAPS);
      await assert.rejects(within(acp.request("authenticate", { methodId: "shim-oauth" }), 30000, "the refused sign-in"), (err) => {
        assert.equal(err.code, -32000);
        assert.match(err.message, /denied/);
        return true;
      });
      await waitFor(() => shim.withdrawn().length === 1, 5000, "the page withdrawn");
      assert.deepEqual(shim.withdrawn(), asked, "$/cancel_request names the elicitation");
      assert.deepEqual(shim.completed, []);
      assert.equal(shim.credentials(), null, "nothing stored");
    });
  });
});

test("sign-in cancelled by the client ($/cancel_request): the open page withdrawn, -32800, nothing stored", async () => {
  await withOP(async (op) => {
    await scenario({ dialect: "1.0", script: answer, security: secured(op), args: ["--oauth-client-id", CLIENT_ID], timeout: 40000 }, async ({ acp, shim }) => {
      const stop = new AbortController();
      let closed = false;
      shim.elicitationAnswer = (_params, ctx) =>
        // The page stays open until shim withdraws it (the person never signs in).
        new Promise((resolve) => {
          stop.abort(); // the editor gives the sign-in up
          ctx.signal.addEventListener("abort", () => {
            closed = true;
            resolve({ action: "cancel" });
          });
        });
      await initialize(acp, 1, URL_CAPS);
      await assert.rejects(
        within(acp.request("authenticate", { methodId: "shim-oauth" }, { cancellationSignal: stop.signal }), 30000, "the cancelled sign-in"),
        (err) => {
          assert.equal(err.code, -32800);
          return true;
        },
      );
      await waitFor(() => closed, 5000, "the page closed by shim's $/cancel_request");
      assert.equal(shim.withdrawn().length, 1);
      assert.deepEqual(shim.completed, []);
      assert.equal(shim.credentials(), null, "nothing stored");
    });
  });
});

test("a client without URL elicitation: offered the sign-in, told to run shim login, no flow, no page", async () => {
  await withOP(async (op) => {
    await scenario({ dialect: "1.0", script: answer, security: secured(op), args: ["--oauth-client-id", CLIENT_ID] }, async ({ acp, shim }) => {
      const init = await initialize(acp, 1);
      assert.deepEqual(
        init.authMethods.map((m) => [m.id, m.type ?? "agent"]),
        [["shim-credentials", "agent"], ["shim-login", "agent"], ["shim-oauth", "agent"]],
      );
      assert.ok(init.authMethods[1]._meta?.["terminal-auth"], "the legacy terminal sign-in, as before");
      await assert.rejects(acp.request("authenticate", { methodId: "shim-oauth" }), (err) => {
        assert.equal(err.code, -32000);
        assert.match(err.message, /shim login/);
        return true;
      });
      assert.deepEqual(shim.requestsFromShim("elicitation/create"), []);
      assert.ok(!op.requests.some((r) => r.path === "/device/auth"), "no flow started");
    });
  });
});
