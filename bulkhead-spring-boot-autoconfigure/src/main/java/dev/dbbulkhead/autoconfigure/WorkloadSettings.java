package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.WrittenDurations;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.DatabaseLimitMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.LimitMode;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.saturation.support.DatabaseLimits;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * Every setting of one workload, resolved once: each key falls back to {@code db.bulkhead.defaults}, then to the
 * built-in default, and is validated against the property it came from, so that a bad value is reported under the
 * name the user wrote. The template factory and the start-up checks read this one value ({@link ResolvedWorkloads}).
 *
 * @param workload              the workload; null for the defaults alone
 * @param gateConfig            the gate's limits
 * @param transactionDefinition the transaction run inside the gate
 * @param timeouts              PostgreSQL statement and lock timeouts and the deadline of each operation
 * @param dataSource            the bean name of the data source, or a null value for the primary one
 * @param transactionManager    the bean name of the transaction manager, or a null value for the primary one
 * @param adaptiveLimit         the bounds of the learnt B, starting at the gate's B; null for a fixed B
 * @param databaseLimit         how the database's saturation limits B; empty with {@code limit.database=off}, for the
 *                              defaults alone, and where no gate is built
 * @param maxAttempts           the attempts the workload gives each operation by itself, the first included
 * @param retryBudget           the budget of the workload's retries and their backoff
 * @param lending               the places the workload borrows from, and lends to, its DataSource's other workloads
 * @param meteredKeys           how many keys of a workload with fair shares get meters of their own
 * @param retryAfter            the Retry-After of its refusals; null where no gate is built, so nothing is refused
 * @param written               the settings reports name, each with the property it came from
 */
