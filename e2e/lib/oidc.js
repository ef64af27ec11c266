// A real OAuth 2.0 / OpenID Connect authorization server in the test
// process: panva's oidc-provider (exact version in package.json) on
// 127.0.0.1 and a random port, with the device authorization grant (RFC
// 8628) on and one public client. Its in-memory adapter and development
// keys are what the library uses unconfigured (it says so on the console);
// on Node 20 it also warns that it wants Node 22, and runs.
//
// The person at the browser is this file too: approve() opens the
// verification URL the way a browser does (cookies, redirects, the form
// the page submits) and signs in at the interaction step through the
// library's own interaction API (interactionDetails, interactionFinished),
// as an application's sign-in page does; deny() answers "abort" instead.

import http from "node:http";
import Provider from "oidc-provider";

export const CLIENT_ID = "shim-e2e";
export const ACCOUNT = "e2e-user";

export async function startOP() {
  const server = http.createServer();
  await new Promise((resolve, reject) => server.listen(0, "127.0.0.1", (err) => (err ? reject(err) : resolve())));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: "none",
        grant_types: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
        response_types: [],
        redirect_uris: [],
      },
    ],
    features: { deviceFlow: { enabled: true }, devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    cookies: { keys: ["shim-e2e-cookie-key"] },
    ttl: { AccessToken: 3600, DeviceCode: 600, Grant: 3600, IdToken: 3600, Interaction: 600, Session: 3600, RefreshToken: 86400 },
  });
  const op = { issuer, provider, requests: [] };
  const serve = provider.callback();
  server.on("request", async (req, res) => {
    op.requests.push({ method: req.method, path: new URL(req.url, issuer).pathname });
    if (req.url.startsWith("/interaction/")) {
      // The application's sign-in page: the user signs in and consents.
      try {
        const details = await provider.interactionDetails(req, res);
        const grant = new provider.Grant({ accountId: ACCOUNT, clientId: details.params.client_id });
        grant.addOIDCScope(details.params.scope ?? "openid");
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId: ACCOUNT }, consent: { grantId } }, { mergeWithLastSubmission: false });
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
      return;
    }
    serve(req, res);
  });
  op.discoveryURL = `${issuer}/.well-known/openid-configuration`;
  /** Signs in at the verification URL (the user code in it). */
  op.approve = async (url) => {
    const page = await verify(url, { confirm: "yes" });
    if (!/Sign-in Success/.test(page.text)) throw new Error(`the device sign-in did not succeed: ${page.status} ${page.text.slice(0, 300)}`);
  };
  /** Refuses the sign-in at the verification URL (the user code in it). */
  op.deny = (url) => verify(url, { abort: "yes" });
  /** Whether the access token is one the server issued and still takes. */
  op.valid = async (token) => Boolean(token && (await provider.AccessToken.find(token)));
  op.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return op;
}

/**
 * A browser at the verification URL: it loads the page, submits the form
 * the page submits by itself (the user code) with the person's answer,
 * and follows redirects with the cookies it was given.
 */
async function verify(url, answer) {
  const jar = new Map();
  const open = async (target, form) => {
    let init = form ? { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() } : {};
    for (let hops = 0; hops < 10; hops++) {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const res = await fetch(target, { ...init, headers: { ...(init.headers ?? {}), ...(cookie ? { cookie } : {}) }, redirect: "manual" });
      for (const c of res.headers.getSetCookie()) {
        const [kv] = c.split(";");
        const at = kv.indexOf("=");
        jar.set(kv.slice(0, at), kv.slice(at + 1));
      }
      if (res.status < 300 || res.status >= 400) return { status: res.status, url: target, text: await res.text() };
      target = new URL(res.headers.get("location"), target).href;
      init = {};
    }
    throw new Error("too many redirects");
  };
  const page = await open(url);
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(page.text);
  if (!form) throw new Error(`no form at the verification URL: ${page.status} ${page.text.slice(0, 300)}`);
  const fields = Object.fromEntries([...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((f) => [f[1], f[2]]));
  return open(new URL(form[1], url).href, { ...fields, ...answer });
}
