#!/usr/bin/env bash
# Checks the npm layout end to end on this platform, without any registry:
# builds this platform's release (packaging/cmd/release -platforms host),
# `npm pack`s the launcher (@shimdev/shim) and this platform's package,
# installs both tarballs into a temp project offline, then runs the launcher:
#   shim --version          must print the version
#   npx --no-install shim   the same through npx
#   shim acp + initialize   the first stdout line is the initialize response
#   shim --no-such-flag     the launcher passes the non-zero exit code on
#   shim doctor (AgentCore) the platform package carries shim-platform beside
#                           shim, and shim run by the launcher reads the AWS
#                           credential through it: nothing is written to the
#                           cache directory, a helper planted there never runs
# Needs go, node and npm. Nothing is published. Usage: packaging/npm/test.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

version=${VERSION:-0.0.0}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# npm must not reach a registry: offline, and a registry that cannot answer.
export npm_config_registry=http://127.0.0.1:9/ npm_config_offline=true \
	npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false \
	npm_config_cache="$tmp/npm-cache" npm_config_loglevel=error

go run ./packaging/cmd/release all -version "$version" -commit npmtest -epoch "$epoch" \
	-platforms host -out "$tmp/dist"

platform=$(node -p 'process.platform + "-" + process.arch')
mkdir -p "$tmp/tgz" "$tmp/project"
(cd "$tmp/tgz" && npm pack --silent "$tmp/dist/npm/shim" "$tmp/dist/npm/shim-$platform" >/dev/null)
ls "$tmp/tgz"

cd "$tmp/project"
printf '{"name":"shim-npm-test","version":"1.0.0","private":true}\n' >package.json
npm install --no-save --no-package-lock "$tmp"/tgz/*.tgz

echo "--- node_modules/.bin/shim --version"
out=$(node_modules/.bin/shim --version)
echo "$out"
case "$out" in *"shim $version "*) ;; *) echo "FAIL: --version does not print $version"; exit 1 ;; esac

echo "--- npx --no-install shim --version"
out=$(npx --no-install shim --version)
case "$out" in *"shim $version "*) echo "$out" ;; *) echo "FAIL: npx: $out"; exit 1 ;; esac

echo "--- initialize through the launcher: first stdout line"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}'
first=$({ printf '%s\n' "$init"; sleep 3; } | HOME="$tmp/home" node_modules/.bin/shim acp 2>/dev/null | head -n 1 || true)
echo "$first" | cut -c1-160
case "$first" in *'"id":1'*'"authMethods"'*) ;; *) echo "FAIL: first line is not the initialize response"; exit 1 ;; esac

echo "--- exit code passes through"
set +e
node_modules/.bin/shim --no-such-flag >/dev/null 2>&1
code=$?
set -e
if [ "$code" -eq 0 ]; then echo "FAIL: an unknown flag exited 0"; exit 1; fi
echo "exit $code"
echo "--- the platform credential helper beside shim"
exe=shim helper=shim-platform
case "$platform" in win32-*) exe=shim.exe helper=shim-platform.exe ;; esac
bindir="node_modules/@shimdev/shim-$platform/bin"
for f in "$exe" "$helper"; do
	[ -f "$bindir/$f" ] || { echo "FAIL: $bindir/$f is not installed"; exit 1; }
done
ls -l "$bindir"
if [ "${platform#win32-}" = "$platform" ]; then
	# A helper planted in the cache directory leaves a mark if it runs; the
	# PATH holds node alone (the launcher's #!), so the helper found is the
	# one beside shim. The runtime's address refuses connections: the
	# credential row comes before any request, and nothing leaves the host.
	mkdir -p "$tmp/cache/shim" "$tmp/nodebin"
	ln -s "$(command -v node)" "$tmp/nodebin/node"
	printf '#!/bin/sh\ntouch %s/planted-ran\nexit 1\n' "$tmp" >"$tmp/cache/shim/shim-platform"
	chmod 700 "$tmp/cache/shim/shim-platform"
	arn='arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fshim_agent-Abc123XyZ9'
	out=$(env -i HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache" PATH="$tmp/nodebin" \
		AWS_CONFIG_FILE="$tmp/aws-config" AWS_SHARED_CREDENTIALS_FILE="$tmp/aws-credentials" AWS_EC2_METADATA_DISABLED=true \
		AWS_ACCESS_KEY_ID=AKIASHIMNPMTEST00001 AWS_SECRET_ACCESS_KEY=shim/npm/test/secret \
		node_modules/.bin/shim doctor --url "http://127.0.0.1:9/runtimes/$arn/invocations/" --platform agentcore --keyring off 2>&1 || true)
	echo "$out" | grep '^credential ' || true
	case "$out" in *"AWS environment variables (AWS_ACCESS_KEY_ID), region us-west-2"*) ;;
	*) echo "FAIL: shim did not read the credential through the helper beside it:"; echo "$out"; exit 1 ;; esac
	if [ -e "$tmp/planted-ran" ]; then echo "FAIL: the shim-platform planted in the cache directory ran"; exit 1; fi
	left=$(find "$tmp/cache" -type f)
	if [ "$left" != "$tmp/cache/shim/shim-platform" ]; then echo "FAIL: the cache directory holds: $left"; exit 1; fi
fi

echo "npm layout OK ($platform, version $version)"
