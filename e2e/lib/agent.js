// Scripted A2A agents served by the official A2A JavaScript server
// (@a2a-js/sdk 1.3.0 with express 5): DefaultRequestHandler +
// InMemoryTaskStore + jsonRpcHandler at /a2a, agentCardHandler at the
// well-known path. The "1.0" dialect serves a 1.0-only card; "0.3" turns on
// legacyCompat on both handlers and duplicates the JSONRPC interface for
// 0.3 (shim then runs with --a2a-version 0.3, since it asks for the card
// with A2A-Version: 1.0 and so always gets the 1.0 card).
//
// A scenario is an async function (turn) => void; `turn` publishes events
// on the executor's bus through small helpers and can wait on cancellation.
// Every JSON-RPC request the server receives is recorded in `requests`.

import express from "express";
import { randomUUID } from "node:crypto";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from "@a2a-js/sdk/server";
import {
  UserBuilder,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
} from "@a2a-js/sdk/server/express";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";

export const TOOL_CALL_V1 = "https://proto-labs.ai/a2a/ext/tool-call-v1";
export const COST_V1 = "https://proto-labs.ai/a2a/ext/cost-v1";
export const REASONING_V1 = "application/vnd.protolabs.reasoning-v1+json";
export const HITL_V1 = "application/vnd.protolabs.hitl-v1+json";
export const STEER_CONSUMED_V1 = "application/vnd.protolabs.steer-consumed-v1+json";

export { TaskState };

