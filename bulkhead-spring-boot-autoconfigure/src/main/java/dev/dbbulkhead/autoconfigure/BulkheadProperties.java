package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.gate.QueueDiscipline;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.core.Ordered;
import org.springframework.transaction.annotation.Isolation;

/**
 * The bulkheads of an application: one per entry of {@code db.bulkhead.workloads}, each key falling back to
 * {@code db.bulkhead.defaults}, then to the built-in defaults of {@link dev.dbbulkhead.gate.GateConfig}.
 */
@ConfigurationProperties(BulkheadProperties.PREFIX)
public class BulkheadProperties {

    /** The prefix of every db-bulkhead property. */
    public static final String PREFIX = "db.bulkhead";

    /**
     * The default {@link #getAdvisorOrder() advisor order}: last, inside every other advisor of the bean, so that
     * authorisation, validation and cache hits answer without a permit and a retry passes the gate again.
     */
    public static final int DEFAULT_ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE;

    /**
     * Whether to create the bulkheads and admit @DbBulkhead methods through them. When false, @DbBulkhead methods
     * still run in one transaction each, without a gate.
     */
    private boolean enabled = true;

    /**
     * Where admission runs among a bean's other advisors, ordered as Spring orders them: lower runs first, outside.
     * Admission runs inside every advisor whose order is at most this value (by default all: @PreAuthorize,
     * @Validated, @Cacheable and @Retryable run before it).
     */
    private int advisorOrder = DEFAULT_ADVISOR_ORDER;

    /** Settings every workload inherits unless it sets its own. */
    private final Workload defaults = new Workload();

    /** The workloads by name; each gets a BulkheadTemplate bean of that name. */
    private final Map<String, Workload> workloads = new LinkedHashMap<>();

    /** Start-up checks of the gates' budgets against their pools. */
    private final Budget budget = new Budget();

    /** The fleet's connections: checked against the database's limit at start-up, and optionally coordinated. */
    private final Fleet fleet = new Fleet();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getAdvisorOrder() {
        return advisorOrder;
    }

    public void setAdvisorOrder(int advisorOrder) {
        this.advisorOrder = advisorOrder;
    }

    public Workload getDefaults() {
        return defaults;
    }

    public Map<String, Workload> getWorkloads() {
        return workloads;
    }

    public Budget getBudget() {
        return budget;
    }

    public Fleet getFleet() {
        return fleet;
    }

    /** What a budget finding at start-up does. */
    public enum BudgetMode {
        /** Log each finding as a warning and start. */
        WARN,
        /** Fail start-up with a report of every finding. */
        FAIL
    }

    /** How a workload's B is chosen. */
    public enum LimitMode {
        /** B is max-concurrent, changed only by a resize. */
        FIXED,
        /** B is learnt from how long admitted operations hold their permits, within limit.min-concurrent and limit.max-concurrent. */
        ADAPTIVE
    }

    /** Start-up checks of the gates' budgets against their pools. */
    public static class Budget {

        /** Whether a finding is logged as a warning or fails start-up. */
        private BudgetMode mode = BudgetMode.WARN;

        public BudgetMode getMode() {
            return mode;
        }

        public void setMode(BudgetMode mode) {
            this.mode = mode;
        }
    }

    /**
     * The fleet of instances sharing one database; unset max-instances skips the fleet check, and coordination
     * (off by default) divides a connection budget among the running instances.
     */
    public static class Fleet {

        /** Peak number of instances at once, autoscaling and rolling-deploy overlap included; at least 1. */
        private Integer maxInstances;

        /** Connections other clients (batch jobs, operators, other services) may hold; at least 0. */
        private int otherConnections;

        /** Who divides the connection budget among the running instances: none (each keeps its pool) or postgres. */
        private FleetCoordination coordination = FleetCoordination.NONE;

        /** Connections all coordinated instances may use together; at least 1. Default: max_connections − reserved − other-connections. */
        private Integer connectionBudget;

