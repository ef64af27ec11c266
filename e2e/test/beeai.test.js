// BeeAI Framework's own A2A server (beeai-framework's A2AServer on the
// @a2a-js/sdk 0.3.14 it takes as a peer; lib/frameworks/beeai/) through the
// framework scenarios of SPEC §12.8 Tests (lib/frameworks/suite.js: answer,
// second prompt, cancel, failure, history; pointed at its card and at its
// endpoint alone; its TypeScript tools have no approval step). The checks of
// SPEC §16 readings shim does not make yet are marked todo there.
import { frameworkSuite } from "../lib/frameworks/suite.js";

frameworkSuite("beeai");
