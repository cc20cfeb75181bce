package dev.dbbulkhead.sample.load;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Offers the running sample more than its database can take, over real HTTP, and prints per workload what
 * happened. Two phases of equal length: {@code orders} alone at a steady rate, then the same {@code orders} traffic
 * while {@code reports} floods — so the table shows whether the flood starves orders.
 *
 * <p>Needs only a JDK 17 or newer, run as a single source file: {@code java
 * sample-app/src/main/java/dev/dbbulkhead/sample/load/LoadCommand.java [baseUrl] [secondsPerPhase]
 * [ordersPerSecond] [reportsPerSecond]} ({@code --help} prints this usage). Bounded in time: each phase offers for
 * its seconds, then waits at most 15 s for answers; a five-second warm-up at a quarter of the orders rate comes
 * first and is not reported.
 *
 * <p>After the table it prints a legend, what the table should look like, and whether it did; and a warning when
 * the machine was too busy for the figures to say anything about the gates: when this client's own threads woke
 * late, could not offer the load on time, or the sample's machine had more runnable work than CPUs.
 *
 * <p>On Java 21 or newer every request runs on a virtual thread of its own; on Java 17 on a platform thread of its
 * own (a thread per request in flight, as many as the rates and the 10 s request timeout allow). Virtual threads
 * are reached by reflection, so that the file compiles and runs on Java 17 too.
 */
public final class LoadCommand {

    private static final Pattern REASON = Pattern.compile("\"reason\"\\s*:\\s*\"(\\w+)\"");
    private static final Pattern GAUGE_VALUE = Pattern.compile("\"statistic\"\\s*:\\s*\"VALUE\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.]+)");
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(15);
    /** An offer sent later than this after its planned time was not offered at the rate asked for. */
    private static final Duration LATE_OFFER = Duration.ofMillis(50);
    /** Beyond this p99 of the client's own wake-up lag, its latencies measure the machine more than the sample. */
    private static final Duration BUSY_CLIENT_LAG = Duration.ofMillis(20);
    private static final List<String> GATE_REASONS = List.of("ADMISSION_FULL", "QUEUE_TIMEOUT", "INTERRUPTED");
    private static final String USAGE = "usage: java sample-app/src/main/java/dev/dbbulkhead/sample/load/LoadCommand.java"
            + " [baseUrl] [secondsPerPhase] [ordersPerSecond] [reportsPerSecond]%n"
            + "  baseUrl           the running sample (default http://localhost:8080)%n"
            + "  secondsPerPhase   length of each of the two phases (default 10)%n"
            + "  ordersPerSecond   orders offered per second in both phases (default 40)%n"
            + "  reportsPerSecond  reports offered per second in the second phase (default 100)%n"
            + "%n"
            + "   or: java sample-app/src/main/java/dev/dbbulkhead/sample/load/LoadCommand.java refusals"
            + " [baseUrl] [seconds] [reportsPerSecond]%n"
            + "  floods reports (B=2, no queue) with browsers and API clients in turn, over HTTP/1.1 and then over"
            + " HTTP/2%n"
            + "  (h2c: start the sample with --server.http2.enabled=true), and prints what a refusal costs each%n"
            + "  seconds           length of each protocol's flood (default 10)%n"
            + "  reportsPerSecond  reports offered per second (default 200)%n";

    private final HttpClient http;
    private final String baseUrl;