        /** How often an instance renews its lease and settles its share; positive. */
        private Duration heartbeat = FleetSettings.DEFAULT_HEARTBEAT;

        /** How long a lease lasts unrenewed: a dead instance's share returns after it; at least two heartbeats. */
        private Duration leaseTtl = FleetSettings.DEFAULT_LEASE_TTL;

        /** This instance's weight in the split of the budget; at least 1. */
        private int weight = FleetSettings.DEFAULT_WEIGHT;

        /** Connections an instance keeps without a lease (at start, and when its lease lapsed); at least 1. Default: one per coordinated workload. */
        private Integer floor;

        /** Table of the leases, optionally schema-qualified; created on first use. */
        private String table = PostgresFleetCoordinator.DEFAULT_TABLE;

        public Integer getMaxInstances() {
            return maxInstances;
        }

        public void setMaxInstances(Integer maxInstances) {
            this.maxInstances = maxInstances;
        }

        public int getOtherConnections() {
            return otherConnections;
        }

        public void setOtherConnections(int otherConnections) {
            this.otherConnections = otherConnections;
        }

        public FleetCoordination getCoordination() {
            return coordination;
        }

        public void setCoordination(FleetCoordination coordination) {
            this.coordination = coordination;
        }

        public Integer getConnectionBudget() {
            return connectionBudget;
        }

        public void setConnectionBudget(Integer connectionBudget) {
            this.connectionBudget = connectionBudget;
        }

        public Duration getHeartbeat() {
            return heartbeat;
        }

        public void setHeartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
        }

        public Duration getLeaseTtl() {
            return leaseTtl;
        }

        public void setLeaseTtl(Duration leaseTtl) {
            this.leaseTtl = leaseTtl;
        }

        public int getWeight() {
            return weight;
        }

        public void setWeight(int weight) {
            this.weight = weight;
        }

        public Integer getFloor() {
            return floor;
        }

