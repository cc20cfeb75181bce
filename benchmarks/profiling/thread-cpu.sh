#!/usr/bin/env bash
# The CPU each thread of a JMH fork spends per call of one user path, read from the kernel's own accounting
# (/proc/<pid>/task/*/stat) over seven 2 s iterations of measurement, threads of one kind summed (numbers in a
# thread's name are dropped). JFR's execution sampler takes only threads running Java code, not one inside the VM
# (where a stack walk fills its frames); the kernel counts both.
#
# usage: benchmarks/profiling/thread-cpu.sh BENCHMARKS_JAR PATH OUT_DIR [JVM_ARGS]
#   PATH: a UserPath, e.g. TRANSACTIONAL, POOL_ADMISSION or POOL_ADMISSION_BOUND (one caller: oneCaller)
set -euo pipefail
jar=$1; path=$2; out=$3; jvm_args=${4:-}
mkdir -p "$out"
iteration_seconds=2
log="$out/$path.log"
extra=()
[ -z "$jvm_args" ] || extra=(-jvmArgsAppend "$jvm_args")
"${JAVA_HOME:?set JAVA_HOME to a JDK 25}/bin/java" -cp "$jar" org.openjdk.jmh.Main "pathcost.UserPathBenchmark.oneCaller" \
    -p path="$path" "${extra[@]}" -f 1 -wi 12 -w "${iteration_seconds}s" -i 10 -r "${iteration_seconds}s" > "$log" 2>&1 &
jmh=$!

# Each kind of thread's CPU so far, in clock ticks, as "name|ticks" lines sorted by name.
snapshot() {
    for task in /proc/"$1"/task/*; do
        printf '%s|%s\n' "$(cat "$task/comm" 2>/dev/null)" "$(awk '{print $14 + $15}' "$task/stat" 2>/dev/null)"
    done | sed 's/[0-9]\+|/N|/' | awk -F'|' '{ticks[$1] += $2} END {for (name in ticks) print name "|" ticks[name]}' | sort
}
await_iteration() {
    until grep -q "^Iteration *$1:" "$log"; do
        kill -0 "$jmh" 2>/dev/null || { echo "the run ended early: see $log" >&2; exit 1; }
        sleep 0.05
    done
}

await_iteration 2
fork=$(pgrep -f "org.openjdk.jmh.runner.ForkedMain" | head -1)
snapshot "$fork" > "$out/$path.before"
await_iteration 9
snapshot "$fork" > "$out/$path.after"
wait "$jmh"

# Iterations 3 to 9 ran between the two snapshots: each at its own mean time a call.
calls=$(grep -E "^Iteration" "$log" | awk -v us="${iteration_seconds}e6" 'NR >= 3 && NR <= 9 {calls += us / $3} END {print calls}')
ticks_per_second=$(getconf CLK_TCK)
echo "$path: $(grep -E '^Iteration' "$log" | awk '{sum += $3; n++} END {printf "%.1f", sum / n}') µs a call, CPU a call by thread:"
join -t'|' "$out/$path.before" "$out/$path.after" \
    | awk -F'|' -v calls="$calls" -v hz="$ticks_per_second" \
        '{spent = ($3 - $2) / hz * 1e6 / calls; if (spent >= 0.05) printf "  %8.2f µs  %s\n", spent, $1}' | sort -rn
