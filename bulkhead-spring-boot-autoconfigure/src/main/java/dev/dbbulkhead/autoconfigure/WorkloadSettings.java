package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.WrittenDurations;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.DatabaseLimitMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.LimitMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Workload;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.GateRanges;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.support.DatabaseLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * The settings of one workload after falling back key by key to {@code db.bulkhead.defaults}, then to the
 * built-in defaults, each validated against the property it came from so that a bad value is reported under
 * the name the user wrote.
 *
 * @param gateConfig            the gate's limits
 * @param transactionDefinition the transaction run inside the gate
 * @param timeouts              PostgreSQL statement and lock timeouts and the deadline of each operation
 * @param dataSource            the bean name of the data source, or a null value for the primary one
 * @param transactionManager    the bean name of the transaction manager, or a null value for the primary one
 * @param adaptiveLimit         the bounds of the learnt B, starting at the gate's B; null for a fixed B
 * @param maxAttempts           the attempts the workload gives each operation by itself, the first included
 * @param retryBudget           the budget of the workload's retries and their backoff
 * @param lending               the places the workload borrows from, and lends to, its DataSource's other workloads
 * @param meteredKeys           how many keys of a workload with fair shares get meters of their own
 */
record WorkloadSettings(GateConfig gateConfig, TransactionDefinition transactionDefinition,
                        TransactionTimeouts timeouts, Setting<@Nullable String> dataSource, Setting<@Nullable String> transactionManager,
                        @Nullable AdaptiveLimitConfig adaptiveLimit, int maxAttempts, RetryBudgetConfig retryBudget,
                        Lending lending, int meteredKeys) {

    /**
     * What a workload asks of lending; it takes part only when some workload of its DataSource borrows.
     *
     * @param borrow the most places borrowed beyond its B; 0 for none
     * @param lends  whether its unused places may be borrowed
     */
    record Lending(int borrow, boolean lends) {
    }

    /** The most attempts of one operation: more would retry an operation that keeps failing for its own reasons. */
    static final int MAX_ATTEMPTS = 10;

    /** Keys with meters of their own by default: enough to see the busiest tenants, few enough for any registry. */
    static final int DEFAULT_METERED_KEYS = 10;

    /** The most keys with meters of their own: each is a time series per outcome in the registry. */
    static final int MAX_METERED_KEYS = 100;

    private static final String DEFAULTS_PREFIX = BulkheadProperties.PREFIX + ".defaults.";

    /** The largest timeout Spring's {@link TransactionDefinition#getTimeout()} can hold, in seconds. */
    private static final Duration MAX_TRANSACTION_TIMEOUT = Duration.ofSeconds(Integer.MAX_VALUE);

    /**
     * A value and the property it came from.
     *
     * @param property the full property name, as the user would write it
     * @param value    the value; null only for settings without a built-in default
     * @param builtIn  the value without the property: what a check of every setting goes on with once it has
     *                 reported this one, so that the mistakes after it are found in the same start-up
     */
    record Setting<T extends @Nullable Object>(String property, T value, T builtIn) {

        /** A value that has no other to go on with: a check that refuses it stops there. */
        Setting(String property, T value) {
            this(property, value, value);
        }
    }

    /** The mistakes of a check of every setting at once ({@link #checkAll}); null outside one. */
    private static final ThreadLocal<@Nullable Map<String, BulkheadConfigurationException>> MISTAKES =
            new ThreadLocal<>();

    /**
     * Checks the defaults and every configured workload, and reports every value out of its range in one failure:
     * a user who wrote seven mistakes learns of the seven in one start-up, not in seven.
     *
     * @throws BulkheadConfigurationException naming each property refused, its value and its range
     */
    static void checkAll(BulkheadProperties properties) {
        List<BulkheadConfigurationException> mistakes = mistakes(properties);
        if (mistakes.size() == 1) {
            throw mistakes.get(0);
        }
        if (!mistakes.isEmpty()) {
            throw BulkheadConfigurationException.invalidProperties(
                    mistakes.stream().map(BulkheadConfigurationException::getMessage).toList());
        }
    }

    /** Every value out of its range in the defaults and the configured workloads, each once. */
    static List<BulkheadConfigurationException> mistakes(BulkheadProperties properties) {
        // By message: a default's mistake, inherited by every workload, is one mistake.
        Map<String, BulkheadConfigurationException> mistakes = new LinkedHashMap<>();
        List<@Nullable String> names = new ArrayList<>();
        names.add(null);
        names.addAll(properties.getWorkloads().keySet());
        MISTAKES.set(mistakes);
        try {
            for (@Nullable String name : names) {
                try {
                    if (name == null) {
                        ofDefaults(properties);
                    } else {
                        ofWorkload(name, properties);
                        databaseLimit(name, properties);
                    }
                    retryAfterSeconds(name, properties);
                    retryAfterJitterSeconds(name, properties);
                } catch (BulkheadConfigurationException stopped) {
                    // A check with nothing to go on with, or one made outside validate(): the rest of this
                    // workload waits for the next start-up; the other workloads are still checked.
                    mistakes.putIfAbsent(stopped.getMessage(), stopped);
                }
            }
        } finally {
            MISTAKES.remove();
        }
        return List.copyOf(mistakes.values());
    }

    /** Resolves the defaults alone, so that a bad default fails even when every workload overrides it. */
    static WorkloadSettings ofDefaults(BulkheadProperties properties) {
        return resolve(resolver(null, properties));
    }

    /** Resolves workload {@code name} of {@code properties}. */
    static WorkloadSettings ofWorkload(String name, BulkheadProperties properties) {
        return resolve(resolver(name, properties));
    }

    /** Reads the keys of workload {@code name}, falling back to the defaults; the defaults alone for a null name. */
    private static Resolver resolver(@Nullable String name, BulkheadProperties properties) {
        boolean unitsOfWork = properties.getWork().getDefaultWorkload() != null;
        if (name == null) {
            return new Resolver(DEFAULTS_PREFIX, new Workload(), properties.getDefaults(), unitsOfWork);
        }
        return new Resolver(BulkheadProperties.PREFIX + ".workloads." + name + ".",
                properties.getWorkloads().getOrDefault(name, new Workload()), properties.getDefaults(), unitsOfWork);
    }

    private static WorkloadSettings resolve(Resolver resolver) {
        Setting<Integer> maxConcurrent = resolver.setting("max-concurrent", Workload::getMaxConcurrent,
                GateConfig.DEFAULT_MAX_CONCURRENT);
        Setting<Integer> maxQueued = maxQueued(resolver);
        GateConfig.Builder gate = GateConfig.builder();
        // The builder validates with the gate's own ranges; only the property name is added here.
        validate(maxConcurrent, gate::maxConcurrent);
        validate(maxQueued, gate::maxQueued);
        Setting<Duration> waited = queueWait(resolver);
        validate(waited, gate::queueWait);
        if (whenFull(resolver).value() == BulkheadProperties.WhenFull.WAIT && waited.value().isZero()) {
            throw BulkheadConfigurationException.invalidProperty(waited.property(), waited.value(),
                    "more than 0 while " + whenFull(resolver).property() + " is wait: it is how long an operation"
                            + " waits for a place before it is given up");
        }
        gate.captureStackTrace(resolver.setting("capture-stack-trace", Workload::getCaptureStackTrace,
                GateConfig.DEFAULT_CAPTURE_STACK_TRACE).value());
        applyQueue(resolver, gate);
        gate.admissionRules(admissionRules(resolver));
        Setting<String> admitted = new Setting<>(maxConcurrent.property() + " + " + maxQueued.property(),
                maxConcurrent.value() + " + " + maxQueued.value());
        GateConfig gateConfig = validate(admitted, ignored -> gate.build());

        DefaultTransactionDefinition transaction = new DefaultTransactionDefinition();
        transaction.setIsolationLevel(resolver.setting("transaction.isolation",
                workload -> workload.getTransaction().getIsolation(), Isolation.DEFAULT).value().value());
        transaction.setReadOnly(resolver.setting("transaction.read-only",
                workload -> workload.getTransaction().getReadOnly(), false).value());
        Setting<@Nullable Duration> timeout = resolver.setting("transaction.timeout",
                workload -> workload.getTransaction().getTimeout(), null);
        Duration timeoutValue = timeout.value();
        if (timeoutValue != null) {
            transaction.setTimeout(validate(new Setting<>(timeout.property(), timeoutValue),
                    WorkloadSettings::timeoutSeconds));
        }
        Duration statementTimeout = validate(resolver.setting("statement-timeout", Workload::getStatementTimeout, null),
                value -> TransactionTimeouts.requireMillis("statementTimeout", value));
        Duration lockTimeout = validate(resolver.setting("lock-timeout", Workload::getLockTimeout, null),
                value -> TransactionTimeouts.requireMillis("lockTimeout", value));
        Setting<Duration> queueWait = queueWait(resolver);
        Duration deadline = validate(resolver.setting("deadline", Workload::getDeadline, null), value -> {
            TransactionTimeouts.requireMillis("deadline", value);
            // The queue wait comes off the deadline: an operation that waited it all would have no time left.
            if (value != null && value.compareTo(queueWait.value()) <= 0) {
                throw new IllegalArgumentException("must be longer than queue-wait = "
                        + WrittenDurations.of(queueWait.value()) + " ("
                        + queueWait.property() + "), which comes off it: an operation that waited its whole"
                        + " queue-wait would have no time left to run");
            }
            return value;
        });
        return new WorkloadSettings(gateConfig, transaction,
                TransactionTimeouts.of(statementTimeout, lockTimeout, deadline),
                resolver.setting("data-source", Workload::getDataSource, null),
                resolver.setting("transaction-manager", Workload::getTransactionManager, null),
                adaptiveLimit(resolver, gateConfig), maxAttempts(resolver), retryBudget(resolver), lending(resolver),
                meteredKeys(resolver));
    }

    private static Lending lending(Resolver resolver) {
        int borrow = validate(resolver.setting("lending.borrow", workload -> workload.getLending().getBorrow(),
                GateLending.DEFAULT_BORROW), places -> {
                    if (places < 0 || places > GateLending.MAX_BORROW) {
                        throw new IllegalArgumentException("must be between 0 (borrows nothing) and "
                                + GateLending.MAX_BORROW + ", was " + places);
                    }
                    return places;
                });
        return new Lending(borrow, resolver.setting("lending.lend", workload -> workload.getLending().getLend(), true)
                .value());

    }

    /**
     * The criticality reserves, in-progress-first and fair shares, each value checked by the rules' own builder and reported under its
     * property; the sheddable reserve against the critical one, reported under the sheddable one.
     */
    private static AdmissionRules admissionRules(Resolver resolver) {
        AdmissionRules.Builder rules = AdmissionRules.builder();
        validate(resolver.setting("criticality.critical-reserve",
                workload -> workload.getCriticality().getCriticalReserve(),
                AdmissionRules.DEFAULT_CRITICAL_RESERVE), rules::criticalReserve);
        // Admitted where connections are taken, the unit users see is the request or job: its later operations go
        // first unless the user says otherwise. Without it, the gate keeps the fast path earlier steps measured.
        rules.inProgressFirst(resolver.setting("criticality.in-progress-first",
                workload -> workload.getCriticality().getInProgressFirst(),
                resolver.unitsOfWork() || AdmissionRules.DEFAULT_IN_PROGRESS_FIRST).value());
        rules.fairShares(resolver.setting("fair-share.enabled", workload -> workload.getFairShare().getEnabled(),
                AdmissionRules.DEFAULT_FAIR_SHARES).value());
        validate(resolver.setting("fair-share.key-slots", workload -> workload.getFairShare().getKeySlots(),
                AdmissionRules.DEFAULT_KEY_SLOTS), rules::keySlots);
        validate(resolver.setting("fair-share.weights", workload -> workload.getFairShare().getWeights(),
                Map.<String, Integer>of()), rules::keyWeights);
        validate(resolver.setting("fair-share.keyless-key", workload -> workload.getFairShare().getKeylessKey(),
                AdmissionRules.DEFAULT_KEYLESS_KEY), rules::keylessKey);
        return validate(resolver.setting("criticality.sheddable-reserve",
                workload -> workload.getCriticality().getSheddableReserve(),
                AdmissionRules.DEFAULT_SHEDDABLE_RESERVE), reserve -> rules.sheddableReserve(reserve).build());
    }

    private static int meteredKeys(Resolver resolver) {
        return validate(resolver.setting("fair-share.metered-keys", workload -> workload.getFairShare().getMeteredKeys(),
                DEFAULT_METERED_KEYS), keys -> {
                    if (keys < 0 || keys > MAX_METERED_KEYS) {
                        throw new IllegalArgumentException("must be between 0 (every key as other) and "
                                + MAX_METERED_KEYS + ", was " + keys);
                    }
                    return keys;
                });
    }

    private static int maxAttempts(Resolver resolver) {
        return validate(resolver.setting("retry.max-attempts", workload -> workload.getRetry().getMaxAttempts(), 1),
                attempts -> {
                    if (attempts < 1 || attempts > MAX_ATTEMPTS) {
                        throw new IllegalArgumentException("must be between 1 (no retries) and " + MAX_ATTEMPTS
                                + ", was " + attempts);
                    }
                    return attempts;
                });
    }

    /** The retry budget, each value checked by the budget's own builder and reported under its property. */
    private static RetryBudgetConfig retryBudget(Resolver resolver) {
        RetryBudgetConfig.Builder budget = RetryBudgetConfig.builder();
        validate(resolver.setting("retry.percent-can-retry", workload -> workload.getRetry().getPercentCanRetry(),
                RetryBudgetConfig.DEFAULT_PERCENT_CAN_RETRY), budget::percentCanRetry);
        validate(resolver.setting("retry.min-retries-per-second",
                workload -> workload.getRetry().getMinRetriesPerSecond(),
                RetryBudgetConfig.DEFAULT_MIN_RETRIES_PER_SECOND), budget::minRetriesPerSecond);
        validate(resolver.setting("retry.window", workload -> workload.getRetry().getWindow(),
                RetryBudgetConfig.DEFAULT_WINDOW), budget::window);
        validate(resolver.setting("retry.backoff-cap", workload -> workload.getRetry().getBackoffCap(),
                RetryBudgetConfig.DEFAULT_BACKOFF_CAP), budget::backoffCap);
        // Checked against the cap by the builder: reported under the base, whose message names the cap.
        return validate(resolver.setting("retry.backoff-base", workload -> workload.getRetry().getBackoffBase(),
                RetryBudgetConfig.DEFAULT_BACKOFF_BASE), base -> budget.backoffBase(base).build());
    }

    /**
     * The queue discipline, its target delay and its interval, each checked on its own, then the target against the
     * interval (reported under the target, naming the interval's property). Checked under fifo too: switching a
     * workload to codel must not reveal a bad value that was there all along.
     */
    private static void applyQueue(Resolver resolver, GateConfig.Builder gate) {
        gate.queueDiscipline(queueDiscipline(resolver).value());
        Setting<Duration> interval = resolver.setting("queue.interval", workload -> workload.getQueue().getInterval(),
                GateConfig.DEFAULT_QUEUE_INTERVAL);
        // The interval the gate got: its built-in one when a check of every setting reported this one.
        Duration intervalUsed = validate(interval, value -> {
            gate.queueInterval(value);
            return value;
        });
        validate(resolver.setting("queue.target-delay", workload -> workload.getQueue().getTargetDelay(),
                GateConfig.DEFAULT_QUEUE_TARGET_DELAY), targetDelay -> {
                    gate.queueTargetDelay(targetDelay);
                    // The rule is the gate's; only its words change, to name the interval's property.
                    try {
                        GateRanges.requireTargetWithinInterval(targetDelay, intervalUsed);
                    } catch (IllegalArgumentException beyondInterval) {
                        throw new IllegalArgumentException("must be positive and at most " + interval.property()
                                + " = " + intervalUsed + ", was " + targetDelay);
                    }
                    return targetDelay;
                });
    }

    /** What {@link #idleQueueDiscipline} and {@link #ineffectiveSettings} find in every configured workload. */
    static List<String> settingsThatCannotAct(BulkheadProperties properties) {
        List<String> findings = new ArrayList<>();
        for (String name : properties.getWorkloads().keySet()) {
            idleQueueDiscipline(name, properties).ifPresent(findings::add);
            findings.addAll(ineffectiveSettings(name, ofWorkload(name, properties), properties));
        }
        return findings;
    }

    /**
     * Why workload {@code name}'s CoDel queue discipline can do nothing — no queue places, or no queue wait, so
     * no operation ever waits — naming the properties; empty when it can act, or the discipline is fifo.
     */
    static Optional<String> idleQueueDiscipline(String name, BulkheadProperties properties) {
        Resolver resolver = resolver(name, properties);
        Setting<QueueDiscipline> discipline = queueDiscipline(resolver);
        if (discipline.value() != QueueDiscipline.CODEL) {
            return Optional.empty();
        }
        Setting<Integer> maxQueued = maxQueued(resolver);
        Setting<Duration> queueWait = queueWait(resolver);
        String why;
        if (maxQueued.value() == 0) {
            why = "max-queued is 0 (" + maxQueued.property() + "): no operation waits, unless a resize adds queue"
                    + " places";
        } else if (queueWait.value().isZero()) {
            why = "queue-wait is 0 (" + queueWait.property() + "): every waiter gives up at once";
        } else {
            return Optional.empty();
        }
        return Optional.of("db-bulkhead workload '" + name + "': queue.discipline=codel (" + discipline.property()
                + ") has nothing to do while " + why + ". Give it a queue (max-queued and queue-wait above 0), or set "
                + BulkheadProperties.PREFIX
                + ".workloads." + name + ".queue.discipline=fifo to say that it needs none.");
    }

    /**
     * The settings of workload {@code name} that can do nothing with its B and Q as configured, each naming its
     * property: a queue wait the workload sets itself while it has no queue places, and a criticality reserve that
     * rounds down to no place. Warnings rather than failures: a resize can add the places they need.
     */
    static List<String> ineffectiveSettings(String name, WorkloadSettings settings, BulkheadProperties properties) {
        Resolver resolver = resolver(name, properties);
        List<String> findings = new ArrayList<>();
        Setting<Duration> queueWait = queueWait(resolver);
        Setting<Integer> maxQueued = maxQueued(resolver);
        if (maxQueued.value() == 0 && !queueWait.value().isZero() && queueWait.property().startsWith(resolver.prefix())) {
            findings.add("db-bulkhead workload '" + name + "': queue-wait = " + WrittenDurations.of(queueWait.value()) + " ("
                    + queueWait.property() + ") has no effect while max-queued is 0 (" + maxQueued.property()
                    + "): no operation ever waits. Give the workload queue places, or remove its queue-wait.");
        }
        if (maxQueued.value() > 0 && queueWait.value().isZero()) {
            findings.add("db-bulkhead workload '" + name + "': max-queued = " + maxQueued.value() + " ("
                    + maxQueued.property() + ") has no effect while queue-wait is 0s (" + queueWait.property()
                    + "): a queued operation gives up at once, so nothing ever waits, and neither the order of"
                    + " waiting work nor push-out can act. Set queue-wait to about how long the workload's operations"
                    + " take (such as 50ms), or set max-queued to 0 to say that it needs no queue.");
        }
        Setting<@Nullable Duration> statementTimeout = resolver.setting("statement-timeout",
                Workload::getStatementTimeout, null);
        Setting<@Nullable Duration> lockTimeout = resolver.setting("lock-timeout", Workload::getLockTimeout, null);
        Duration statement = statementTimeout.value();
        Duration lock = lockTimeout.value();
        if (statement != null && lock != null && lock.compareTo(statement) >= 0) {
            findings.add("db-bulkhead workload '" + name + "': lock-timeout = " + WrittenDurations.of(lock) + " ("
                    + lockTimeout.property() + ") can never end a lock wait: statement-timeout = "
                    + WrittenDurations.of(statement) + " (" + statementTimeout.property() + ") ends the statement"
                    + " first, its lock waits included. Set lock-timeout below statement-timeout, or remove it.");
        }
        GateConfig gate = settings.gateConfig();
        long places = (long) gate.maxConcurrent() + gate.maxQueued();
        AdmissionRules rules = gate.admissionRules();
        Map<String, Double> reserves = new LinkedHashMap<>();
        reserves.put(resolver.setting("criticality.critical-reserve",
                workload -> workload.getCriticality().getCriticalReserve(), 0.0).property(), rules.criticalReserve());
        if (rules.sheddableReserve() > rules.criticalReserve()) {
            reserves.put(resolver.setting("criticality.sheddable-reserve",
                    workload -> workload.getCriticality().getSheddableReserve(), 0.0).property(),
                    rules.sheddableReserve());
        }
        reserves.forEach((property, reserve) -> {
            if (reserve > 0 && (long) (reserve * places) == 0) {
                findings.add("db-bulkhead workload '" + name + "': " + property + " = " + reserve + " holds back no"
                        + " place of max-concurrent + max-queued = " + places + " (rounded down): it takes a share"
                        + " of at least 1/" + places + " to hold back one.");
            }
        });
        return findings;
    }

    /**
     * Q as configured; for a workload whose operations wait when it is full ({@code when-full: wait}), a waiting room
     * no arrival fills, since such work waits for a place within its queue wait rather than be refused. A
     * {@code max-queued} of the workload's own beside {@code when-full: wait} is refused: it could never apply; the
     * defaults' applies to the workloads that refuse.
     */
    private static Setting<Integer> maxQueued(Resolver resolver) {
        Setting<Integer> written = resolver.setting("max-queued", Workload::getMaxQueued,
                GateConfig.DEFAULT_MAX_QUEUED);
        Setting<BulkheadProperties.WhenFull> whenFull = whenFull(resolver);
        if (whenFull.value() != BulkheadProperties.WhenFull.WAIT) {
            return written;
        }
        if (resolver.own().getMaxQueued() != null) {
            throw BulkheadConfigurationException.invalidProperty(written.property(), written.value(),
                    "none while " + whenFull.property() + " is wait: the operations of a workload that waits when"
                            + " full wait for a place within queue-wait, however many they are. Remove it, or set "
                            + whenFull.property() + " to refuse");
        }
        return new Setting<>(whenFull.property(), WAITING_ROOM);
    }

    /** The queue places of a workload that waits when full: more than any application has threads. */
    static final int WAITING_ROOM = Integer.MAX_VALUE / 2;

    private static Setting<BulkheadProperties.WhenFull> whenFull(Resolver resolver) {
        return resolver.setting("when-full", Workload::getWhenFull, BulkheadProperties.WhenFull.REFUSE);
    }

    private static Setting<Duration> queueWait(Resolver resolver) {
        return resolver.setting("queue-wait", Workload::getQueueWait, GateConfig.DEFAULT_QUEUE_WAIT);
    }

    private static Setting<QueueDiscipline> queueDiscipline(Resolver resolver) {
        return resolver.setting("queue.discipline", workload -> workload.getQueue().getDiscipline(),
                GateConfig.DEFAULT_QUEUE_DISCIPLINE);
    }

    /**
     * The key that lets workload {@code name}'s B move by itself — {@code limit.mode=adaptive} or
     * {@code limit.database=steer} — as the workload or the defaults set it; empty when only the configuration, a
     * resize and a fleet share move B.
     */
    static Optional<Setting<String>> selfResizingLimit(String name, BulkheadProperties properties) {
        Resolver resolver = resolver(name, properties);
        Setting<LimitMode> mode = resolver.setting("limit.mode", workload -> workload.getLimit().getMode(),
                LimitMode.FIXED);
        if (mode.value() == LimitMode.ADAPTIVE) {
            return Optional.of(new Setting<>(mode.property(), "adaptive"));
        }
        Setting<DatabaseLimitMode> database = resolver.setting("limit.database",
                workload -> workload.getLimit().getDatabase(), DatabaseLimitMode.OFF);
        return database.value() == DatabaseLimitMode.STEER
                ? Optional.of(new Setting<>(database.property(), "steer")) : Optional.empty();
    }

    /** The beans workload {@code name} names for its transactions, its own or the defaults'. */
    static ResolvedSettings.TransactionBeans transactionBeans(String name, BulkheadProperties properties) {
        Resolver resolver = resolver(name, properties);
        return new ResolvedSettings.TransactionBeans(
                resolver.setting("transaction-manager", Workload::getTransactionManager, null).value(),
                resolver.setting("data-source", Workload::getDataSource, null).value());
    }

    /** The bounds of an adaptive B, each checked against B (where it starts) and Q; null for a fixed B. */
    private static @Nullable AdaptiveLimitConfig adaptiveLimit(Resolver resolver, GateConfig gate) {
        LimitMode mode = resolver.setting("limit.mode", workload -> workload.getLimit().getMode(), LimitMode.FIXED)
                .value();
        if (mode != LimitMode.ADAPTIVE) {
            return null;
        }
        int startConcurrent = gate.maxConcurrent();
        AdaptiveLimitConfig.Builder limit = AdaptiveLimitConfig.builder();
        validate(resolver.setting("limit.min-concurrent", workload -> workload.getLimit().getMinConcurrent(),
                AdaptiveLimitConfig.DEFAULT_MIN_CONCURRENT), floor -> {
                    if (floor > startConcurrent) {
                        throw new IllegalArgumentException("must be between " + GateRanges.MIN_MAX_CONCURRENT
                                + " and max-concurrent (B) = " + startConcurrent + ", where the adaptive limit starts");
                    }
                    return limit.minConcurrent(floor);
                });
        validate(resolver.setting("limit.max-concurrent", workload -> workload.getLimit().getMaxConcurrent(),
                startConcurrent), ceiling -> {
                    if (ceiling < startConcurrent) {
                        throw new IllegalArgumentException("must be at least max-concurrent (B) = " + startConcurrent
                                + ", where the adaptive limit starts");
                    }
                    GateRanges.requireAdmittedFits(ceiling, gate.maxQueued());
                    return limit.maxConcurrent(ceiling);
                });
        return limit.build();
    }

    /**
     * The properties that set PostgreSQL-only limits of workload {@code name} (statement-timeout, lock-timeout,
     * deadline: all applied with {@code SET LOCAL}), each as the user wrote it, workload's own or default.
     */
    static List<String> postgresOnlyProperties(String name, BulkheadProperties properties) {
        Resolver resolver = resolver(name, properties);
        return Stream.of(resolver.setting("statement-timeout", Workload::getStatementTimeout, null),
                        resolver.setting("lock-timeout", Workload::getLockTimeout, null),
                        resolver.setting("deadline", Workload::getDeadline, null))
                .filter(setting -> setting.value() != null).map(Setting::property)
                .toList();
    }

    private static int timeoutSeconds(Duration timeout) {
        if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(MAX_TRANSACTION_TIMEOUT) > 0
                || timeout.getNano() != 0) {
            throw new IllegalArgumentException("the transaction timeout must be whole seconds from 1s to "
                    + MAX_TRANSACTION_TIMEOUT.getSeconds() + "s, was " + timeout
                    + " (leave it unset for the transaction manager's default)");
        }
        return (int) timeout.getSeconds();
    }

    /** The Retry-After of a 503 when nothing sets one: long enough for a burst to drain, short enough to retry. */
    static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

    /** A client told to stay away longer than a day would better be told the service is down. */
    private static final Duration MAX_RETRY_AFTER = Duration.ofDays(1);

    /**
     * How the database's saturation limits workload {@code name}: off, steered or recommended, in which order it is
     * lowered, its floor and the most it may be raised to or recommended.
     *
     * @throws BulkheadConfigurationException for a floor outside 1..B, a ceiling below B, or a limit without the
     *                                        database's signals to follow
     */
    static Optional<DatabaseLimits.Setting> databaseLimit(String name, BulkheadProperties properties) {
        Resolver resolver = resolver(name, properties);
        Setting<DatabaseLimitMode> mode = resolver.setting("limit.database", workload -> workload.getLimit()
                .getDatabase(), DatabaseLimitMode.OFF);
        if (mode.value() == DatabaseLimitMode.OFF) {
            return Optional.empty();
        }
        int maxConcurrent = resolver.setting("max-concurrent", Workload::getMaxConcurrent,
                GateConfig.DEFAULT_MAX_CONCURRENT).value();
        Criticality criticality = resolver.setting("limit.criticality", workload -> workload.getLimit()
                .getCriticality(), Criticality.DEFAULT).value();
        validate(mode, value -> {
            if (!properties.getDatabase().getSignals().isEnabled()) {
                throw new IllegalArgumentException("needs " + BulkheadProperties.PREFIX
                        + ".database.signals.enabled=true: the limit follows the signals the sampler reads");
            }
            return value;
        });
        int floor = validate(resolver.setting("limit.min-concurrent", workload -> workload.getLimit()
                .getMinConcurrent(), GateRanges.MIN_MAX_CONCURRENT), value -> {
                    if (value < GateRanges.MIN_MAX_CONCURRENT || value > maxConcurrent) {
                        throw new IllegalArgumentException("must be between " + GateRanges.MIN_MAX_CONCURRENT
                                + " and max-concurrent (B) = " + maxConcurrent + ": the database's limit lowers B no"
                                + " further");
                    }
                    return value;
                });
        int ceiling = validate(resolver.setting("limit.max-concurrent", workload -> workload.getLimit()
                .getMaxConcurrent(), maxConcurrent), value -> {
                    if (value < maxConcurrent) {
                        throw new IllegalArgumentException("must be at least max-concurrent (B) = " + maxConcurrent);
                    }
                    return GateRanges.requireMaxConcurrent(value);
                });
        return Optional.of(new DatabaseLimits.Setting(name, mode.value() == DatabaseLimitMode.STEER
                ? SaturationLimits.Mode.STEER : SaturationLimits.Mode.RECOMMEND, criticality, floor, ceiling));
    }

    /**
     * The Retry-After of workload {@code name}, or of the defaults for a null name, in whole seconds rounded up.
     *
     * @throws BulkheadConfigurationException when the value is not above zero, or longer than a day
     */
    static long retryAfterSeconds(@Nullable String name, BulkheadProperties properties) {
        Setting<Duration> retryAfter = resolver(name, properties)
                .setting("retry-after", Workload::getRetryAfter, DEFAULT_RETRY_AFTER);
        return validate(retryAfter, WorkloadSettings::wholeSecondsRoundedUp);
    }

    /**
     * The most added at random to the Retry-After of workload {@code name}, or of the defaults for a null name, in
     * whole seconds rounded up; unset, the Retry-After itself, so that the answers spread over twice its span.
     *
     * @throws BulkheadConfigurationException when the value is negative, or longer than a day
     */
    static long retryAfterJitterSeconds(@Nullable String name, BulkheadProperties properties) {
        Setting<@Nullable Duration> jitter = resolver(name, properties)
                .setting("retry-after-jitter", Workload::getRetryAfterJitter, null);
        Duration value = jitter.value();
        if (value == null) {
            return retryAfterSeconds(name, properties);
        }
        return validate(new Setting<>(jitter.property(), value), given -> {
            if (given.isNegative() || given.compareTo(MAX_RETRY_AFTER) > 0) {
                throw new IllegalArgumentException("the Retry-After jitter must be from 0s to " + MAX_RETRY_AFTER
                        + " (it is sent in whole seconds, rounded up), was " + given);
            }
            return given.getSeconds() + (given.getNano() > 0 ? 1 : 0);
        });
    }

    private static long wholeSecondsRoundedUp(Duration retryAfter) {
        if (retryAfter.compareTo(Duration.ZERO) <= 0 || retryAfter.compareTo(MAX_RETRY_AFTER) > 0) {
            throw new IllegalArgumentException("the Retry-After must be above 0s and at most " + MAX_RETRY_AFTER
                    + " (it is sent in whole seconds, rounded up), was " + retryAfter);
        }
        return retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
    }

    /**
     * Applies {@code check} to the setting's value, reporting its refusal under the setting's property; within
     * {@link #checkAll}, notes the refusal and goes on with the setting's built-in value.
     */
    static <T extends @Nullable Object, R extends @Nullable Object> R validate(Setting<T> setting,
                                                                               Function<T, R> check) {
        Map<String, BulkheadConfigurationException> mistakes = MISTAKES.get();
        try {
            return ResolvedSettings.requireValid(setting.property(), setting.value(), check);
        } catch (BulkheadConfigurationException refused) {
            if (mistakes == null || Objects.equals(setting.builtIn(), setting.value())) {
                throw refused;
            }
            mistakes.putIfAbsent(refused.getMessage(), refused);
            return ResolvedSettings.requireValid(setting.property(), setting.builtIn(), check);
        }
    }

    /**
     * Picks each key from the workload, else from the defaults, else the built-in value.
     *
     * @param unitsOfWork whether {@code db.bulkhead.work.default-workload} is set: connections are admitted where
     *                    they are taken, so requests and jobs are the units admitted
     */
    private record Resolver(String prefix, Workload own, Workload defaults, boolean unitsOfWork) {

        <T extends @Nullable Object> Setting<T> setting(String key, Function<Workload, @Nullable T> property,
                                                        T builtIn) {
            T value = property.apply(own);
            if (value != null) {
                return new Setting<>(prefix + key, value, builtIn);
            }
            T inherited = property.apply(defaults);
            return new Setting<>(DEFAULTS_PREFIX + key, inherited != null ? inherited : builtIn, builtIn);
        }
    }
}
