package dev.dbbulkhead.actuate.endpoint;

import dev.dbbulkhead.WrittenDurations;
import dev.dbbulkhead.budget.BudgetFinding;
import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.budget.PoolSettings;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetMemberState;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.LendingPool;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.PoolAdmission;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionReport;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.limit.LimitSnapshot;
import dev.dbbulkhead.metrics.KeyTallies;
import dev.dbbulkhead.metrics.KeyTally;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.DatabaseSignals;
import dev.dbbulkhead.saturation.SamplerSettings;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.SaturationPolicy;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.WorkloadRetries;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Isolation;

/**
 * The {@code dbbulkheads} actuator endpoint: every workload's limits, state and totals next to its pool, and a
 * write operation that resizes a workload at run time. Writes need {@code management.endpoint.dbbulkheads.access
 * =unrestricted}; by default the endpoint is read-only. Tenant keys are shown hashed unless {@link KeyDisplay#RAW} is
 * asked for; a resize is bounded by the workload's pool ({@link #resize}).
 */
@Endpoint(id = BulkheadsEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class BulkheadsEndpoint {

    /** The endpoint id. */
    public static final String ID = "dbbulkheads";

    /**
     * The largest Q a resize may set: 10,000 operations admitted to wait. Each is a caller parked with its request's
     * state; a larger queue is a configuration decision, not one for a run-time write.
     */
    public static final int MAX_RESIZED_QUEUED = 10_000;

    /** How the endpoint shows the keys (tenants) of fair shares. */
    public enum KeyDisplay {

        /**
         * {@code sha256:} and the first 16 hex digits of the SHA-256 of the key's UTF-8 bytes: whoever reads the
         * endpoint can tell keys apart and find a key they know, but not learn the tenants.
         */
        HASHED,

        /** The keys as operations carry them. */
        RAW;

        String show(String key) {
            if (this == RAW) {
                return key;
            }
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
                return "sha256:" + HexFormat.of().formatHex(digest, 0, 8);
            } catch (NoSuchAlgorithmException impossible) {
                // Every Java platform must provide SHA-256.
                throw new IllegalStateException(impossible);
            }
        }
    }

    private final BulkheadRegistry registry;
    private final WorkloadTotals totals;
    private final ListableBeanFactory beanFactory;
    private final ObjectProvider<ConnectionBudgetCheck> budgetCheck;
    private final @Nullable ObjectProvider<FleetMembership> fleet;
    private final AdaptiveLimits adaptiveLimits;
    private final @Nullable ObjectProvider<WatchedPools> ungated;
    private final @Nullable RequestDeadlineDescriptor requestDeadline;
    private final KeyTallies keyTallies;
    private final KeyDisplay keyDisplay;
    private final @Nullable ObjectProvider<DatabaseSignalsSampling> database;

    /**
     * @param registry        the workloads
     * @param totals          what each workload admitted and rejected since start-up
     * @param beanFactory     where the data sources' bean names and the {@link RetryAfters} are found
     * @param budgetCheck     the connection budget check, when it runs
     * @param fleet           this instance's fleet membership, when coordination is on; null or empty otherwise
     * @param adaptiveLimits  the adaptive limits to show
     * @param ungated         the pools watched for connections borrowed outside every gate; null or empty when none
     * @param requestDeadline how requests get their deadlines; null when they get none
     * @param keyTallies      the busiest keys of the workloads with fair shares
     * @param keyDisplay      how keys are shown
     * @param database        the sampler of the database's signals, when they are sampled; null or empty otherwise
     */
    public BulkheadsEndpoint(BulkheadRegistry registry, WorkloadTotals totals, ListableBeanFactory beanFactory,
                             ObjectProvider<ConnectionBudgetCheck> budgetCheck,
                             @Nullable ObjectProvider<FleetMembership> fleet, AdaptiveLimits adaptiveLimits,
                             @Nullable ObjectProvider<WatchedPools> ungated,
                             @Nullable RequestDeadlineDescriptor requestDeadline, KeyTallies keyTallies,
                             KeyDisplay keyDisplay, @Nullable ObjectProvider<DatabaseSignalsSampling> database) {
        this.database = database;
        this.keyDisplay = keyDisplay;
        this.keyTallies = keyTallies;
        this.requestDeadline = requestDeadline;
        this.registry = registry;
        this.totals = totals;
        this.beanFactory = beanFactory;
        this.budgetCheck = budgetCheck;
        this.fleet = fleet;
        this.adaptiveLimits = adaptiveLimits;
        this.ungated = ungated;
    }

    /** Every workload, in the registry's order. */
    @ReadOperation
    public BulkheadsDescriptor bulkheads() {
        Map<String, WorkloadDescriptor> workloads = new LinkedHashMap<>();
        for (String name : registry.names()) {
            workloads.put(name, describe(registry.template(name)));
        }
        return new BulkheadsDescriptor(workloads, budget(), fleet(), ungated(), requestDeadline, database());
    }

    /** One workload; none (HTTP 404) for an unknown name. */
    @ReadOperation
    public @Nullable WorkloadDescriptor workload(@Selector String name) {
        return registry.find(name).map(this::describe).orElse(null);
    }

    /**
     * Changes B and/or Q of a workload without blocking: growing takes effect at once; shrinking lets running
     * operations finish while new admissions obey the new limits. A limit left out keeps its value. The B of an
     * adaptive workload is learnt, not set: only its Q may be resized. B may not exceed the {@code maximumPoolSize}
     * of the workload's pool, when it is known: operations beyond it would only wait in the pool, past the gate that
     * is there to bound them. Q may not exceed {@value #MAX_RESIZED_QUEUED}. None for an unknown name:
     * {@link BulkheadsEndpointWebExtension} answers it with HTTP 404, as a read does.
     */
    @WriteOperation
    public @Nullable WorkloadDescriptor resize(@Selector String name, @Nullable Integer maxConcurrent,
                                               @Nullable Integer maxQueued) {
        BulkheadTemplate template = registry.find(name).orElse(null);
        if (template == null) {
            return null;
        }
        if (maxConcurrent == null && maxQueued == null) {
            throw new InvalidEndpointRequestException("Give maxConcurrent (B), maxQueued (Q) or both",
                    "nothing to resize");
        }
        ConcurrencyCeiling ceiling = ConcurrencyCeiling.of(template.gate());
        if (maxConcurrent != null && ceiling.learnt()) {
            throw new InvalidEndpointRequestException("The B of workload '" + name + "' is adaptive: it is learnt"
                    + " between limit.min-concurrent and limit.max-concurrent; resize maxQueued (Q) only, or set"
                    + " limit.mode=fixed", "adaptive B");
        }
        // A fleet-coordinated B is only a request, which the fleet's share caps (the pool follows the share).
        if (maxConcurrent != null && membership().flatMap(member -> member.ceiling(name)).isEmpty()) {
            Optional<PoolSettings> pool = template.dataSource().flatMap(PoolSettings::of);
            if (pool.isPresent() && maxConcurrent > pool.get().maximumPoolSize()) {
                String poolName = pool.get().name();
                String refusal = "maxConcurrent (B) of workload '" + name + "' must be at most its pool's"
                        + " maximumPoolSize " + pool.get().maximumPoolSize()
                        + (poolName == null ? "" : " (pool " + poolName + ")") + ", was " + maxConcurrent;
                throw new InvalidEndpointRequestException(refusal, refusal);
            }
        }
        if (maxQueued != null && maxQueued > MAX_RESIZED_QUEUED) {
            String refusal = "maxQueued (Q) of workload '" + name + "' must be at most " + MAX_RESIZED_QUEUED
                    + " when resized at run time, was " + maxQueued;
            throw new InvalidEndpointRequestException(refusal, refusal);
        }
        try {
            // The owner of B applies it as far as a fleet share or the database's limit allows, and keeps a limit
            // left out as it is at the moment of the change, not as it was read before it.
            ceiling.resize(maxConcurrent, maxQueued);
        } catch (IllegalArgumentException outOfRange) {
            String refusal = String.valueOf(outOfRange.getMessage());
            throw new InvalidEndpointRequestException(refusal, refusal);
        }
        return describe(template);
    }

    private WorkloadDescriptor describe(BulkheadTemplate template) {
        AdmissionGate gate = template.gate();
        GateConfig config = gate.config();
        return new WorkloadDescriptor(config.maxConcurrent(), config.maxQueued(), written(config.queueWait()),
                gate.active(), gate.waiting(), totals.admitted(gate.workload()), totals.rejected(gate.workload()), pool(template),
                adaptiveLimits.find(gate.workload()).map(BulkheadsEndpoint::adaptive).orElse(LimitDescriptor.FIXED),
                QueueDescriptor.of(gate), template.retries().map(RetryDescriptor::of).orElse(null),
                LendingDescriptor.of(gate),
                config.admissionRules().isNone() ? null
                        : RulesDescriptor.of(config.admissionRules(), keyTallies.find(gate.workload()).orElse(null),
                                keyDisplay, gate.refusedInProgress()),
                OperationDescriptor.of(template, beanFactory.getBeanProvider(RetryAfters.class).getIfAvailable()));
    }

    /** {@code duration} as a configuration writes it ({@code 50ms}), the form users compare with their own. */
    static String written(Duration duration) {
        return WrittenDurations.of(duration);
    }

    /** A measured duration, to the microsecond: finer is noise, and {@code 3123us} still reads as written. */
    static String measured(Duration duration) {
        return WrittenDurations.of(duration.truncatedTo(ChronoUnit.MICROS));
    }

    private static LimitDescriptor adaptive(AdaptiveLimit limit) {
        LimitSnapshot state = limit.snapshot();
        return new LimitDescriptor("adaptive", limit.config().minConcurrent(), limit.config().maxConcurrent(),
                new LearntDescriptor(state.learnt(), state.limit(), holdTime(state.noLoadNanos()),
                        holdTime(state.observedNanos()), state.probing()));
    }

    private static @Nullable String holdTime(long nanos) {
        return nanos == 0 ? null : measured(Duration.ofNanos(nanos));
    }

    private @Nullable PoolDescriptor pool(BulkheadTemplate template) {
        DataSource dataSource = template.dataSource().orElse(null);
        if (dataSource == null) {
            return null;
        }
        String beanName = beanFactory.getBeansOfType(DataSource.class, false, false).entrySet().stream()
                .filter(bean -> bean.getValue() == dataSource).map(Map.Entry::getKey).findFirst().orElse(null);
        return PoolSettings.of(dataSource)
                .map(limits -> new PoolDescriptor(beanName, limits.name(), limits.maximumPoolSize(),
                        written(limits.connectionTimeout())))
                .orElseGet(() -> new PoolDescriptor(beanName, null, null, null));
    }

    private Optional<FleetMembership> membership() {
        return fleet == null ? Optional.empty() : Optional.ofNullable(fleet.getIfAvailable());
    }

    private @Nullable FleetDescriptor fleet() {
        return membership().map(member -> FleetDescriptor.of(member.snapshot(), member.ceilings())).orElse(null);
    }

    private @Nullable DatabaseDescriptor database() {
        DatabaseSignalsSampling sampling = database == null ? null : database.getIfAvailable();
        return sampling == null ? null : DatabaseDescriptor.of(sampling);
    }

    private @Nullable UngatedDescriptor ungated() {
        WatchedPools pools = ungated == null ? null : ungated.getIfAvailable();
        if (pools == null) {
            return null;
        }
        Map<String, UngatedPoolDescriptor> described = new LinkedHashMap<>();
        for (UngatedConnectionDetector detector : pools.detectors()) {
            described.put(detector.pool(), UngatedPoolDescriptor.of(detector.report()));
        }
        Map<String, PoolAdmission> admissions = pools.admissions();
        if (admissions.isEmpty()) {
            return new UngatedDescriptor(pools.mode(), described, null);
        }
        Map<String, Map<String, Long>> classified = new LinkedHashMap<>();
        admissions.forEach((pool, admission) -> classified.put(pool, admission.classified()));
        // One default and one record of refused runs for every pool: the configuration's.
        PoolAdmission any = admissions.values().iterator().next();
        return new UngatedDescriptor(pools.mode(), described, new AdmissionDescriptor(any.defaultWorkload(), classified,
                any.jobRefusals().byJob()));
    }

    private @Nullable BudgetDescriptor budget() {
        ConnectionBudgetCheck check = budgetCheck.getIfAvailable();
        return check == null ? null : check.report()
                .map(report -> new BudgetDescriptor(report.findings(), report.fleets().stream()
                        .map(fleet -> fleet.arithmetic() + " (" + fleet.server() + ")").toList()))
                .orElse(null);
    }

    /**
     * All workloads by name, and the connection budget checked at start-up.
     *
     * @param workloads every workload
     * @param budget    the budget check's findings and fleet arithmetic as of now; null when it did not run
     * @param fleet     this instance's fleet membership; null unless {@code db.bulkhead.fleet.coordination} is on
     * @param ungated   connections borrowed outside every gate, per pool watched; null when nothing watches them
     * @param requestDeadline how HTTP requests get their deadlines; null when they get none
     * @param database  the database's signals as last sampled; null unless {@code db.bulkhead.database.signals} is on
     */
    public record BulkheadsDescriptor(Map<String, WorkloadDescriptor> workloads, @Nullable BudgetDescriptor budget,
                                      @Nullable FleetDescriptor fleet, @Nullable UngatedDescriptor ungated,
                                      @Nullable RequestDeadlineDescriptor requestDeadline,
                                      @Nullable DatabaseDescriptor database)
            implements OperationResponseBody {
    }

    /**
     * The database's own signals, as its sampler last read them from the server of the primary data source.
     *
     * @param access         what the sampler's role sees: {@code whole_server}, {@code own_role_only} (other roles'
     *                       sessions are not counted) or {@code not_postgresql} (nothing is sampled)
     * @param interval       the time between samples (as a configuration writes it, such as 50ms)
     * @param serverCpus     the server's processors as configured; null when not known
     * @param sampledAgo     how long ago the last sample was read (as a configuration writes it, such as 50ms); null before the first
     * @param current        whether that sample is recent enough to steer by (within three intervals)
     * @param activeSessions the sessions running a statement, by what they waited for ({@code cpu}, {@code lock},
     *                       {@code lwlock}, {@code io}, {@code ipc}, {@code client}, {@code other}); classes with none
     *                       left out
     * @param oldestLockWait the longest lock wait of a session of the database (as a configuration writes it, such as 50ms); null when none waited
     * @param commits        the server's count of committed transactions, as last read; null before the first sample
     * @param rollbacks      likewise, rolled back
     * @param deadlocks      likewise, deadlocks
     * @param replicaLag     the largest replay lag of the server's replicas (as a configuration writes it, such as 50ms); null when none
     * @param queryTime      how long the last sample's query took (as a configuration writes it, such as 50ms); null before the first
     * @param failuresInARow samples failed since the last that succeeded
     * @param saturation     how the limit read the last sample; null when no workload follows the database, or before
     *                       the first sample
     * @param limits         the workloads whose B follows the database ({@code limit.database}), by name
     */
    public record DatabaseDescriptor(String access, String interval, @Nullable Integer serverCpus,
                                     @Nullable String sampledAgo, boolean current, Map<String, Integer> activeSessions,
                                     @Nullable String oldestLockWait, @Nullable Long commits, @Nullable Long rollbacks,
                                     @Nullable Long deadlocks, @Nullable String replicaLag, @Nullable String queryTime,
                                     int failuresInARow, @Nullable SaturationDescriptor saturation,
                                     Map<String, DatabaseLimitDescriptor> limits) {

        static DatabaseDescriptor of(DatabaseSignalsSampling sampling) {
            DatabaseSampler sampler = sampling.sampler();
            SamplerSettings settings = sampler.settings();
            Integer cpus = settings.serverCpus() == SamplerSettings.UNKNOWN_CPUS ? null : settings.serverCpus();
            String access = sampling.access().name().toLowerCase(Locale.ROOT);
            DatabaseSignals last = sampler.latest().orElse(null);
            SaturationDescriptor saturation = sampling.limits().flatMap(limits -> limits.limits().lastReading())
                    .map(SaturationDescriptor::of).orElse(null);
            Map<String, DatabaseLimitDescriptor> limits = new LinkedHashMap<>();
            sampling.limits().ifPresent(governed -> governed.limits().limits().forEach(limit ->
                    limits.put(limit.workload(), DatabaseLimitDescriptor.of(limit,
                            governed.limits().measuredWritesPerSecond(limit.workload()),
                            governed.limits().recommendation(limit.workload()).orElse(null)))));
            if (last == null) {
                return new DatabaseDescriptor(access, written(settings.interval()), cpus, null, false, Map.of(),
                        null, null, null, null, null, null, sampler.failuresInARow(), saturation, limits);
            }
            Map<String, Integer> active = new LinkedHashMap<>();
            last.activeSessions().forEach((waitClass, sessions) ->
                    active.put(waitClass.name().toLowerCase(Locale.ROOT), sessions));
            return new DatabaseDescriptor(access, written(settings.interval()), cpus,
                    measured(Duration.ofNanos(System.nanoTime() - last.sampledAtNanos())),
                    sampler.current().isPresent(), active, text(last.oldestLockWait()), last.commits(),
                    last.rollbacks(), last.deadlocks(), text(last.replicaLag()), measured(last.queryTime()),
                    sampler.failuresInARow(), saturation, limits);
        }

        private static @Nullable String text(@Nullable Duration duration) {
            return duration == null ? null : measured(duration);
        }
    }

    /**
     * How the database's limit read its last sample: the evidence behind every cap.
     *
     * @param state       healthy, busy, saturated or lock-contention
     * @param busy        sessions running or waiting for a processor, a disk or a lightweight lock
     * @param lockWaiters sessions waiting for a heavyweight lock
     * @param active      all active sessions of the database, the sampler's own apart
     * @param inTransaction the sessions of the database in a transaction, between statements too
     * @param ours        operations this instance's workloads that follow the database were running
     * @param outside     whether the load was another's ({@link SaturationPolicy.Reading#outside()})
     */
    public record SaturationDescriptor(String state, int busy, int lockWaiters, int active, int inTransaction,
                                       int ours, boolean outside) {

        static SaturationDescriptor of(SaturationPolicy.Reading reading) {
            return new SaturationDescriptor(reading.state().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    reading.busy(), reading.lockWaiters(), reading.active(), reading.inTransaction(), reading.ours(),
                    reading.outside());
        }
    }

    /**
     * A workload whose B follows the database.
     *
     * @param mode        steer (the cap applies) or recommend (the cap is the B it recommends)
     * @param criticality the order in which saturation lowers it
     * @param floor       its lowest cap
     * @param requested   the B it asked for at the last sample; for a recommendation, the most it may recommend
     * @param cap         the cap the limit applies, or the B it recommends
     * @param running     what it ran at the last sample
     * @param queued      whether it queued at the last sample
     * @param writesPerSecondByB the rates of the server's writes measured at each B on a hot row and still remembered,
     *                    in transactions per second to a tenth, by B from the lowest: the evidence behind the B of the
     *                    one workload of the database that is steered ({@link
     *                    SaturationLimits#measuredWritesPerSecond}); empty for any other
     * @param recommendation the B recommended over the recommendation window, with its support; null unless it
     *                    recommends and its window held enough samples once
     */
    public record DatabaseLimitDescriptor(String mode, String criticality, int floor, int requested, int cap,
                                          int running, boolean queued, Map<Integer, Double> writesPerSecondByB,
                                          @Nullable RecommendationDescriptor recommendation) {

        static DatabaseLimitDescriptor of(SaturationLimits.Limit limit, Map<Integer, Double> measuredWrites,
                                          SaturationLimits.@Nullable Recommendation recommendation) {
            Map<Integer, Double> writes = new LinkedHashMap<>();
            measuredWrites.forEach((b, perSecond) -> writes.put(b, Math.round(perSecond * 10) / 10.0));
            return new DatabaseLimitDescriptor(limit.mode().name().toLowerCase(Locale.ROOT),
                    limit.criticality().name().toLowerCase(Locale.ROOT), limit.floor(), limit.requested(),
                    limit.cap(), limit.running(), limit.queued(), writes,
                    recommendation == null ? null : RecommendationDescriptor.of(recommendation));
        }
    }

    /**
     * The B recommended for a workload over a window of samples ({@link SaturationLimits.Recommendation}).
     *
     * @param limit            the B recommended: the median of the B the samples pointed to, moved only once it left
     *                         their middle half
     * @param confidence       {@code high} (20 samples or more, the database saturated at some) or {@code low}
     * @param samples          the samples within the window whose evidence pointed to a B
     * @param saturatedSamples of those, the samples at which the database was saturated or its locks contended
     * @param middleHalf       the B the middle half of those samples pointed to, from the lower quartile to the upper
     * @param window           how far back the samples reach (as a configuration writes it, such as 1m)
     */
    public record RecommendationDescriptor(int limit, String confidence, int samples, int saturatedSamples,
                                           List<Integer> middleHalf, String window) {

        static RecommendationDescriptor of(SaturationLimits.Recommendation recommendation) {
            return new RecommendationDescriptor(recommendation.limit(),
                    recommendation.confidence().name().toLowerCase(Locale.ROOT), recommendation.samples(),
                    recommendation.saturatedSamples(),
                    List.of(recommendation.lowerQuartile(), recommendation.upperQuartile()),
                    written(recommendation.window()));
        }
    }

    /**
     * How HTTP requests get their deadlines ({@code db.bulkhead.request-deadline.*}).
     *
     * @param headers the headers that carry a caller's budget, by name, with their format ({@code grpc-timeout} or
     *                {@code milliseconds})
     * @param budget  the application's budget of a request no path budget matches (as a configuration writes it, such as 50ms); null for none
     * @param paths   the budgets by path pattern, in the order they are tried (as a configuration writes it, such as 50ms)
     */
    public record RequestDeadlineDescriptor(Map<String, String> headers, @Nullable String budget,
                                            Map<String, String> paths) {
    }

    /**
     * Connections borrowed outside every gate from the pools the gates admit to.
     *
     * @param mode  {@code warn}, {@code fail} (refused) or {@code off} (no pool watched)
     * @param pools each pool watched, by DataSource bean name
     * @param admission admission where connections are taken; null when the pools are only watched
     */
    public record UngatedDescriptor(String mode, Map<String, UngatedPoolDescriptor> pools,
                                    @Nullable AdmissionDescriptor admission) {
    }

    /**
     * Admission where connections are taken ({@code db.bulkhead.work}): what admitted how many borrows of each pool.
     *
     * @param defaultWorkload the workload of work no rule names
     * @param pools           per pool watched, the borrows admitted by each way of classifying since start-up:
     *                        {@code bound <workload>} (an HTTP rule, where the request began), each rule read where
     *                        the connection was taken ({@code scheduled}, {@code listener}, {@code quartz},
     *                        {@code batch}, {@code caller}, {@code executor}), {@code default <workload>} (what only
     *                        the default caught), and {@code nested} (second connections of a unit that held its place)
     * @param refusedRuns     the runs of each job ({@code scheduled job com.example.Archive.run},
     *                        {@code Batch step importJob.load}, ...) refused since start-up because a gate refused their
     *                        connection
     */
    public record AdmissionDescriptor(String defaultWorkload, Map<String, Map<String, Long>> pools,
                                      Map<String, Long> refusedRuns) {
    }

    /**
     * One pool's connections borrowed outside every gate since start-up.
     *
     * @param connections    those not recognised, refused ones included
     * @param callSites      them by call site, most first: the application frame that borrowed
     *                       ({@code class.method(File:line)}) and how often
     * @param otherCallSites those of call sites past {@code db.bulkhead.ungated.max-call-sites}, counted together
     * @param recognised     those of recognised infrastructure, by the rule that recognised them
     */
    public record UngatedPoolDescriptor(long connections, List<CallSiteDescriptor> callSites, long otherCallSites,
                                        Map<String, Long> recognised) {

        static UngatedPoolDescriptor of(UngatedConnectionReport report) {
            return new UngatedPoolDescriptor(report.connections(), report.callSites().stream()
                    .map(count -> new CallSiteDescriptor(count.site().toString(), count.connections(),
                            !count.site().application())).toList(),
                    report.otherCallSites(), new TreeMap<>(report.recognised()));
        }
    }

    /**
     * One call site that borrowed outside every gate.
     *
     * @param site        the frame that borrowed, {@code class.method(File:line)}
     * @param connections how often
     * @param guess       true when no frame of the application's packages was on the stack, so that the site is the
     *                    nearest frame of no known library (or of one): a guess at where the work came from
     */
    public record CallSiteDescriptor(String site, long connections, boolean guess) {
    }

    /**
     * This instance in the fleet, as of its last renewal.
     *
     * @param memberId    its id in the fleet's table
     * @param status      joining, leased, lapsed (coordinator unreachable past the lease) or left
     * @param connections the connections it applies now (its pool's maximum, its gates' B added up)
     * @param granted     what its lease grants
     * @param target      its fair share, which it grows or shrinks to
     * @param budget      the most connections the whole fleet may use
     * @param total       the connections the whole fleet may use now, which the targets split: the budget, or less
     *                    while {@code db.bulkhead.fleet.total=database} follows the database's signals
     * @param canServe    false when fewer connections than workloads leave a gate without one
     * @param leaseLeft   how long its lease stays valid by its own reckoning (as a configuration writes it, such as 50ms)
     * @param heartbeatsPerRenewal the heartbeats it lets pass between two renewals while its share is settled: 1
     *                    unless the fleet has more than five members and its coordinator announces the fleet's changes
     * @param leaseTtl    the lease it asks for at each renewal, {@code db.bulkhead.fleet.lease-ttl} times
     *                    {@code heartbeatsPerRenewal} (as a configuration writes it, such as 50ms): how long a share outlives a member that stops
     *                    without leaving
     * @param lastFailure why the last renewal failed; null when it succeeded
     * @param ceilings    each coordinated workload's cap on B from the share
     * @param members     every member with an unexpired lease
     */
    public record FleetDescriptor(String memberId, String status, int connections, int granted, int target, int budget,
                                  int total, boolean canServe, String leaseLeft, int heartbeatsPerRenewal,
                                  String leaseTtl, @Nullable String lastFailure, Map<String, Integer> ceilings,
                                  List<MemberDescriptor> members) {

        static FleetDescriptor of(FleetMember.Snapshot snapshot, Map<String, ConcurrencyCeiling> ceilings) {
            Map<String, Integer> caps = new LinkedHashMap<>();
            ceilings.forEach((workload, ceiling) -> caps.put(workload, ceiling.ceiling()));
            return new FleetDescriptor(snapshot.memberId(), snapshot.status().name().toLowerCase(Locale.ROOT),
                    snapshot.applied(), snapshot.granted(), snapshot.target(), snapshot.budget(), snapshot.total(),
                    snapshot.canServe(), measured(snapshot.leaseLeft()), snapshot.heartbeatsPerRenewal(),
                    written(snapshot.leaseTtl()), snapshot.lastFailure(), caps,
                    snapshot.members().stream().map(MemberDescriptor::of).toList());
        }
    }

    /**
     * A member of the fleet as the coordinator saw it at this instance's last renewal.
     *
     * @param memberId  its id
     * @param weight    its weight in the split
     * @param demand    the most connections it can use (its pool's configured maximum)
     * @param granted   what its lease grants
     * @param target    its fair share at its last renewal
     * @param leaseAge  time since its last renewal (as a configuration writes it, such as 50ms)
     * @param leaseLeft time until its lease expires (as a configuration writes it, such as 50ms)
     */
    public record MemberDescriptor(String memberId, int weight, int demand, int granted, int target, String leaseAge,
                                   String leaseLeft) {

        static MemberDescriptor of(FleetMemberState state) {
            return new MemberDescriptor(state.memberId(), state.weight(), state.demand(), state.granted(),
                    state.target(), measured(state.leaseAge()), measured(state.leaseLeft()));
        }
    }

    /**
     * The connection budget, checked with the start-up check's rules against the limits as they are now.
     *
     * @param findings what does not add up (empty when everything does)
     * @param fleet    the fleet arithmetic of each database server, when {@code db.bulkhead.fleet.max-instances}
     *                 is set; empty otherwise
     */
    public record BudgetDescriptor(List<BudgetFinding> findings, List<String> fleet) {
    }

    /**
     * One workload.
     *
     * @param maxConcurrent B, execution permits
     * @param maxQueued     Q, admissions beyond B
     * @param queueWait     the longest wait for an execution permit (as a configuration writes it, such as 50ms)
     * @param active        operations holding an execution permit now
     * @param waiting       operations admitted and waiting now
     * @param admitted      operations that got an execution permit since start-up
     * @param rejected      rejections since start-up by reason: full, timeout, interrupted
     * @param pool          the data source the workload's transactions use; null when its transaction manager
     *                      does not name one
     * @param limit         how B is chosen, and what an adaptive limit has learnt
     * @param queue         how waiting operations are served, and how often the CoDel discipline shed
     * @param retry         how failed operations are retried, and what the retry budget granted; null for a
     *                      template given no retries
     * @param lending       what the workload borrows from and lends to the other workloads of its DataSource; null
     *                      when it takes no part in lending
     * @param rules         the criticality reserves and fair shares, with the busiest keys; null for a workload
     *                      without them
     * @param operation     the transaction, the timeouts, the deadline and the Retry-After of each operation
     */
    public record WorkloadDescriptor(int maxConcurrent, int maxQueued, String queueWait, int active, int waiting,
                                     long admitted, Map<String, Long> rejected, @Nullable PoolDescriptor pool,
                                     LimitDescriptor limit, QueueDescriptor queue, @Nullable RetryDescriptor retry,
                                     @Nullable LendingDescriptor lending,
                                     @Nullable RulesDescriptor rules, OperationDescriptor operation)
            implements OperationResponseBody {
    }

    /**
     * The {@code Retry-After} of each workload's 503 answers, as the configuration resolves it: a bean the
     * auto-configuration provides, so that the endpoint shows what the answers send.
     */
    public interface RetryAfters {

        /** The least {@code Retry-After} of workload {@code workload}'s answers, in whole seconds. */
        long seconds(String workload);

        /** The most added at random to it, in whole seconds. */
        long jitterSeconds(String workload);
    }

    /**
     * What governs each operation of a workload once admitted, as its configuration sets it: a newcomer checks here
     * that the timeouts written are the ones in force. Unset values are {@code none}.
     *
     * @param readOnly           whether its transactions are read-only
     * @param isolation          the isolation level of its transactions ({@code default}: the database's)
     * @param transactionTimeout the transaction timeout, or {@code none} for the transaction manager's
     * @param statementTimeout   PostgreSQL's {@code statement_timeout} in its transactions, or {@code none}
     * @param lockTimeout        PostgreSQL's {@code lock_timeout} in its transactions, or {@code none}
     * @param deadline           the budget of a whole operation from entering the gate, or {@code none}
     * @param retryAfter         the {@code Retry-After} of its 503 answers, at least
     * @param retryAfterJitter   the most added at random to {@code retryAfter}
     */
    public record OperationDescriptor(boolean readOnly, String isolation, String transactionTimeout,
                                      String statementTimeout, String lockTimeout, String deadline, String retryAfter,
                                      String retryAfterJitter) {

        private static final String NONE = "none";

        static OperationDescriptor of(BulkheadTemplate template, @Nullable RetryAfters retryAfters) {
            TransactionDefinition transaction = template.transactionDefinition();
            TransactionTimeouts timeouts = template.timeouts();
            String workload = template.workload();
            long retryAfter = retryAfters == null ? 0 : retryAfters.seconds(workload);
            long jitter = retryAfters == null ? 0 : retryAfters.jitterSeconds(workload);
            return new OperationDescriptor(transaction.isReadOnly(), isolation(transaction.getIsolationLevel()),
                    transaction.getTimeout() == TransactionDefinition.TIMEOUT_DEFAULT ? NONE
                            : written(Duration.ofSeconds(transaction.getTimeout())),
                    orNone(timeouts.statementTimeout()), orNone(timeouts.lockTimeout()), orNone(timeouts.deadline()),
                    written(Duration.ofSeconds(retryAfter)), written(Duration.ofSeconds(jitter)));
        }

        private static String orNone(@Nullable Duration duration) {
            return duration == null ? NONE : written(duration);
        }

        /** As {@code transaction.isolation} is written: {@code read-committed}, or {@code default}. */
        private static String isolation(int level) {
            for (Isolation isolation : Isolation.values()) {
                if (isolation.value() == level) {
                    return isolation.name().toLowerCase(Locale.ROOT).replace('_', '-');
                }
            }
            return String.valueOf(level);
        }
    }

    /**
     * A workload's part in the lending between the workloads of its DataSource.
     *
     * @param pool       the pool's name: the DataSource bean named by the workloads, or {@code primary}
     * @param borrow     the most places it borrows beyond its B; 0 when it only lends
     * @param borrowed   operations running on borrowed places now (counted in {@code active} too)
     * @param lends      whether its unused places may be borrowed
     * @param poolInUse  places taken now on the pool's ledger: the lenders' running operations and every borrowed one
     * @param poolLent   the lenders' B in force, summed: what the ledger may hand out
     * @param reclaiming whether a lender waits now for a borrowed place to come back (every borrow is refused meanwhile)
     */
    public record LendingDescriptor(String pool, int borrow, int borrowed, boolean lends, long poolInUse,
                                    long poolLent, boolean reclaiming) {

        static @Nullable LendingDescriptor of(AdmissionGate gate) {
            GateLending lending = gate.config().lending();
            LendingPool pool = lending.pool();
            return pool == null ? null : new LendingDescriptor(pool.name(), lending.borrow(), gate.borrowed(),
                    lending.lends(), pool.inUse(), pool.capacity(), pool.reclaiming());
        }
    }

    /**
     * Who gets a workload's places when not everyone can.
     *
     * @param criticalReserve  share of B + Q only critical operations may take
     * @param sheddableReserve share of B + Q sheddable operations may not take
     * @param inProgressFirst  whether the waiting operations of requests in progress get the next place before new
     *                         requests' of their criticality
     * @param fairShares       whether the next place goes to the key with the least weighted recent use
     * @param maxRunningPerKey the most operations of one key running at once; null when there is no cap
     * @param keySlots         how many keys without waiting operations the gate remembers the recent use of
     * @param weights          the configured weights by key, shown as the endpoint's {@link KeyDisplay} says; keys not
     *                         listed weigh 1
     * @param meteredKeys      how many keys are counted on their own; 0 without fair shares
     * @param topKeys          the busiest keys, busiest first, each counted since it became one of them
     * @param otherKeys        the operations of every other key, together; null without fair shares
     * @param refusedInProgress operations refused since start-up that were later operations of a request admitted
     *                         once (one of its operations admitted and ended before)
     */
    public record RulesDescriptor(double criticalReserve, double sheddableReserve, boolean inProgressFirst,
                                  boolean fairShares, @Nullable Integer maxRunningPerKey, int keySlots,
                                  Map<String, Integer> weights, int meteredKeys,
                                  List<KeyDescriptor> topKeys, @Nullable KeyDescriptor otherKeys,
                                  long refusedInProgress) {

        static RulesDescriptor of(AdmissionRules rules, @Nullable KeyTally tally, KeyDisplay display,
                                  long refusedInProgress) {
            Map<String, Integer> weights = new LinkedHashMap<>();
            rules.keyWeights().forEach((key, weight) -> weights.put(display.show(key), weight));
            return new RulesDescriptor(rules.criticalReserve(), rules.sheddableReserve(), rules.inProgressFirst(),
                    rules.fairShares(), rules.maxRunningPerKey() == AdmissionRules.NO_RUNNING_CAP ? null
                            : rules.maxRunningPerKey(), rules.keySlots(), weights,
                    tally == null ? 0 : tally.meteredKeys(),
                    tally == null ? List.of() : tally.topKeys().stream()
                            .map(counts -> KeyDescriptor.of(counts, display)).toList(),
                    tally == null ? null : KeyDescriptor.of(tally.other(), KeyDisplay.RAW), refusedInProgress);
        }
    }

    /**
     * The operations of one key, or of every key not among the busiest.
     *
     * @param key      the key, shown as the endpoint's {@link KeyDisplay} says, or {@code other}
     * @param admitted operations admitted
     * @param rejected operations refused, for any reason
     */
    public record KeyDescriptor(String key, long admitted, long rejected) {

        static KeyDescriptor of(KeyTally.Counts counts, KeyDisplay display) {
            return new KeyDescriptor(display.show(counts.key()), counts.admitted(), counts.rejected());
        }
    }

    /**
     * A workload's retries and their budget.
     *
     * @param maxAttempts         attempts the workload gives each operation by itself, the first included
     * @param percentCanRetry     share of the window's first attempts that may be retried
     * @param minRetriesPerSecond retries granted a second without first attempts to pay for them
     * @param window              the sliding window of the budget (as a configuration writes it, such as 50ms)
     * @param granted             retries the budget granted since start-up
     * @param refused             retries of safe failures the budget refused since start-up
     * @param balance             retries the budget would grant now
     */
    public record RetryDescriptor(int maxAttempts, double percentCanRetry, int minRetriesPerSecond, String window,
                                  long granted, long refused, long balance) {

        static RetryDescriptor of(WorkloadRetries retries) {
            RetryBudgetConfig budget = retries.budget().config();
            return new RetryDescriptor(retries.maxAttempts(), budget.percentCanRetry(), budget.minRetriesPerSecond(),
                    written(budget.window()), retries.granted(), retries.refused(), retries.budget().balance());
        }
    }

    /**
     * How a workload's waiting operations are served.
     *
     * @param discipline  {@code fifo} or {@code codel}
     * @param targetDelay the CoDel discipline's target delay (as a configuration writes it, such as 50ms)
     * @param interval    the CoDel discipline's interval (as a configuration writes it, such as 50ms)
     * @param standing    whether the CoDel discipline judges the queue standing now (newest first, shedding);
     *                    always false under fifo
     * @param shed        waiters refused because the queue stood, since start-up; each also counted in
     *                    {@code rejected.timeout}
     */
    public record QueueDescriptor(String discipline, String targetDelay, String interval, boolean standing, long shed) {

        static QueueDescriptor of(AdmissionGate gate) {
            GateConfig config = gate.config();
            return new QueueDescriptor(config.queueDiscipline().name().toLowerCase(Locale.ROOT),
                    written(config.queueTargetDelay()), written(config.queueInterval()), gate.queueStanding(),
                    gate.shedCount());
        }
    }

    /**
     * How a workload's B is chosen.
     *
     * @param mode          {@code fixed} or {@code adaptive}
     * @param minConcurrent the floor of an adaptive B; null when fixed
     * @param maxConcurrent the ceiling of an adaptive B; null when fixed
     * @param learnt        what an adaptive limit has learnt; null when fixed
     */
    public record LimitDescriptor(String mode, @Nullable Integer minConcurrent, @Nullable Integer maxConcurrent,
                                  @Nullable LearntDescriptor learnt) {

        /** The limit of a workload whose B is fixed. */
        public static final LimitDescriptor FIXED = new LimitDescriptor("fixed", null, null, null);
    }

    /**
     * What an adaptive limit has learnt. B in force is the workload's {@code maxConcurrent}: the floor while the
     * no-load hold time is measured, else {@code concurrent}.
     *
     * @param concurrent       the learnt B
     * @param limit            the learnt B before rounding to whole operations
     * @param noLoadHoldTime   the median hold time measured at the floor (as a configuration writes it, such as 50ms); null before the first probe
     * @param recentHoldTime   the median hold time of the last window (as a configuration writes it, such as 50ms); null before the first window
     * @param probing          whether the no-load hold time is being measured now
     */
    public record LearntDescriptor(int concurrent, double limit, @Nullable String noLoadHoldTime,
                                   @Nullable String recentHoldTime, boolean probing) {
    }

    /**
     * The data source of a workload.
     *
     * @param dataSource     its bean name, when it is a bean
     * @param name           the HikariCP pool name, when it is (or wraps) a HikariCP pool
     * @param maximumSize    the HikariCP maximum pool size, P
     * @param connectionTimeout how long the pool's {@code getConnection()} waits (as a configuration writes it, such as 50ms)
     */
    public record PoolDescriptor(@Nullable String dataSource, @Nullable String name, @Nullable Integer maximumSize,
                                 @Nullable String connectionTimeout) {
    }
}
