#!/usr/bin/env bash
set -euo pipefail

log() { echo "[deploy] $*"; }

function build {
    log "building"
    cargo build --release
}

deploy_to() {
    local host=$1
    log "to $host"
}

build
