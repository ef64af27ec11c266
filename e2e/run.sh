#!/usr/bin/env bash
# The end-to-end interop suite: the official ACP TypeScript client drives the
# built shim against scripted agents on the official A2A JavaScript server.
#
#   e2e/run.sh                      # after `make build` (uses bin/shim)
#   SHIM_BIN=path/to/shim e2e/run.sh   # relative to the current directory
#
# Installs the exact packages of package-lock.json (npm ci), and of the
# frameworks' own projects under lib/frameworks/, then runs
# `npm test` (node --test). Offline-tolerant: a node_modules already installed
# from this lockfile is kept as is, and npm ci prefers the local npm cache.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# SHIM_BIN is relative to the caller's directory; the default is bin/shim.
if [ -n "${SHIM_BIN:-}" ]; then
  case "$SHIM_BIN" in /*) ;; *) SHIM_BIN="$PWD/$SHIM_BIN" ;; esac
else
  SHIM_BIN="$here/../bin/shim"
fi
export SHIM_BIN
cd "$here"

command -v node >/dev/null || { echo "e2e: needs Node.js >= 20 (node not found)" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "e2e: needs Node.js >= 20, found $(node --version)" >&2
  exit 1
fi

if [ ! -x "$SHIM_BIN" ]; then
  echo "e2e: no shim binary at $SHIM_BIN; run 'make build' first or set SHIM_BIN" >&2
  exit 1
fi

# The suite's packages, then the frameworks that are npm projects of their own
# (lib/frameworks/<name>/: they take @a2a-js/sdk 0.3.x as a peer, and the
# suite's own is 1.x).
for dir in . lib/frameworks/strands lib/frameworks/beeai; do
  stamp=$dir/node_modules/.e2e-package-lock.json
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
    echo "e2e: $dir/node_modules already matches its package-lock.json"
  else
    # npm ci has been seen to hang, idle with no socket open, after its
    # last fetch (once in a few runs here, another npm ci sharing the
    # cache): bounded, then tried once more from scratch.
    (cd "$dir" && { timeout 600 npm ci --prefer-offline --no-audit --no-fund ||
      { echo "e2e: npm ci in $dir failed or hung; trying once more" >&2; rm -rf node_modules;
        timeout 600 npm ci --prefer-offline --no-audit --no-fund; }; })
    cp "$dir/package-lock.json" "$stamp"
  fi
done

npm test