record WorkloadSettings(@Nullable String workload, GateConfig gateConfig, TransactionDefinition transactionDefinition,
                        TransactionTimeouts timeouts, Setting<@Nullable String> dataSource,
                        Setting<@Nullable String> transactionManager, @Nullable AdaptiveLimitConfig adaptiveLimit,
                        Optional<DatabaseLimits.Setting> databaseLimit, int maxAttempts, RetryBudgetConfig retryBudget,
                        Lending lending, int meteredKeys, @Nullable RetryAfter retryAfter, Written written) {

    /**
     * What a workload asks of lending; it takes part only when some workload of its DataSource borrows.
     *
     * @param borrow the most places borrowed beyond its B; 0 for none
     * @param lends  whether its unused places may be borrowed
     */
    record Lending(int borrow, boolean lends) {
    }

    /**
     * The settings that reports name, as written: each value with the property that set it.
     *
     * @param maxQueued        Q, or the waiting room of a workload that waits when full
     * @param queueWait        how long an operation waits for a place
     * @param queueDiscipline  the order of the waiting work
     * @param statementTimeout PostgreSQL's statement timeout; a null value when unset
     * @param lockTimeout      PostgreSQL's lock timeout; a null value when unset
     * @param deadline         the deadline of each operation; a null value when unset
     * @param criticalReserve  the share of places held back for critical work
     * @param sheddableReserve the share of places sheddable work leaves to the others
     * @param limitMode        whether B is fixed or adaptive
     * @param limitDatabase    whether the database's saturation limits B
     */
    record Written(Setting<Integer> maxQueued, Setting<Duration> queueWait, Setting<QueueDiscipline> queueDiscipline,
                   Setting<@Nullable Duration> statementTimeout, Setting<@Nullable Duration> lockTimeout,
                   Setting<@Nullable Duration> deadline, Setting<Double> criticalReserve,
                   Setting<Double> sheddableReserve, Setting<LimitMode> limitMode,
                   Setting<DatabaseLimitMode> limitDatabase) {
    }

    /** The most attempts of one operation: more would retry an operation that keeps failing for its own reasons. */
    static final int MAX_ATTEMPTS = 10;

    /** Keys with meters of their own by default: enough to see the busiest tenants, few enough for any registry. */
    static final int DEFAULT_METERED_KEYS = 10;

    /** The most keys with meters of their own: each is a time series per outcome in the registry. */
    static final int MAX_METERED_KEYS = 100;

    /** The queue places of a workload that waits when full: more than any application has threads. */
    static final int WAITING_ROOM = Integer.MAX_VALUE / 2;

    /** The Retry-After of a 503 when nothing sets one: long enough for a burst to drain, short enough to retry. */
    static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

    /** The largest timeout Spring's {@link TransactionDefinition#getTimeout()} can hold, in seconds. */
    private static final Duration MAX_TRANSACTION_TIMEOUT = Duration.ofSeconds(Integer.MAX_VALUE);

    /** Resolves workload {@code name} of {@code properties}, with what its gate's neighbours read. */
    static WorkloadSettings of(String name, BulkheadProperties properties) {
        return resolve(WorkloadResolver.of(name, properties), properties, true);
    }

    /** Resolves the defaults alone, so that a bad default fails even when every workload overrides it. */
    static WorkloadSettings ofDefaults(BulkheadProperties properties) {
        return resolve(WorkloadResolver.of(null, properties), properties, true);
    }

    /**
     * Resolves workload {@code name} where no gate is built ({@code db.bulkhead.enabled=false}): its transactions
     * and gate as for a gated one, but no Retry-After and no database limit, which only a gate uses.
     */
    static WorkloadSettings ungated(String name, BulkheadProperties properties) {
        return resolve(WorkloadResolver.of(name, properties), properties, false);
    }

    /**
     * The properties that set PostgreSQL-only limits (statement-timeout, lock-timeout, deadline: all applied with
     * {@code SET LOCAL}), each as the user wrote it, the workload's own or the defaults'.
     */
    List<String> postgresOnlyProperties() {
        return Stream.of(written.statementTimeout(), written.lockTimeout(), written.deadline())
                .filter(setting -> setting.value() != null).map(Setting::property).toList();
    }

    /**
     * The key that lets the workload's B move by itself — {@code limit.mode=adaptive} or {@code limit.database=steer}
     * — as the workload or the defaults set it; empty when only the configuration, a resize and a fleet share move B.
     */
    Optional<Setting<String>> selfResizingLimit() {
        return LimitSettings.selfResizing(written.limitMode(), written.limitDatabase());
    }

    private static WorkloadSettings resolve(WorkloadResolver resolver, BulkheadProperties properties, boolean gated) {
        GateSettings gate = GateSettings.resolve(resolver);
        DefaultTransactionDefinition transaction = new DefaultTransactionDefinition();
        transaction.setIsolationLevel(resolver.get(WorkloadKeys.ISOLATION).value().value());
        transaction.setReadOnly(resolver.get(WorkloadKeys.READ_ONLY).value());
        Setting<@Nullable Duration> timeout = resolver.get(WorkloadKeys.TRANSACTION_TIMEOUT);
        Duration timeoutValue = timeout.value();
        if (timeoutValue != null) {
            transaction.setTimeout(new Setting<>(timeout.property(), timeoutValue)
                    .validate(WorkloadSettings::timeoutSeconds));
        }
        Setting<@Nullable Duration> statementTimeout = resolver.get(WorkloadKeys.STATEMENT_TIMEOUT);
        Setting<@Nullable Duration> lockTimeout = resolver.get(WorkloadKeys.LOCK_TIMEOUT);
        Setting<@Nullable Duration> deadline = resolver.get(WorkloadKeys.DEADLINE);
        TransactionTimeouts timeouts = TransactionTimeouts.of(
                statementTimeout.validate(value -> TransactionTimeouts.requireMillis("statementTimeout", value)),
                lockTimeout.validate(value -> TransactionTimeouts.requireMillis("lockTimeout", value)),
                deadline.validate(value -> deadlineAfterQueueWait(value, gate.queueWait())));
        Setting<@Nullable String> dataSource = resolver.get(WorkloadKeys.DATA_SOURCE);
        Setting<@Nullable String> transactionManager = resolver.get(WorkloadKeys.TRANSACTION_MANAGER);
        Setting<LimitMode> limitMode = resolver.get(WorkloadKeys.LIMIT_MODE);
        Setting<DatabaseLimitMode> limitDatabase = resolver.get(WorkloadKeys.LIMIT_DATABASE);
        @Nullable AdaptiveLimitConfig adaptiveLimit = LimitSettings.adaptive(resolver, limitMode.value(),
                gate.config());
        int maxAttempts = RetrySettings.maxAttempts(resolver);
        RetryBudgetConfig retryBudget = RetrySettings.budget(resolver);
        Lending lending = GateSettings.lending(resolver);
        int meteredKeys = GateSettings.meteredKeys(resolver);
        // Checked where every workload passes, so that a limit without the signals it follows stops start-up; the
        // Retry-After too (used only by the HTTP 503 handler): a bad value fails start-up with or without MVC.
        String name = resolver.workload();
        Optional<DatabaseLimits.Setting> databaseLimit = gated && name != null
                ? LimitSettings.database(resolver, name, limitDatabase, gate.maxConcurrent().value(), properties)
                : Optional.empty();
        @Nullable RetryAfter retryAfter = gated ? RetryAfter.of(resolver) : null;
        Written written = new Written(gate.maxQueued(), gate.queueWait(), gate.queueDiscipline(), statementTimeout,
                lockTimeout, deadline, gate.criticalReserve(), gate.sheddableReserve(), limitMode, limitDatabase);
        return new WorkloadSettings(resolver.workload(), gate.config(), transaction, timeouts, dataSource,
                transactionManager, adaptiveLimit, databaseLimit, maxAttempts, retryBudget, lending, meteredKeys,
                retryAfter, written);
    }

    /** The queue wait comes off the deadline: an operation that waited it all would have no time left. */
    private static @Nullable Duration deadlineAfterQueueWait(@Nullable Duration deadline, Setting<Duration> queueWait) {
        TransactionTimeouts.requireMillis("deadline", deadline);
        if (deadline != null && deadline.compareTo(queueWait.value()) <= 0) {
            throw new IllegalArgumentException("must be longer than " + WorkloadKeys.QUEUE_WAIT.name() + " = "
                    + WrittenDurations.of(queueWait.value()) + " (" + queueWait.property() + "), which comes off it:"
                    + " an operation that waited its whole " + WorkloadKeys.QUEUE_WAIT.name() + " would have no time"
                    + " left to run");
        }
        return deadline;
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
}
