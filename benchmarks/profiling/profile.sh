#!/usr/bin/env bash
# Records one user path under JMH with JFR: CPU-time samples every 2 ms of CPU per thread, allocation samples,
# park, lock and context-switch events (JFR's "profile" settings), 15 s of measurement after 8 s of warm-up, and
# JMH's allocation per call (-prof gc). Read the recording with stacks.py, callees.py and allocshare.py.
#
# usage: benchmarks/profiling/profile.sh BENCHMARKS_JAR PATH METHOD OUT_DIR
#   PATH: TRANSACTIONAL, STARTER, STARTER_METERS, STARTER_OBSERVED, STARTER_TRACED or RESILIENCE4J
#   METHOD: oneCaller, eightCallers or thirtyTwoCallers
set -euo pipefail
jar=$1; path=$2; method=$3; out=$4
mkdir -p "$out"
recording="$out/$path-$method.jfr"
"${JAVA_HOME:?set JAVA_HOME to a JDK 25}/bin/java" -cp "$jar" org.openjdk.jmh.Main "pathcost.UserPathBenchmark.$method" \
    -p path="$path" -f 1 -wi 3 -w 2s -i 1 -r 15s -prof gc \
    -jvmArgsAppend "-XX:StartFlightRecording=filename=$recording,settings=profile,delay=8s,duration=15s,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms,jdk.ObjectAllocationSample#throttle=2000/s" \
    > "$out/$path-$method.log" 2>&1
grep -E "$method +|alloc.rate.norm +" "$out/$path-$method.log"
echo "recording: $recording"
