// Mastra's own A2A server through the framework scenarios of SPEC §12.8 Tests
// (lib/frameworks/suite.js: streamed answer, second prompt, cancel, failure,
// approval, history; pointed at its card and at its endpoint alone).
import { frameworkSuite } from "../lib/frameworks/suite.js";

frameworkSuite("mastra");
