#!/usr/bin/env node
// Launcher of @shimdev/shim: runs the shim binary that npm installed from the
// optional dependency matching this platform (@shimdev/shim-<os>-<cpu>),
// with stdio inherited (stdout carries ACP messages only), the same
// arguments, and its exit code or signal. shim is run from the package's
// own bin/, where its platform credential helper (shim-platform) sits
// beside it: shim runs the helper it finds there.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const PACKAGES = {
  "linux-x64": "@shimdev/shim-linux-x64",
  "linux-arm64": "@shimdev/shim-linux-arm64",
  "darwin-x64": "@shimdev/shim-darwin-x64",
  "darwin-arm64": "@shimdev/shim-darwin-arm64",
  "win32-x64": "@shimdev/shim-win32-x64",
  "win32-arm64": "@shimdev/shim-win32-arm64",
};

function fail(msg) {
  process.stderr.write("shim: " + msg + "\n");
  process.exit(1);
}

const key = process.platform + "-" + process.arch;
const pkg = PACKAGES[key];
if (!pkg) {
  fail(
    "no prebuilt binary for " + key + ". Build it with Go instead: " +
      "go install github.com/shimdev/shim/cmd/shim@latest"
  );
}
const exe = process.platform === "win32" ? "shim.exe" : "shim";
let bin;
try {
  bin = require.resolve(pkg + "/bin/" + exe);
} catch (err) {
  fail(
    "the package " + pkg + " is not installed; npm installs it as an optional " +
      "dependency of @shimdev/shim. Reinstall without --omit=optional / --no-optional, " +
      "or install it directly: npm install " + pkg
  );
}
if (process.platform !== "win32") {
  // npm may unpack without the mode bits: shim and the helper beside it.
  for (const file of [bin, path.join(path.dirname(bin), "shim-platform")]) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch (err) {
      try {
        fs.chmodSync(file, 0o755);
      } catch (err2) {
        // spawn (or shim, for the helper) reports the problem
      }
    }
  }
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// Forward the signals an editor sends when it stops the agent.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of forwarded) {
  process.on(sig, () => {
    try {
      child.kill(sig);
    } catch (err) {
      // already gone
    }
  });
}

child.on("error", (err) => fail("cannot run " + bin + ": " + err.message));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so our parent sees what shim saw.
    for (const sig of forwarded) process.removeAllListeners(sig);
    try {
      process.kill(process.pid, signal);
      return;
    } catch (err) {
      process.exit(1);
    }
  }
  process.exit(code === null ? 1 : code);
});
