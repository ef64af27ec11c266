// The official ACP v1 JSON schema (draft 2020-12), and the definition a
// message is checked against, named by its method and side the way the
// schema annotates them (x-method, x-side):
//   a request the agent sends       → x-side "client", x-method M, "…Request"
//   a notification the agent sends  → x-side "client", x-method M, "…Notification"
//                                     ($/cancel_request: x-side "protocol")
//   a response to the client's M    → x-side "agent",  x-method M, "…Response"
//   an error response               → Error

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

const here = dirname(fileURLToPath(import.meta.url));
export const SCHEMA_PATH =
  process.env.ACP_SCHEMA ?? resolve(here, "../../internal/acptest/testdata/schema.v1.json");

const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The numeric formats the schema uses (from the Rust types it is generated from).
const intFormat = (min, max) => ({
  type: "number",
  validate: (n) => Number.isInteger(n) && n >= min && n <= max,
});
ajv.addFormat("int32", intFormat(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("int64", intFormat(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint16", intFormat(0, 2 ** 16 - 1));
ajv.addFormat("uint32", intFormat(0, 2 ** 32 - 1));
ajv.addFormat("uint64", intFormat(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: (n) => Number.isFinite(n) });
ajv.addSchema(schema, "acp.json");

const defs = new Map();
for (const [name, def] of Object.entries(schema.$defs)) {
  if (!def["x-method"]) continue;
  for (const kind of ["Request", "Response", "Notification"]) {
    if (name.endsWith(kind)) defs.set(`${def["x-side"]} ${def["x-method"]} ${kind}`, name);
  }
}

const compiled = new Map();

/** The $defs name for a method on a side and a kind, or undefined. */
export function defFor(side, method, kind) {
  return defs.get(`${side} ${method} ${kind}`);
}

// Compile up front what shim's messages are checked against, so that no
// compile runs while a timed scenario reads shim's output.
for (const def of [...defs.values(), "Error"]) {
  const side = schema.$defs[def]?.["x-side"];
  // What the client sends (agent-side requests, client-side responses) is not checked here.
  if ((def.endsWith("Request") && side === "agent") || (def.endsWith("Response") && side === "client")) continue;
  compiled.set(def, ajv.getSchema(`acp.json#/$defs/${def}`));
}

/** Validates a value against one $defs entry; returns an error string or null. */
export function validateDef(def, value) {
  let v = compiled.get(def);
  if (!v) {
    v = ajv.getSchema(`acp.json#/$defs/${def}`);
    if (!v) return `no $defs entry ${def}`;
    compiled.set(def, v);
  }
  if (v(value)) return null;
  const why = ajv.errorsText(v.errors, { separator: "; " });
  return `${def}: ${why.length > 600 ? why.slice(0, 600) + " …" : why}`;
}

/**
 * Validates one message the agent (shim) wrote. methodOf maps the id of a
 * client request to its method. Returns null when valid, else why not.
 */
export function validateAgentMessage(msg, methodOf) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return "not a JSON object";
  if (msg.jsonrpc !== "2.0") return `jsonrpc is ${JSON.stringify(msg.jsonrpc)}, want "2.0"`;
  const hasId = Object.hasOwn(msg, "id");
  if (typeof msg.method === "string") {
    const kind = hasId && msg.id !== null ? "Request" : "Notification";
    // $/cancel_request is either side's (x-side "protocol").
    const def = defFor("client", msg.method, kind) ?? defFor("protocol", msg.method, kind);
    if (!def) return `agent sent ${kind.toLowerCase()} ${msg.method} that the schema does not define`;
    return validateDef(def, msg.params ?? null);
  }
  if (!hasId) return "neither request, notification nor response";
  const hasResult = Object.hasOwn(msg, "result");
  const hasError = Object.hasOwn(msg, "error");
  if (hasResult === hasError) return "a response needs exactly one of result and error";
  if (hasError) return validateDef("Error", msg.error);
  const method = methodOf(msg.id);
  if (!method) return `response to unknown request id ${JSON.stringify(msg.id)}`;
  if (method === "_session/steering") return validateSteering(msg.result);
  if (method === "session/set_model") return validateSetModel(msg.result);
  const def = defFor("agent", method, "Response");
  if (!def) return `no schema definition for the ${method} response`;
  return validateDef(def, msg.result);
}

// The steering extension (SPEC §11.4) is not in the v1 schema: its answer
// is {outcome} with one of three values (the shape editors and the Claude
// and Codex ACP adapters share).
const validateSteeringSchema = ajv.compile({
  type: "object",
  required: ["outcome"],
  properties: {
    outcome: { enum: ["injected", "promptRequired", "failed"] },
    reason: { type: "string" },
    _meta: { type: ["object", "null"] },
  },
});

// session/set_model (SPEC §14) left the v1 schema; older clients still send
// it. Its answer is the schema's earlier SetSessionModelResponse: an object
// with only _meta.
const validateSetModelSchema = ajv.compile({
  type: "object",
  additionalProperties: false,
  properties: { _meta: { type: ["object", "null"] } },
});

function validateSetModel(result) {
  if (validateSetModelSchema(result)) return null;
  return `session/set_model response: ${ajv.errorsText(validateSetModelSchema.errors)}`;
}

function validateSteering(result) {
  if (validateSteeringSchema(result)) return null;
  return `_session/steering response: ${ajv.errorsText(validateSteeringSchema.errors)}`;
}