    private LoadCommand(String baseUrl) {
        this.baseUrl = baseUrl;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).executor(Threads.perTaskExecutor()).build();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.printf(USAGE);
            return;
        }
        if (args.length > 0 && args[0].equals("refusals")) {
            RefusalCost.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        String baseUrl = args.length > 0 ? args[0] : "http://localhost:8080";
        int seconds;
        int ordersPerSecond;
        int reportsPerSecond;
        try {
            seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
            ordersPerSecond = args.length > 2 ? Integer.parseInt(args[2]) : 40;
            reportsPerSecond = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        } catch (NumberFormatException notANumber) {
            System.err.printf("not a whole number: %s%n" + USAGE, notANumber.getMessage());
            System.exit(2);
            return;
        }
        LoadCommand load = new LoadCommand(baseUrl);
        System.out.printf("Offering %d orders/s for %d s, then the same with %d reports/s (each report holds a"
                + " connection for 200 ms: the reports gate takes 2 at a time, about 10/s)%n%n",
                ordersPerSecond, seconds, reportsPerSecond);
        // A gentle warm-up, not reported: a cold JVM would otherwise be measured, not the gates.
        load.run("warm-up", 5, Map.of("orders", Math.max(1, ordersPerSecond / 4), "reports", 2));
        PoolWatcher watcher = load.new PoolWatcher();
        Thread watching = Threads.start(watcher);
        SchedulingLag lag = new SchedulingLag();
        Thread lagProbe = lag.start();
        Phase alone = load.run("orders alone", seconds, Map.of("orders", ordersPerSecond));
        alone.serverLoad = load.serverLoad();
        Phase flooded = load.run("orders + reports flood", seconds,
                Map.of("orders", ordersPerSecond, "reports", reportsPerSecond));
        flooded.serverLoad = load.serverLoad();
        watcher.stop();
        lag.stop();
        watching.join();
        lagProbe.join();
        List<Phase> phases = List.of(alone, flooded);
        print(phases, watcher.highest());
        printLegend(seconds);
        printVerdict(phases, watcher.highest());
        printBusyMachineWarning(phases, lag);
    }

    /** Offers each workload its rate for {@code seconds}, open loop: a slow answer does not slow the offer. */
    private Phase run(String name, int seconds, Map<String, Integer> ratesPerSecond) throws InterruptedException {
        Phase phase = new Phase(name);
        List<Thread> offerers = new ArrayList<>();
        ExecutorService requests = Threads.perTaskExecutor();
        try {
            ratesPerSecond.forEach((workload, rate) -> offerers.add(Threads.start(() -> {
                Stats stats = phase.stats(workload);
                long interval = TimeUnit.SECONDS.toNanos(1) / rate;
                long start = System.nanoTime();
                long total = (long) rate * seconds;
                for (long i = 0; i < total; i++) {
                    long planned = start + i * interval;
                    LockSupport.parkNanos(planned - System.nanoTime());
                    if (System.nanoTime() - planned > LATE_OFFER.toNanos()) {
                        stats.offeredLate.increment();
                    }
                    stats.offered.increment();
                    requests.submit(() -> call(workload, stats));
                }
            })));
            for (Thread offerer : offerers) {
                offerer.join();
            }
            requests.shutdown();
            if (!requests.awaitTermination(DRAIN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                requests.shutdownNow();
            }
        } finally {
            // What ExecutorService.close() does on Java 19+: every request has ended before the phase is reported.
            requests.shutdown();
            while (!requests.awaitTermination(1, TimeUnit.SECONDS)) {
                requests.shutdownNow();
            }
        }
        return phase;
    }

    private void call(String workload, Stats stats) {
        HttpRequest request = workload.equals("orders")
                ? HttpRequest.newBuilder(URI.create(baseUrl + "/orders")).timeout(Duration.ofSeconds(10))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":"
                                + ThreadLocalRandom.current().nextInt(1, 1001) + ",\"quantity\":1}")).build()
                : HttpRequest.newBuilder(URI.create(baseUrl + "/reports/sales?heavyMillis=200"))
                        .timeout(Duration.ofSeconds(10)).GET().build();
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            long micros = (System.nanoTime() - start) / 1_000;
            if (response.statusCode() / 100 == 2) {
                stats.succeeded.add(micros);
            } else if (response.statusCode() == 503) {
                Matcher reason = REASON.matcher(response.body());
                stats.rejected(reason.find() ? reason.group(1) : "503").increment();
                stats.rejectedLatency.add(micros);
            } else {
                stats.rejected("HTTP " + response.statusCode()).increment();
            }
        } catch (Exception e) {
            stats.rejected(e.getClass().getSimpleName()).increment();
        }
    }

    /** What each column means, for a reader who has not read the sample's code. */
    private static void printLegend(int seconds) {
        System.out.printf("%nLegend (one line per phase and workload; latencies as this client measured them):%n"
                + "  offered    requests sent, open loop: at the rate asked for, whether earlier ones were answered%n"
                + "  committed  answered 2xx: the operation ran and committed%n"
                + "  full       answered 503 ADMISSION_FULL: all B running and Q queued places were taken%n"
                + "  timeout    answered 503 QUEUE_TIMEOUT: queued, no place within the queue wait (orders: 50 ms)%n"
                + "  other      anything else, listed above the legend: 503 DEADLINE_EXCEEDED (an order's 1 s deadline"
                + " ran out), another status, a client timeout, a refused connection%n"
                + "  ok p50/p99   latency of the committed requests%n"
                + "  rej p50/p99  latency of the 503 answers%n"
                + "%nWhat good looks like (the sample: a pool of 8; orders B = 6, Q = 12, 50 ms queue wait; reports"
                + " B = 2, no queue, 200 ms each):%n"
                + "  - orders alone: committed = offered, no full, timeout or other, ok p99 far below its 1 s deadline;%n"
                + "  - under the reports flood: orders the same, its ok p99 near the first phase's: reports can hold"
                + " only 2 connections;%n"
                + "  - reports: about 10 committed a second (2 places, 200 ms each), about %d in the phase; the rest"
                + " refused full, in about a millisecond (rej p99 far below ok p50);%n"
                + "  - highest active connections at most 8, the pool.%n", 10 * seconds);
    }

    /** Compares the run with the expected shape, so that a reader does not have to. */
    private static void printVerdict(List<Phase> phases, int highestActive) {
        Stats alone = phases.get(0).stats("orders");
        Stats flooded = phases.get(1).stats("orders");
        List<String> departures = departuresFromExpected(phases, highestActive);
        System.out.printf("%norders p99: %s alone, %s under the reports flood%n",
                percentile(alone.succeeded, 99), percentile(flooded.succeeded, 99));
        if (departures.isEmpty()) {
            System.out.println("As expected: the reports flood was refused at its gate and orders kept its service.");
        } else {
            System.out.println("Not as expected:");
            departures.forEach(departure -> System.out.println("  - " + departure));
        }
    }

    /** Where the two phases ({@code orders} alone, then flooded) depart from what good looks like; empty if nowhere. */
    static List<String> departuresFromExpected(List<Phase> phases, int highestActive) {
        Stats alone = phases.get(0).stats("orders");
        Stats flooded = phases.get(1).stats("orders");
        List<String> departures = new ArrayList<>();
        for (Phase phase : phases) {
            Stats orders = phase.stats("orders");
            long lost = orders.offered.sum() - orders.succeeded.size();
            if (lost > orders.offered.sum() / 100) {
                departures.add(String.format(Locale.ROOT, "%s: %d of %d orders were not committed", phase.name,
                        lost, orders.offered.sum()));
            }
        }
        double p99Alone = percentileMillis(alone.succeeded, 99);
        double p99Flooded = percentileMillis(flooded.succeeded, 99);
        if (p99Flooded > 2 * Math.max(p99Alone, 5.0)) {
            departures.add(String.format(Locale.ROOT, "orders p99 grew from %.1f ms alone to %.1f ms under the flood",
                    p99Alone, p99Flooded));
        }
        if (highestActive > 8) {
            departures.add("more than 8 connections were active: work outside the gates shares the pool");
        }
        return departures;
    }

    /**
     * On a machine whose CPUs are taken, the sample's threads, its database and this client queue for them: orders
     * time out in the gate's queue because nothing runs, not because the reports took their connections.
     */
    private static void printBusyMachineWarning(List<Phase> phases, SchedulingLag lag) {
        List<String> signs = busyMachineSigns(phases, lag);
        if (!signs.isEmpty()) {
            System.out.printf("%nWARNING: this machine was too busy to judge the gates by this table:%n");
            signs.forEach(sign -> System.out.println("  - " + sign));
            System.out.println("  Latencies, timeouts and starved orders above then measure the wait for a CPU (of"
                    + " the sample, its database or this client), not the gates. Run it again on a quieter machine,"
                    + " or with lower rates (see --help).");
        }
    }

    /** What says that the machine was too busy for the table to judge the gates; empty on a machine that was not. */
    static List<String> busyMachineSigns(List<Phase> phases, SchedulingLag lag) {
        List<String> signs = new ArrayList<>();
        if (lag.p99Millis() > BUSY_CLIENT_LAG.toMillis()) {
            signs.add(String.format(Locale.ROOT, "this client's threads woke up to %.0f ms late (p99 %.0f ms;"
                    + " on an idle machine about 1 ms)", lag.maxMillis(), lag.p99Millis()));
        }
        for (Phase phase : phases) {
            phase.byWorkload.forEach((workload, stats) -> {
                long late = stats.offeredLate.sum();
                if (late > stats.offered.sum() / 100) {
                    signs.add(String.format(Locale.ROOT, "%s / %s: %d of %d requests went out more than %d ms"
                            + " after their time: the load asked for was not offered", phase.name, workload, late,
                            stats.offered.sum(), LATE_OFFER.toMillis()));
                }
            });
            if (phase.serverLoad != null && phase.serverLoad[0] > phase.serverLoad[1]) {
                signs.add(String.format(Locale.ROOT, "%s: the sample's machine had a load average of %.1f on %.0f"
                        + " CPUs", phase.name, phase.serverLoad[0], phase.serverLoad[1]));
            }
        }
        return signs;
    }

    /** The sample's 1-minute load average and CPU count from its actuator; null when they cannot be read. */
    private double[] serverLoad() {
        double load = gauge("system.load.average.1m");
        double cpus = gauge("system.cpu.count");
        return Double.isNaN(load) || Double.isNaN(cpus) || load < 0 ? null : new double[] {load, cpus};
    }

    private double gauge(String meter) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create(baseUrl + "/actuator/metrics/" + meter)).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            Matcher value = GAUGE_VALUE.matcher(response.body());
            return response.statusCode() == 200 && value.find() ? Double.parseDouble(value.group(1)) : Double.NaN;
        } catch (Exception unavailable) {
            return Double.NaN;
        }
    }

    private static double percentileMillis(ConcurrentLinkedQueue<Long> micros, int percentile) {
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1)] / 1000.0;
    }

    private static void print(List<Phase> phases, int highestActive) {
        String header = String.format(Locale.ROOT, "%-24s %-8s %8s %9s %10s %10s %7s %9s %9s %9s %9s",
                "phase", "workload", "offered", "committed", "full", "timeout", "other",
                "ok p50", "ok p99", "rej p50", "rej p99");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Phase phase : phases) {
            phase.byWorkload.forEach((workload, stats) -> System.out.printf(Locale.ROOT,
                    "%-24s %-8s %8d %9d %10d %10d %7d %9s %9s %9s %9s%n",
                    phase.name, workload, stats.offered.sum(), stats.succeeded.size(),
                    stats.rejected("ADMISSION_FULL").sum(), stats.rejected("QUEUE_TIMEOUT").sum(), stats.others(),
                    percentile(stats.succeeded, 50), percentile(stats.succeeded, 99),
                    percentile(stats.rejectedLatency, 50), percentile(stats.rejectedLatency, 99)));
        }
        for (Phase phase : phases) {
            phase.byWorkload.forEach((workload, stats) -> stats.otherOutcomes().forEach((outcome, count) ->
                    System.out.printf("other outcome, %s / %s: %d x %s%n", phase.name, workload, count, outcome)));
        }
        System.out.printf("%nhighest active connections seen: %d%n", highestActive);
    }

    private static String percentile(ConcurrentLinkedQueue<Long> micros, int percentile) {
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        if (sorted.length == 0) {
            return "-";
        }
        long value = sorted[Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1)];
        return String.format(Locale.ROOT, "%.1fms", value / 1000.0);
    }

    /**
     * What a refusal costs a browser and an API client, over HTTP/1.1 (where Tomcat closes the connection after every
     * 503, so each refused client connects again) and over HTTP/2 (one connection, kept): reports are offered far
     * beyond their gate, open loop, every other request asking for HTML.
     */
    private static final class RefusalCost {

        private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        private static final String API = "application/json";
        private static final Pattern COUNT_VALUE = Pattern.compile("\"value\"\\s*:\\s*([0-9.E+-]+)");

        private final String baseUrl;
        private final Map<String, ConcurrentLinkedQueue<Long>> refusedMicros = new ConcurrentHashMap<>();
        private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

        private RefusalCost(String baseUrl) {
            this.baseUrl = baseUrl;
        }

        static void main(String[] args) throws InterruptedException {
            String baseUrl = args.length > 0 ? args[0] : "http://localhost:8080";
            int seconds;
            int perSecond;
            try {
                seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
                perSecond = args.length > 2 ? Integer.parseInt(args[2]) : 200;
            } catch (NumberFormatException notANumber) {
                System.err.printf("not a whole number: %s%n" + USAGE, notANumber.getMessage());
                System.exit(2);
                return;
            }
            System.out.printf("Offering %d reports/s for %d s per protocol, browsers and API clients in turn (the"
                    + " reports gate admits about 10/s)%n%n", perSecond, seconds);
            List<String> lines = new ArrayList<>();
            List<String> cpu = new ArrayList<>();
            for (HttpClient.Version version : List.of(HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2)) {
                // A warm-up per protocol, not reported: a cold JVM or an unopened connection would be measured.
                new RefusalCost(baseUrl).flood(version, 5, Math.max(1, perSecond / 4));
                RefusalCost measured = new RefusalCost(baseUrl);
                double cpuBefore = measured.serverCpuNanos();
                measured.flood(version, seconds, perSecond);
                double cpuNanos = measured.serverCpuNanos() - cpuBefore;
                lines.addAll(measured.report(version));
                cpu.add(String.format(Locale.ROOT, "%.0f µs %s", cpuNanos / 1_000 / ((long) perSecond * seconds),
                        version == HttpClient.Version.HTTP_2 ? "over HTTP/2" : "over HTTP/1.1"));
            }
            String header = String.format(Locale.ROOT, "%-9s %-6s %8s %8s %8s %9s %9s %9s %8s",
                    "protocol", "answer", "offered", "refused", "admitted", "rej p50", "rej p90", "rej p99", "over h2");
            System.out.println(header);
            System.out.println("-".repeat(header.length()));
            lines.forEach(System.out::println);
            System.out.printf("%nserver CPU per request offered: %s%n", String.join(", ", cpu));
        }

        /** The sample's process CPU time so far, from its actuator; NaN when it cannot be read. */
        private double serverCpuNanos() {
            try {
                HttpResponse<String> metric = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create(baseUrl + "/actuator/metrics/process.cpu.time")).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                Matcher value = COUNT_VALUE.matcher(metric.body());
                return value.find() ? Double.parseDouble(value.group(1)) : Double.NaN;
            } catch (Exception unavailable) {
                return Double.NaN;
            }
        }

        private void flood(HttpClient.Version version, int seconds, int perSecond) throws InterruptedException {
            HttpClient http = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5))
                    .executor(Threads.perTaskExecutor()).build();
            ExecutorService requests = Threads.perTaskExecutor();
            long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
            long start = System.nanoTime();
            for (long i = 0; i < (long) perSecond * seconds; i++) {
                LockSupport.parkNanos(start + i * interval - System.nanoTime());
                String answer = i % 2 == 0 ? "html" : "json";
                requests.submit(() -> call(http, answer));
            }
            requests.shutdown();
            while (!requests.awaitTermination(DRAIN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                requests.shutdownNow();
            }
        }

        private void call(HttpClient http, String answer) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/reports/sales?heavyMillis=200"))
                    .timeout(Duration.ofSeconds(10)).header("Accept", answer.equals("html") ? BROWSER : API)
                    .GET().build();
            count(answer, "offered");
            long begin = System.nanoTime();
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                long micros = (System.nanoTime() - begin) / 1_000;
                if (response.version() == HttpClient.Version.HTTP_2) {
                    count(answer, "over h2");
                }
                if (response.statusCode() == 503) {
                    count(answer, "refused");
                    refusedMicros.computeIfAbsent(answer, a -> new ConcurrentLinkedQueue<>()).add(micros);
                } else {
                    count(answer, response.statusCode() / 100 == 2 ? "admitted" : "HTTP " + response.statusCode());
                }
            } catch (Exception failed) {
                count(answer, failed.getClass().getSimpleName());
            }
        }

        private void count(String answer, String what) {
            counts.computeIfAbsent(answer + " " + what, key -> new LongAdder()).increment();
        }

        private long counted(String answer, String what) {
            LongAdder count = counts.get(answer + " " + what);
            return count == null ? 0 : count.sum();
        }

        private List<String> report(HttpClient.Version version) {
            List<String> lines = new ArrayList<>();
            for (String answer : List.of("html", "json")) {
                ConcurrentLinkedQueue<Long> micros = refusedMicros.getOrDefault(answer, new ConcurrentLinkedQueue<>());
                lines.add(String.format(Locale.ROOT, "%-9s %-6s %8d %8d %8d %9s %9s %9s %8d",
                        version == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1", answer,
                        counted(answer, "offered"), counted(answer, "refused"), counted(answer, "admitted"),
                        percentile(micros, 50), percentile(micros, 90), percentile(micros, 99),
                        counted(answer, "over h2")));
            }
            counts.forEach((key, count) -> {
                String what = key.substring(key.indexOf(' ') + 1);
                if (!List.of("offered", "refused", "admitted", "over h2").contains(what)) {
                    lines.add("  other outcome, " + key + ": " + count.sum());
                }
            });
            return lines;
        }
    }

    /** What one phase saw, per workload. */
    static final class Phase {

        final String name;
        final Map<String, Stats> byWorkload = new ConcurrentHashMap<>();
        /** The sample's load average and CPU count at the end of the phase, or null. */
        volatile double[] serverLoad;

        Phase(String name) {
            this.name = name;
        }

        Stats stats(String workload) {
            return byWorkload.computeIfAbsent(workload, w -> new Stats());
        }
    }

    /** Counts and latencies (microseconds) of one workload in one phase. */
    static final class Stats {

        final LongAdder offered = new LongAdder();
        final LongAdder offeredLate = new LongAdder();
        final ConcurrentLinkedQueue<Long> succeeded = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Long> rejectedLatency = new ConcurrentLinkedQueue<>();
        private final Map<String, LongAdder> rejectedByReason = new ConcurrentHashMap<>();

        LongAdder rejected(String reason) {
            return rejectedByReason.computeIfAbsent(reason, r -> new LongAdder());
        }

        long others() {
            return otherOutcomes().values().stream().mapToLong(Long::longValue).sum();
        }

        /** Failures that are not the gate's rejections (other HTTP statuses, client errors), by kind. */
        Map<String, Long> otherOutcomes() {
            Map<String, Long> others = new TreeMap<>();
            rejectedByReason.forEach((reason, count) -> {
                if (!GATE_REASONS.contains(reason) && count.sum() > 0) {
                    others.put(reason, count.sum());
                }
            });
            return others;
        }
    }

    /**
     * How late this client's own threads wake up: a platform thread asks to sleep 5 ms, again and again, and records
     * by how much more it slept. On an idle machine that is about a millisecond; when every CPU is taken it is the
     * wait for one, which every request and every latency of the table waited too.
     */
    static final class SchedulingLag implements Runnable {

        private static final long PERIOD = TimeUnit.MILLISECONDS.toNanos(5);

        private final ConcurrentLinkedQueue<Long> lateMicros = new ConcurrentLinkedQueue<>();
        private volatile boolean running = true;

        Thread start() {
            Thread probe = new Thread(this, "scheduling-lag");
            probe.setDaemon(true);
            probe.start();
            return probe;
        }

        @Override
        public void run() {
            while (running) {
                long before = System.nanoTime();
                LockSupport.parkNanos(PERIOD);
                record(Math.max(0, System.nanoTime() - before - PERIOD) / 1_000);
            }
        }

        /** One wake-up, {@code micros} later than asked. */
        void record(long micros) {
            lateMicros.add(micros);
        }

        void stop() {
            running = false;
        }

        double p99Millis() {
            return percentileMillis(lateMicros, 99);
        }

        double maxMillis() {
            return percentileMillis(lateMicros, 100);
        }
    }

    /** Samples the pool's active connections from the actuator while the load runs. */
    private final class PoolWatcher implements Runnable {

        private final AtomicInteger highest = new AtomicInteger();
        private volatile boolean running = true;

        @Override
        public void run() {
            HttpRequest request = HttpRequest.newBuilder(
                    URI.create(baseUrl + "/actuator/metrics/hikaricp.connections.active")).GET().build();
            while (running) {
                try {
                    Matcher value = GAUGE_VALUE.matcher(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
                    if (value.find()) {
                        highest.accumulateAndGet((int) Double.parseDouble(value.group(1)), Math::max);
                    }
                } catch (Exception unavailable) {
                    // The sample is busy or gone; the next sample tries again.
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }

        void stop() {
            running = false;
        }

        int highest() {
            return highest.get();
        }
    }

    /**
     * Virtual threads on Java 21 or newer, platform threads on Java 17: reached by reflection, so that this file
     * compiles with {@code --release 17}.
     */
    private static final class Threads {

        private static final Method NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR = method(Executors.class,
                "newVirtualThreadPerTaskExecutor");
        private static final Method OF_VIRTUAL = method(Thread.class, "ofVirtual");
        private static final Method START_VIRTUAL = startMethod();
        private static final AtomicInteger PLATFORM_THREADS = new AtomicInteger();

        private Threads() {
        }

        /** A new thread per task: virtual on Java 21+, else daemon platform threads that are not pooled for long. */
        static ExecutorService perTaskExecutor() {
            if (NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR != null) {
                return (ExecutorService) invoke(NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR, null);
            }
            return Executors.newCachedThreadPool(platformThreads());
        }

        /** Starts the task on a new thread: virtual on Java 21+, else a daemon platform thread. */
        static Thread start(Runnable task) {
            if (OF_VIRTUAL != null && START_VIRTUAL != null) {
                return (Thread) invoke(START_VIRTUAL, invoke(OF_VIRTUAL, null), task);
            }
            Thread thread = platformThreads().newThread(task);
            thread.start();
            return thread;
        }

        private static ThreadFactory platformThreads() {
            return task -> {
                Thread thread = new Thread(task, "load-" + PLATFORM_THREADS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            };
        }

        private static Method method(Class<?> type, String name, Class<?>... parameters) {
            try {
                return type.getMethod(name, parameters);
            } catch (NoSuchMethodException beforeJava21) {
                return null;
            }
        }

        private static Method startMethod() {
            try {
                return method(Class.forName("java.lang.Thread$Builder"), "start", Runnable.class);
            } catch (ClassNotFoundException beforeJava21) {
                return null;
            }
        }

        private static Object invoke(Method method, Object target, Object... arguments) {
            try {
                return method.invoke(target, arguments);
            } catch (IllegalAccessException unexpected) {
                throw new IllegalStateException(unexpected);
            } catch (InvocationTargetException failed) {
                Throwable cause = failed.getCause();
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                if (cause instanceof Error) {
                    throw (Error) cause;
                }
                throw new IllegalStateException(cause);
            }
        }
    }
}