        public void setFloor(Integer floor) {
            this.floor = floor;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }
    }

    /** Who divides the fleet's connection budget among the running instances. */
    public enum FleetCoordination {
        /** Nobody: each instance keeps its configured pool and gates (the start-up check still applies). */
        NONE,
        /** Leases in a table of the shared PostgreSQL. */
        POSTGRES
    }

    /** The settings of one workload; an unset (null) key falls back to the defaults. */
    public static class Workload {

        /** B: operations that may run at once, from requesting the connection to its cleanup; at least 1. */
        private Integer maxConcurrent;

        /** Q: operations admitted beyond B that wait for an execution permit; at least 0. */
        private Integer maxQueued;

        /** Longest an admitted operation waits for an execution permit; zero or positive. */
        private Duration queueWait;

        /** Whether rejections fill in their stack trace (costly under overload). */
        private Boolean captureStackTrace;

        /** Bean name of the DataSource; when set alone, a transaction manager is built for it. Default: the primary transaction manager. */
        private String dataSource;

        /** Bean name of the PlatformTransactionManager that runs the admitted transactions. Default: the primary one. */
        private String transactionManager;

        /** PostgreSQL statement_timeout of every statement in the admitted transaction (SET LOCAL), whole milliseconds. */
        private Duration statementTimeout;

        /** PostgreSQL lock_timeout of every lock wait in the admitted transaction (SET LOCAL), whole milliseconds. */
        private Duration lockTimeout;

        /** Budget of the whole operation, from entering the gate to the transaction's end, whole milliseconds. */
        private Duration deadline;

        /** The transaction that runs inside the gate. */
        private final Transaction transaction = new Transaction();

        /** Retry-After of the HTTP 503 answering a rejection, sent in whole seconds (rounded up); positive. */
        private Duration retryAfter;

        /** How B is chosen: fixed, or learnt from the database's hold times. */
        private final Limit limit = new Limit();

        /** How the operations waiting for an execution permit are served. */
        private final Queue queue = new Queue();

        public Integer getMaxConcurrent() {
            return maxConcurrent;
        }

        public void setMaxConcurrent(Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }

        public Integer getMaxQueued() {
            return maxQueued;
        }

        public void setMaxQueued(Integer maxQueued) {
            this.maxQueued = maxQueued;
        }

        public Duration getQueueWait() {
            return queueWait;
        }

        public void setQueueWait(Duration queueWait) {
            this.queueWait = queueWait;
        }

        public Boolean getCaptureStackTrace() {
            return captureStackTrace;
        }

        public void setCaptureStackTrace(Boolean captureStackTrace) {
            this.captureStackTrace = captureStackTrace;
        }

        public String getDataSource() {
            return dataSource;
        }

        public void setDataSource(String dataSource) {
            this.dataSource = dataSource;
        }

        public String getTransactionManager() {
            return transactionManager;
        }

        public void setTransactionManager(String transactionManager) {
            this.transactionManager = transactionManager;
        }

        public Duration getStatementTimeout() {
            return statementTimeout;
        }

        public void setStatementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
        }

        public Duration getLockTimeout() {
            return lockTimeout;
        }

        public void setLockTimeout(Duration lockTimeout) {
            this.lockTimeout = lockTimeout;
        }

        public Duration getDeadline() {
            return deadline;
        }

        public void setDeadline(Duration deadline) {
            this.deadline = deadline;
        }

        public Transaction getTransaction() {
            return transaction;
        }

        public Duration getRetryAfter() {
            return retryAfter;
        }

        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }

        public Limit getLimit() {
            return limit;
        }

        public Queue getQueue() {
            return queue;
        }
    }

    /** How a workload's B is chosen; an unset (null) key falls back to the defaults. */
    public static class Limit {

        /** Fixed B (max-concurrent), or B learnt from hold times, starting at max-concurrent. */
        private LimitMode mode;

        /** Adaptive only: the floor of the learnt B; at least 1, at most max-concurrent. */
        private Integer minConcurrent;

        /** Adaptive only: the ceiling of the learnt B, counted by the budget check; at least max-concurrent. Default: max-concurrent. */
        private Integer maxConcurrent;

        public LimitMode getMode() {
            return mode;
        }

        public void setMode(LimitMode mode) {
            this.mode = mode;
        }

        public Integer getMinConcurrent() {
            return minConcurrent;
        }

        public void setMinConcurrent(Integer minConcurrent) {
            this.minConcurrent = minConcurrent;
        }

        public Integer getMaxConcurrent() {
            return maxConcurrent;
        }

        public void setMaxConcurrent(Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }
    }

    /** How a workload's waiting operations are served; an unset (null) key falls back to the defaults. */
    public static class Queue {

        /** Fifo: arrival order, each for at most queue-wait. Adaptive: newest first and shedding while the queue stands. */
        private QueueDiscipline discipline;

        /** Adaptive only: the queue stands once every wait of an interval exceeded this; positive, at most queue.interval. */
        private Duration targetDelay;

        /** Adaptive only: how long every wait must exceed queue.target-delay before the queue stands; positive. */
        private Duration interval;

        public QueueDiscipline getDiscipline() {
            return discipline;
        }

        public void setDiscipline(QueueDiscipline discipline) {
            this.discipline = discipline;
        }

        public Duration getTargetDelay() {
            return targetDelay;
        }

        public void setTargetDelay(Duration targetDelay) {
            this.targetDelay = targetDelay;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }
    }

    /** The definition of the transaction each admitted operation runs in. */
    public static class Transaction {

        /** Isolation level; DEFAULT keeps the data source's. */
        private Isolation isolation;

        /** Whether the transaction is read-only. */
        private Boolean readOnly;

        /** Transaction timeout in whole seconds, at least 1s; unset keeps the transaction manager's default. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration timeout;

        public Isolation getIsolation() {
            return isolation;
        }

        public void setIsolation(Isolation isolation) {
            this.isolation = isolation;
        }

        public Boolean getReadOnly() {
            return readOnly;
        }

        public void setReadOnly(Boolean readOnly) {
            this.readOnly = readOnly;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}
