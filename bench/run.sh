#!/usr/bin/env bash
# make bench: install the npm peers when missing, build what the bench
# compares, run it, print the table and write BENCHMARKS.md.
#
#   bench/run.sh [path/to/shim]          (default bin/shim; make bench builds it)
#   PROFILE=1 bench/run.sh               also profile the heavy scenarios (bench/out/prof)
#   BENCH_FLAGS="-runs 10" bench/run.sh  extra flags for the bench program (go run ./bench -h)
set -euo pipefail
cd "$(dirname "$0")/.."

SHIM="${1:-bin/shim}"
OUT=bench/out
PEERS=bench/peers
mkdir -p "$OUT" "$PEERS"

# The two ACP agents shim is compared with at cold start, pinned.
CODEX="@zed-industries/codex-acp-linux-x64@0.16.0"
CLAUDE="@zed-industries/claude-agent-acp@0.23.1"
have() { [ -f "$PEERS/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$PEERS/node_modules/$1/package.json"; }
if ! have @zed-industries/codex-acp-linux-x64 0.16.0 || ! have @zed-industries/claude-agent-acp 0.23.1; then
	if command -v npm >/dev/null; then
		echo "installing the npm peers into $PEERS (once)"
		[ -f "$PEERS/package.json" ] || echo '{"name":"shim-bench-peers","private":true}' > "$PEERS/package.json"
		npm install --prefix "$PEERS" --no-audit --no-fund --omit=dev --loglevel=error "$CODEX" "$CLAUDE" ||
			echo "npm install failed: the peers' cold-start rows will be missing"
	else
		echo "npm not found: the peers' cold-start rows will be missing"
	fi
fi

# The floor (a static Go binary that only answers one line), measured next
# to shim.
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$OUT/floor" ./bench/floor
go build -o "$OUT/bench" ./bench

# shim with the AWS and Azure credential libraries linked into it (the
# other way to keep its platform credential helper, README "Security"):
# bench/testdata/linked.go laid into cmd/shim with -overlay, built as
# make build builds shim, measured next to it.
printf '{"Replace":{"%s":"%s"}}\n' "$PWD/cmd/shim/zz_bench_linked.go" "$PWD/bench/testdata/linked.go" >"$OUT/linked-overlay.json"
CGO_ENABLED=0 go build -trimpath -tags urfave_cli_no_docs -ldflags '-s -w' -overlay "$OUT/linked-overlay.json" \
	-o "$OUT/shim-linked" ./cmd/shim

args=(-shim "$SHIM" -peers "$PEERS" -work "$OUT" -out BENCHMARKS.md -floor "$OUT/floor"
	-variant "the AWS and Azure credential libraries linked into shim=$OUT/shim-linked")
if [ "${PROFILE:-}" = 1 ]; then
	args+=(-profile)
fi
# shellcheck disable=SC2086
exec "$OUT/bench" "${args[@]}" ${BENCH_FLAGS:-}
