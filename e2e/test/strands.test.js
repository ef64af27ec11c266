// Strands Agents' own A2A server (@strands-agents/sdk's A2AExpressServer on
// the @a2a-js/sdk 0.3.14 it takes as a peer; lib/frameworks/strands/) through
// the framework scenarios of SPEC §12.8 Tests (lib/frameworks/suite.js:
// streamed answer, second prompt, cancel, failure, approval, history; pointed
// at its card and at its endpoint alone). The checks of SPEC §16 readings
// shim does not make yet are marked todo there.
import { frameworkSuite } from "../lib/frameworks/suite.js";

frameworkSuite("strands");
