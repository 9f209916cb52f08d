#!/usr/bin/env bash
#
# release.sh — build, sign and publish a release of the project.
#
# Usage: release.sh [--dry-run] [--channel stable|beta] VERSION

set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/notify.sh"

# The artifact names, one per target triple.
readonly TARGETS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin)

# Where finished artifacts are collected.
declare -r DIST_DIR="${DIST_DIR:-dist}"

export RELEASE_CHANNEL="stable"
DRY_RUN=0
VERSION=""

# Prints a message to stderr with the script's prefix.
log() {
    printf '[release] %s\n' "$*" >&2
}

# Prints an error and exits with status 1.
die() {
    log "error: $*"
    exit 1
}

# Fails unless every named command is on the PATH.
require_cmd() {
    local cmd
    for cmd in "$@"; do
        command -v "$cmd" >/dev/null 2>&1 || die "missing command: $cmd"
    done
}

# Runs a command, or only shows it under --dry-run.
run() {
    if ((DRY_RUN)); then
        log "would run: $*"
    else
        "$@"
    fi
}

usage() {
    cat <<USAGE
Usage: ${0##*/} [--dry-run] [--channel stable|beta] VERSION

Builds every target, signs the archives and publishes them.
USAGE
}

# Reads the command line into DRY_RUN, RELEASE_CHANNEL and VERSION.
parse_args() {
    while (($# > 0)); do
        case "$1" in
            --dry-run)
                DRY_RUN=1
                ;;
            --channel)
                [[ $# -ge 2 ]] || die "--channel needs a value"
                RELEASE_CHANNEL="$2"
                shift
                ;;
            -h | --help)
                usage
                exit 0
                ;;
            -*)
                die "unknown option: $1"
                ;;
            *)
                VERSION="$1"
                ;;
        esac
        shift
    done
    [[ -n "$VERSION" ]] || die "no version given"
    [[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[a-z0-9.]+)?$ ]] || die "not a version: $VERSION"
}

# Checks that the tree is clean and tagged with the version.
check_tree() {
    if [[ -n "$(git status --porcelain)" ]]; then
        die "the working tree has changes"
    fi
    local tag
    tag="$(git describe --exact-match --tags 2>/dev/null || true)"
    [[ "$tag" == "v$VERSION" ]] || die "HEAD is not tagged v$VERSION (found '${tag:-none}')"
}

# Builds one target into the dist directory.
build_target() {
    local target="$1"
    local archive="$DIST_DIR/project-$VERSION-$target.tar.gz"
    log "building $target"
    run cargo build --release --locked --target "$target"
    run tar -czf "$archive" -C "target/$target/release" project
    echo "$archive"
}

# Builds every target; prints the archives made, one a line.
build_all() {
    mkdir -p "$DIST_DIR"
    local target
    for target in "${TARGETS[@]}"; do
        build_target "$target"
    done
}

# Signs each archive and writes its checksum next to it.
sign_archives() {
    local archive
    # The checksum file of an archive, in the format `sha256sum -c` reads.
    checksum() {
        sha256sum "$1" | awk '{ print $1 "  " $2 }' >"$1.sha256"
    }
    while IFS= read -r archive; do
        run gpg --batch --yes --detach-sign --armor "$archive"
        run checksum "$archive"
    done
}

# Uploads the signed archives to the channel's bucket.
function publish {
    local bucket="s3://releases/$RELEASE_CHANNEL/$VERSION"
    local file count=0
    for file in "$DIST_DIR"/*; do
        run aws s3 cp "$file" "$bucket/"
        count=$((count + 1))
    done
    log "published $count files to $bucket"
}

# Removes the dist directory when the script exits early.
cleanup() {
    local status=$?
    if ((status != 0)) && [[ -d "$DIST_DIR" ]]; then
        log "cleaning up after failure ($status)"
        rm -rf "$DIST_DIR"
    fi
    return "$status"
}

main() {
    parse_args "$@"
    require_cmd git cargo tar gpg sha256sum aws
    trap cleanup EXIT
    check_tree
    build_all | sign_archives
    publish
    notify_channel "$RELEASE_CHANNEL" "released $VERSION"
    log "done: $VERSION on $RELEASE_CHANNEL"
}

main "$@"
