package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.BulkheadProperties.CriticalityReserves;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.DatabaseLimitMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.FairShare;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Lending;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Limit;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.LimitMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Queue;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Retry;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Transaction;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.WhenFull;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Workload;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.annotation.Isolation;

/**
 * The keys of a workload, each written once: its name under {@code db.bulkhead.workloads.<name>.} and
 * {@code db.bulkhead.defaults.}, where {@link Workload} holds it, and its built-in value. The keys of a nested group
 * ({@code limit.}, {@code retry.}, …) take the group's name from the group, so that no key is spelt twice.
 */
final class WorkloadKeys {

    /** Where the keys every workload inherits are written. */
    static final String DEFAULTS_PREFIX = BulkheadProperties.PREFIX + ".defaults.";

    private static final Group<Transaction> TRANSACTION = new Group<>("transaction", Workload::getTransaction);
    private static final Group<Limit> LIMIT = new Group<>("limit", Workload::getLimit);
    private static final Group<Queue> QUEUE = new Group<>("queue", Workload::getQueue);
    private static final Group<Retry> RETRY = new Group<>("retry", Workload::getRetry);
    private static final Group<Lending> LENDING = new Group<>("lending", Workload::getLending);
    private static final Group<CriticalityReserves> CRITICALITY = new Group<>("criticality", Workload::getCriticality);
    private static final Group<FairShare> FAIR_SHARE = new Group<>("fair-share", Workload::getFairShare);

    static final Key<Integer> MAX_CONCURRENT = new Key<>("max-concurrent", Workload::getMaxConcurrent,
            GateConfig.DEFAULT_MAX_CONCURRENT);
    static final Key<Integer> MAX_QUEUED = new Key<>("max-queued", Workload::getMaxQueued,
            GateConfig.DEFAULT_MAX_QUEUED);
    static final Key<WhenFull> WHEN_FULL = new Key<>("when-full", Workload::getWhenFull, WhenFull.REFUSE);
    static final Key<Duration> QUEUE_WAIT = new Key<>("queue-wait", Workload::getQueueWait,
            GateConfig.DEFAULT_QUEUE_WAIT);
    static final Key<Boolean> CAPTURE_STACK_TRACE = new Key<>("capture-stack-trace", Workload::getCaptureStackTrace,
            GateConfig.DEFAULT_CAPTURE_STACK_TRACE);
    static final Key<@Nullable String> DATA_SOURCE = new Key<>("data-source", Workload::getDataSource, null);
    static final Key<@Nullable String> TRANSACTION_MANAGER = new Key<>("transaction-manager",
            Workload::getTransactionManager, null);
    static final Key<@Nullable Duration> STATEMENT_TIMEOUT = new Key<>("statement-timeout",
            Workload::getStatementTimeout, null);
    static final Key<@Nullable Duration> LOCK_TIMEOUT = new Key<>("lock-timeout", Workload::getLockTimeout, null);
    static final Key<@Nullable Duration> DEADLINE = new Key<>("deadline", Workload::getDeadline, null);
    static final Key<Duration> RETRY_AFTER = new Key<>("retry-after", Workload::getRetryAfter,
            WorkloadSettings.DEFAULT_RETRY_AFTER);
    static final Key<@Nullable Duration> RETRY_AFTER_JITTER = new Key<>("retry-after-jitter",
            Workload::getRetryAfterJitter, null);

    static final Key<Isolation> ISOLATION = TRANSACTION.key("isolation", Transaction::getIsolation, Isolation.DEFAULT);
    static final Key<Boolean> READ_ONLY = TRANSACTION.key("read-only", Transaction::getReadOnly, false);
    static final Key<@Nullable Duration> TRANSACTION_TIMEOUT = TRANSACTION.key("timeout", Transaction::getTimeout,
            null);

    static final Key<LimitMode> LIMIT_MODE = LIMIT.key("mode", Limit::getMode, LimitMode.FIXED);
    static final Key<DatabaseLimitMode> LIMIT_DATABASE = LIMIT.key("database", Limit::getDatabase,
            DatabaseLimitMode.OFF);
    static final Key<Criticality> LIMIT_CRITICALITY = LIMIT.key("criticality", Limit::getCriticality,
            Criticality.DEFAULT);
    /** Built in: the adaptive limit's floor; the database's limit reads it with a floor of its own. */
    static final Key<Integer> LIMIT_MIN_CONCURRENT = LIMIT.key("min-concurrent", Limit::getMinConcurrent,
            AdaptiveLimitConfig.DEFAULT_MIN_CONCURRENT);
    /** Built in: B's; read with the workload's B, where a limit starts, as its built-in value. */
    static final Key<Integer> LIMIT_MAX_CONCURRENT = LIMIT.key("max-concurrent", Limit::getMaxConcurrent,
            GateConfig.DEFAULT_MAX_CONCURRENT);

