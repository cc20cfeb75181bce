package dev.dbbulkhead.fleettests;

import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.share.WeightedShares;
import dev.dbbulkhead.testing.RestartablePostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * The fleet under test: a PostgreSQL of its own, the instances that share its connection budget, and the
 * {@link Sampler} watching the server. The server is always an embedded one the test starts: a server named by a JDBC
 * URL, or a container, could not be restarted on the same port and data directory by the test, nor set up with the
 * settings the test needs.
 *
 * <p>Every instance JVM and the server are stopped by {@link #close()}, or at the test JVM's exit if it never got
 * there; an instance also exits by itself when the test JVM is gone.
 */
final class Fleet implements AutoCloseable {

    static final int BUDGET = 18;
    static final int FLOOR = 1;
    static final int POOL_SIZE = 10;
    static final Duration HEARTBEAT = Duration.ofMillis(200);
    static final Duration LEASE_TTL = Duration.ofSeconds(2);
    /** How many instances the scenarios begin from. */
    static final int BASELINE = 3;
    /** Room for five instances that each open their whole pool at start, their coordinators and the test's sessions. */
    private static final int MAX_CONNECTIONS = 100;
    private static final Duration BASELINE_WAIT = Duration.ofSeconds(60);

    private final Path directory;
    private final Path samplesFile;
    private final RestartablePostgres server;
    private final Signals signals = new Signals();
    private final Sampler sampler;
    private final List<Instance> instances = new CopyOnWriteArrayList<>();
    private final Set<Instance> paused = ConcurrentHashMap.newKeySet();
    private final AtomicInteger names = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread stopAtExit = new Thread(this::close, "fleet-stop");

    Fleet(Path directory) {
        this.directory = directory;
        this.samplesFile = directory.resolve("samples.txt");
        try {
            Files.createDirectories(directory);
            Files.deleteIfExists(samplesFile);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + directory, e);
        }
        this.server = RestartablePostgres.start(directory.resolve("postgres"),
                Map.of("max_connections", String.valueOf(MAX_CONNECTIONS)));
        Runtime.getRuntime().addShutdownHook(stopAtExit);
        this.sampler = new Sampler(server, PostgresFleetCoordinator.DEFAULT_TABLE, this::instanceOfMember);
    }

    Sampler sampler() {
        return sampler;
    }

    RestartablePostgres server() {
        return server;
    }

    /** Where the scenarios write every sample they judged, for a reader of a failed run. */
    Path samplesFile() {
        return samplesFile;
    }

    /** Starts {@code count} new instances at once, named {@code inst<N>} in the order of their start. */
    List<Instance> start(int count) {
        List<Instance> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Instance instance = Instance.start("inst" + names.incrementAndGet(), server.port(), directory,
                    List.of("spring.datasource.hikari.maximum-pool-size=" + POOL_SIZE,
                            "spring.datasource.hikari.minimum-idle=" + POOL_SIZE,
                            "db.bulkhead.fleet.coordination=postgres",
                            "db.bulkhead.fleet.connection-budget=" + BUDGET,
                            "db.bulkhead.fleet.floor=" + FLOOR,
                            "db.bulkhead.fleet.heartbeat=" + HEARTBEAT.toMillis() + "ms",
                            "db.bulkhead.fleet.lease-ttl=" + LEASE_TTL.toMillis() + "ms"));
            instances.add(instance);
            started.add(instance);
        }
        return started;
    }

    /** The instances whose JVM runs (paused and cut off ones included), in the order of their start. */
    List<Instance> live() {
        return instances.stream().filter(Instance::isAlive).toList();
    }

    /** The live instances but {@code except}. */
    List<Instance> liveBut(Instance except) {
        return live().stream().filter(instance -> instance != except).toList();
    }

    void pause(Instance instance) {
        paused.add(instance);
        signals.stop(instance.pid());
    }

    void resume(Instance instance) {
        signals.resume(instance.pid());
        paused.remove(instance);
    }

    /**
     * Stops the server, keeps it down for {@code downFor} (the fault's length, not a wait for anything) and starts it
     * again on the same port and data directory.
     */
    void restartDatabase(Duration downFor) {
        long stopped = System.nanoTime();
        server.stop();
        for (long left = downFor.toNanos(); left > 0; left = downFor.toNanos() - (System.nanoTime() - stopped)) {
            LockSupport.parkNanos(left);
        }
        server.start();
    }

    /** Whether {@code sample} shows exactly {@code members} holding leases, each granted its fair share. */
    static Predicate<Sample> fairSplitOf(Collection<Instance> members) {
        List<String> names = members.stream().map(Instance::name).sorted().toList();
        int[] fair = fairShares(names.size());
        return sample -> {
            if (!sample.leaseholders().equals(names)) {
                return false;
            }
            List<Sample.Lease> leases = names.stream().map(name -> sample.unexpiredLease(name).orElseThrow()).toList();
            int[] granted = leases.stream().mapToInt(Sample.Lease::granted).sorted().toArray();
            return leases.stream().allMatch(lease -> lease.granted() == lease.target()) && Arrays.equals(granted, fair);
        };
    }

    /** The fair shares of the budget among {@code members} equal instances, smallest first. */
    static int[] fairShares(int members) {
        int[] shares = WeightedShares.split(BUDGET,
                Collections.nCopies(members, new WeightedShares.Claim(1, POOL_SIZE)));
        Arrays.sort(shares);
        return shares;
    }

    /** The first sample from {@code since} on showing the fair split among {@code members}. */
    Sample awaitFairSplit(Collection<Instance> members, long since, Duration limit) {
        return sampler.await("the fair split " + Arrays.toString(fairShares(members.size())) + " among " + members,
                since, limit, fairSplitOf(members), () -> exited(members));
    }

    /**
     * Brings the fleet back to {@link #BASELINE} loaded instances at the fair split, after a scenario that left it
     * otherwise (one that failed half-way): resumes paused instances, heals cut proxies, stops extra instances and
     * starts missing ones.
     */
    void restoreBaseline() {
        List.copyOf(paused).forEach(this::resume);
        live().forEach(instance -> instance.proxy().heal());
        List<Instance> live = live();
        for (int i = BASELINE; i < live.size(); i++) {
            live.get(i).terminate();
        }
        if (live.size() < BASELINE) {
            start(BASELINE - live.size());
        }
        List<Instance> baseline = live();
        Sample split = awaitFairSplit(baseline, System.nanoTime(), BASELINE_WAIT);
        awaitPoolsFilled(baseline, split.at(), BASELINE_WAIT);
    }

    /**
     * The first sample from {@code since} on in which each of {@code members} holds as many sessions as it is
     * granted: a pool fills up to its grant in the background, after the grant.
     */
    Sample awaitPoolsFilled(Collection<Instance> members, long since, Duration limit) {
        return sampler.await("every pool of " + members + " holding its grant", since, limit,
                sample -> members.stream().allMatch(instance -> sample.unexpiredLease(instance.name())
                        .map(lease -> sample.memberConnections(instance.name()) >= lease.granted()).orElse(false)),
                () -> exited(members));
    }

    /** Which of {@code members} has exited, with the end of its log; null while all run. */
    private static String exited(Collection<Instance> members) {
        return members.stream().filter(instance -> !instance.isAlive()).findFirst()
                .map(instance -> instance + " exited; its log ends with:\n" + instance.logTail(20)).orElse(null);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = new IllegalStateException("Could not stop the whole fleet");
        for (Instance instance : instances) {
            stopQuietly(instance::close, failure);
        }
        stopQuietly(sampler::close, failure);
        stopQuietly(signals::close, failure);
        stopQuietly(server::close, failure);
        if (Thread.currentThread() != stopAtExit) {
            stopQuietly(() -> Runtime.getRuntime().removeShutdownHook(stopAtExit), failure);
        }
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private String instanceOfMember(String memberId) {
        return instances.stream().filter(instance -> instance.owns(memberId)).map(Instance::name).findFirst()
                .orElse("?");
    }

    /** Runs every step of a stop even when one fails, so that nothing started is left running. */
    private static void stopQuietly(Step step, RuntimeException failure) {
        try {
            step.run();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }
}