export function textPart(text) {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

export function dataPart(value, mimeType) {
  return {
    content: { $case: "data", value },
    metadata: mimeType ? { mimeType } : undefined,
    filename: "",
    mediaType: "application/json",
  };
}

/** The text of a received message (internal SDK shape), parts joined. */
export function messageText(msg) {
  return (msg?.parts ?? [])
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One execution of the executor: helpers bound to its task and bus. */
class Turn {
  constructor(requestContext, bus, agent) {
    this.rc = requestContext;
    this.bus = bus;
    this.agent = agent;
    this.taskId = requestContext.taskId;
    this.contextId = requestContext.contextId;
    this.userMessage = requestContext.userMessage;
    this.text = messageText(requestContext.userMessage);
    this.metadata = requestContext.userMessage?.metadata ?? {};
    this.resumed = Boolean(requestContext.task);
    this.cancelled = false;
    this.finished = false;
  }

  /** The first event of every execution: the task (new or the stored one). */
  task() {
    if (this.rc.task) {
      this.bus.publish(AgentEvent.task(this.rc.task));
      return;
    }
    this.bus.publish(
      AgentEvent.task({
        id: this.taskId,
        contextId: this.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [this.userMessage],
        metadata: undefined,
      }),
    );
  }

  message(parts, metadata) {
    return {
      messageId: randomUUID(),
      contextId: this.contextId,
      taskId: this.taskId,
      role: Role.ROLE_AGENT,
      parts,
      metadata,
      extensions: [],
      referenceTaskIds: [],
    };
  }

  status(state, parts, metadata) {
    if (this.finished) return;
    const message = parts || metadata ? this.message(parts ?? [], metadata) : undefined;
    this.bus.publish(
      AgentEvent.statusUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        status: { state, message, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    if (
      [
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
        TaskState.TASK_STATE_INPUT_REQUIRED,
      ].includes(state)
    ) {
      this.finished = true;
    }
  }

  working(parts = [], metadata) {
    this.status(TaskState.TASK_STATE_WORKING, parts, metadata);
  }

  thought(text) {
    this.working([dataPart({ text }, REASONING_V1)]);
  }

  tool(payload) {
    this.working([], { [TOOL_CALL_V1]: payload });
  }

  artifact(artifactId, text, { append = false, lastChunk = false, metadata } = {}) {
    if (this.finished) return;
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: { artifactId, name: "answer", description: "", parts: [textPart(text)], metadata, extensions: [] },
        append,
        lastChunk,
        metadata: undefined,
      }),
    );
  }

  complete(text) {
    this.status(TaskState.TASK_STATE_COMPLETED, text ? [textPart(text)] : undefined);
  }

  fail(text) {
    this.status(TaskState.TASK_STATE_FAILED, [textPart(text)]);
  }

  /** The steer-consumed frame: the agent read these steers (SPEC §7). */
  steerConsumed(items) {
    this.working([dataPart({ items }, STEER_CONSUMED_V1)]);
  }

  inputRequired(text, hitl) {
    const parts = [textPart(text)];
    if (hitl) parts.push(dataPart(hitl, HITL_V1));
    this.status(TaskState.TASK_STATE_INPUT_REQUIRED, parts);
  }

  sleep(ms) {
    return sleep(ms);
  }
}

class ScriptedExecutor {
  constructor(agent) {
    this.agent = agent;
  }

  async execute(requestContext, bus) {
    const turn = new Turn(requestContext, bus, this.agent);
    this.agent.turns.push(turn);
    this.agent.live.set(turn.taskId, turn);
    try {
      await this.agent.script(turn);
      if (!turn.finished && !turn.cancelled) turn.complete();
    } finally {
      if (this.agent.live.get(turn.taskId) === turn) this.agent.live.delete(turn.taskId);
    }
  }

  async cancelTask(taskId, bus) {
    this.agent.cancels.push(taskId);
    const turn = this.agent.live.get(taskId);
    if (turn) {
      turn.cancelled = true;
      turn.finished = false;
      turn.status(TaskState.TASK_STATE_CANCELED);
      turn.finished = true;
      turn.cancelWaiters?.forEach((f) => f());
      return;
    }
    // A parked task (its executor returned; the bus is kept alive).
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: this.agent.turns.findLast((t) => t.taskId === taskId)?.contextId ?? "",
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }
}

/** Resolves when the turn is cancelled through CancelTask. */
export function whenCancelled(turn) {
  if (turn.cancelled) return Promise.resolve();
  return new Promise((resolve) => {
    turn.cancelWaiters = turn.cancelWaiters ?? [];
    turn.cancelWaiters.push(resolve);
  });
}

/**
/**
 * Starts a scripted agent on 127.0.0.1 and a random port. With binding
 * "http+json" it is served by the SDK's HTTP+JSON handler at /rest (and,
 * for 0.3, its legacy REST router) instead of JSON-RPC at /a2a; each REST
 * request is recorded with method "REST", its path and body.
 * @param {object} opts
 * @param {"1.0"|"0.3"} [opts.dialect]
 * @param {"jsonrpc"|"http+json"} [opts.binding]
 * @param {string} [opts.name]
 * @param {(turn: Turn) => Promise<void>} opts.script
 * @param {{schemes: object, requirements: object[], check: (req) => Promise<boolean>}} [opts.security]
 *   the card's securitySchemes and securityRequirements (as the 1.0 card writes them); check
 *   admits a JSON-RPC request (else 401)
 * @param {(ctx: string) => object|undefined} [opts.busy] the operator API's summary of a
 *   chat (GET /api/chat/sessions/:ctx; undefined: 404)
 * @param {(method: string) => boolean} [opts.hold] JSON-RPC methods held until the
 *   caller gives the request up (agent.aborted) or agent.release() is called
 * @param {(card: object) => Promise<object>} [opts.sign] the card served (1.0 only), made from
 *   the card once its interface is known: e.g. signed by the SDK's generateAgentCardSignature;
 *   agent.resign(sign) serves another from then on
 */
export async function startAgent({ dialect = "1.0", binding = "jsonrpc", name = "E2E Agent", script, skills = [], steer = false, security, busy, hold, sign }) {
  const legacy = dialect === "0.3";
  const agent = {
    dialect,
    name,
    script,
    turns: [],
    live: new Map(),
    cancels: [],
    requests: [],
    url: "",
    /** steers posted to the operator steering queue (with steer: true) */
    steers: [],
    steerWaiters: [],
    unsteered: [],
    /** JSON-RPC methods of held requests whose caller went away */
    aborted: [],
    held: [],
  };
  const card = {
    name,
    description: "A scripted agent for shim's end-to-end suite",
    supportedInterfaces: [],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: security?.schemes ?? {},
    securityRequirements: security?.requirements ?? [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills,
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor(agent));

  const app = express();
  // Record every JSON-RPC request: express.json() here parses the body once;
  // the SDK's own express.json() sees it parsed and leaves it.
  app.use("/a2a", express.json({ limit: "20mb" }), (req, _res, next) => {
    agent.requests.push({
      at: Date.now(),
      method: req.body?.method,
      params: req.body?.params,
      headers: { ...req.headers },
    });
    next();
  });
  if (security) {
    app.use("/a2a", async (req, res, next) => {
      if (await security.check(req)) return next();
      res.status(401).json({ error: "unauthorized" });
    });
  }
  let release;
  const released = new Promise((r) => (release = r));
  agent.release = () => release();
  if (hold) {
    app.use("/a2a", (req, res, next) => {
      const method = req.body?.method;
      if (!hold(method)) return next();
      agent.held.push(method);
      let done = false;
      res.on("close", () => {
        if (!done && !res.writableEnded) agent.aborted.push(method);
        done = true;
      });
      released.then(() => {
        if (!done) {
          done = true;
          next();
        }
      });
    });
  }
  app.use(
    "/a2a",
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      ...(legacy ? { legacyCompat: { enabled: true } } : {}),
    }),
  );
  app.use("/rest", express.json({ limit: "20mb", strict: false }), (req, _res, next) => {
    agent.requests.push({ at: Date.now(), method: "REST", path: `${req.method} ${req.originalUrl}`, body: req.body, headers: { ...req.headers } });
    next();
  });
  app.use(
    "/rest",
    restHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      ...(legacy ? { legacyCompat: { enabled: true } } : {}),
    }),
  );
  if (steer) {
    // The operator steering queue of a protoAgent instance (SPEC §7).
    app.post("/api/chat/sessions/:ctx/steer", express.json(), (req, res) => {
      const s = { ctx: req.params.ctx, id: req.body?.id, text: req.body?.text };
      agent.steers.push(s);
      res.json({ ok: true, id: s.id, pending: 1 });
      agent.steerWaiters.splice(0).forEach((f) => f(s));
    });
    app.delete("/api/chat/sessions/:ctx/steer/:id", (req, res) => {
      agent.unsteered.push(req.params.id);
      res.json({ removed: false, pending: 0 });
    });
  }
  if (busy) {
    // The operator API's summary of a chat (the busy signal, SPEC §4.3).
    app.get("/api/chat/sessions/:ctx", (req, res) => {
      const summary = busy(req.params.ctx);
      if (!summary) return res.status(404).json({ detail: "not found" });
      res.json({ session_id: req.params.ctx, turn_count: 1, last_updated: new Date().toISOString(), ...summary });
    });
  }
  /** Resolves with the next steer posted (or one already posted and not taken). */
  agent.nextSteer = (taken = 0) =>
    agent.steers.length > taken ? Promise.resolve(agent.steers[taken]) : new Promise((r) => agent.steerWaiters.push(r));
  let served;
  app.use(
    `/${AGENT_CARD_PATH}`,
    agentCardHandler({
      // A signed card is served as made (the SDK's own card handler).
      agentCardProvider: sign ? async () => served : handler,
      ...(legacy ? { legacyCompat: { enabled: true } } : {}),
    }),
  );

  const server = await new Promise((resolve, reject) => {
    const s = app.listen(0, "127.0.0.1", (err) => (err ? reject(err) : resolve(s)));
  });
  const { port } = server.address();
  agent.url = `http://127.0.0.1:${port}`;
  const rest = binding === "http+json";
  const iface = rest
    ? { url: `${agent.url}/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" }
    : { url: `${agent.url}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" };
  card.supportedInterfaces = legacy ? duplicateInterfacesForLegacy([iface], [iface.protocolBinding]) : [iface];
  agent.resign = async (how) => {
    served = await how(card);
  };
  if (sign) await agent.resign(sign);

  agent.methods = () => agent.requests.map((r) => r.method);
  /** Requests whose method is one of the names given (both dialects' names). */
  agent.calls = (...names) => agent.requests.filter((r) => names.includes(r.method));
  agent.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return agent;
}

/** The text of a wire message of either dialect. */
export function wireText(msg) {
  return (msg?.parts ?? []).map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}