    static final Key<QueueDiscipline> QUEUE_DISCIPLINE = QUEUE.key("discipline", Queue::getDiscipline,
            GateConfig.DEFAULT_QUEUE_DISCIPLINE);
    static final Key<Duration> QUEUE_INTERVAL = QUEUE.key("interval", Queue::getInterval,
            GateConfig.DEFAULT_QUEUE_INTERVAL);
    static final Key<Duration> QUEUE_TARGET_DELAY = QUEUE.key("target-delay", Queue::getTargetDelay,
            GateConfig.DEFAULT_QUEUE_TARGET_DELAY);

    static final Key<Integer> MAX_ATTEMPTS = RETRY.key("max-attempts", Retry::getMaxAttempts, 1);
    static final Key<Double> PERCENT_CAN_RETRY = RETRY.key("percent-can-retry", Retry::getPercentCanRetry,
            RetryBudgetConfig.DEFAULT_PERCENT_CAN_RETRY);
    static final Key<Integer> MIN_RETRIES_PER_SECOND = RETRY.key("min-retries-per-second",
            Retry::getMinRetriesPerSecond, RetryBudgetConfig.DEFAULT_MIN_RETRIES_PER_SECOND);
    static final Key<Duration> RETRY_WINDOW = RETRY.key("window", Retry::getWindow, RetryBudgetConfig.DEFAULT_WINDOW);
    static final Key<Duration> BACKOFF_CAP = RETRY.key("backoff-cap", Retry::getBackoffCap,
            RetryBudgetConfig.DEFAULT_BACKOFF_CAP);
    static final Key<Duration> BACKOFF_BASE = RETRY.key("backoff-base", Retry::getBackoffBase,
            RetryBudgetConfig.DEFAULT_BACKOFF_BASE);

    static final Key<Integer> BORROW = LENDING.key("borrow", Lending::getBorrow, GateLending.DEFAULT_BORROW);
    static final Key<Boolean> LEND = LENDING.key("lend", Lending::getLend, true);

    static final Key<Double> CRITICAL_RESERVE = CRITICALITY.key("critical-reserve",
            CriticalityReserves::getCriticalReserve, AdmissionRules.DEFAULT_CRITICAL_RESERVE);
    static final Key<Double> SHEDDABLE_RESERVE = CRITICALITY.key("sheddable-reserve",
            CriticalityReserves::getSheddableReserve, AdmissionRules.DEFAULT_SHEDDABLE_RESERVE);
    /** Built in: the gate's; true instead where requests and jobs are the units admitted. */
    static final Key<Boolean> IN_PROGRESS_FIRST = CRITICALITY.key("in-progress-first",
            CriticalityReserves::getInProgressFirst, AdmissionRules.DEFAULT_IN_PROGRESS_FIRST);

    static final Key<Boolean> FAIR_SHARES = FAIR_SHARE.key("enabled", FairShare::getEnabled,
            AdmissionRules.DEFAULT_FAIR_SHARES);
    static final Key<Integer> KEY_SLOTS = FAIR_SHARE.key("key-slots", FairShare::getKeySlots,
            AdmissionRules.DEFAULT_KEY_SLOTS);
    static final Key<Map<String, Integer>> WEIGHTS = FAIR_SHARE.key("weights", FairShare::getWeights, Map.of());
    static final Key<String> KEYLESS_KEY = FAIR_SHARE.key("keyless-key", FairShare::getKeylessKey,
            AdmissionRules.DEFAULT_KEYLESS_KEY);
    static final Key<Integer> MAX_RUNNING_PER_KEY = FAIR_SHARE.key("max-running-per-key",
            FairShare::getMaxRunningPerKey, AdmissionRules.NO_RUNNING_CAP);
    static final Key<Integer> METERED_KEYS = FAIR_SHARE.key("metered-keys", FairShare::getMeteredKeys,
            WorkloadSettings.DEFAULT_METERED_KEYS);

    private WorkloadKeys() {
    }

    /** Where the keys of workload {@code workload} are written; the defaults' for a null name. */
    static String prefixOf(@Nullable String workload) {
        return workload == null ? DEFAULTS_PREFIX : BulkheadProperties.PREFIX + ".workloads." + workload + ".";
    }

    /**
     * One key of a workload.
     *
     * @param name    the key below the workload's prefix, such as {@code limit.mode}
     * @param read    where {@link Workload} holds it; null when it is not set
     * @param builtIn the value when neither the workload nor the defaults set it
     */
    record Key<T extends @Nullable Object>(String name, Function<Workload, @Nullable T> read, T builtIn) {

        /** The key in full under workload {@code workload}, or under the defaults for a null name. */
        String under(@Nullable String workload) {
            return prefixOf(workload) + name;
        }
    }

    /** A group of keys that {@link Workload} nests, such as {@code limit}. */
    private record Group<G>(String name, Function<Workload, G> read) {

        <T extends @Nullable Object> Key<T> key(String key, Function<G, @Nullable T> value, T builtIn) {
            return new Key<>(name + "." + key, workload -> value.apply(read.apply(workload)), builtIn);
        }
    }
}
