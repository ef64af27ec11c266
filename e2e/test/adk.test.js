// Google ADK for TypeScript's own A2A server (toA2a) through the framework
// scenarios of SPEC §12.8 Tests (lib/frameworks/suite.js: streamed answer,
// second prompt, cancel, failure, approval, history; pointed at its card and
// at its endpoint alone). Its model is ADK's own Gemini client talking to a
// scripted Gemini API on loopback (lib/frameworks/adk.mjs).
import { frameworkSuite } from "../lib/frameworks/suite.js";

frameworkSuite("adk");
