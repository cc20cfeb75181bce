package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.saturation.SamplerSettings;
import dev.dbbulkhead.saturation.SaturationLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
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

    /** Connections borrowed from the gates' pools outside every gate: how they are noticed and answered. */
    private final Ungated ungated = new Ungated();

    /** Admission where connections are taken: which workload each unit of work belongs to, by where it comes from. */
    private final Work work = new Work();

    /** One deadline for all the database operations of an HTTP request, fixed when it arrives. */
    private final RequestDeadline requestDeadline = new RequestDeadline();

    /** What an HTTP request tells the gates of its operations: their criticality and their key (tenant). */
    private final RequestClass requestClass = new RequestClass();

    /** What the dbbulkheads actuator endpoint shows. */
    private final Endpoint endpoint = new Endpoint();

    /** The database's own signals of saturation, read from the server of the primary data source. */
    private final Database database = new Database();

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

    public Ungated getUngated() {
        return ungated;
    }

    public Work getWork() {
        return work;
    }

    public RequestDeadline getRequestDeadline() {
        return requestDeadline;
    }

    public RequestClass getRequestClass() {
        return requestClass;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public Database getDatabase() {
        return database;
    }

    /** The database's own signals of saturation, read from the server of the primary data source. */
    public static class Database {

        /** How the database's signals are sampled. */
        private final Signals signals = new Signals();

        public Signals getSignals() {
            return signals;
        }
    }

    /**
     * A sampler that reads, on a session of its own (one more connection per instance), what the server's sessions of
     * the database wait for, its oldest lock wait and its commit, rollback and deadlock counts. PostgreSQL only.
     */
    public static class Signals {

        /** Whether to sample the database's signals. */
        private boolean enabled;

        /** The time from the end of one sample to the start of the next; from 100ms to 1h. */
        private Duration interval = SamplerSettings.DEFAULT_INTERVAL;

        /** The longest a sample may take before the server ends it; above 0 and at most the interval. */
        private Duration queryTimeout = SamplerSettings.DEFAULT_QUERY_TIMEOUT;

        /** The database server's processors, which PostgreSQL does not report; from 1 to 4096. Default: not known. */
        private @Nullable Integer serverCpus;

        /**
         * How far back the samples behind a recommended B reach (limit.database=recommend): it shows their median,
         * moved once it leaves their middle half; from 10s to 1h.
         */
        private Duration recommendationWindow = SaturationLimits.DEFAULT_RECOMMENDATION_WINDOW;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getQueryTimeout() {
            return queryTimeout;
        }

        public void setQueryTimeout(Duration queryTimeout) {
            this.queryTimeout = queryTimeout;
        }

        public @Nullable Integer getServerCpus() {
            return serverCpus;
        }

        public void setServerCpus(@Nullable Integer serverCpus) {
            this.serverCpus = serverCpus;
        }

        public Duration getRecommendationWindow() {
            return recommendationWindow;
        }

        public void setRecommendationWindow(Duration recommendationWindow) {
            this.recommendationWindow = recommendationWindow;
        }
    }

    /** What the dbbulkheads actuator endpoint shows. */
    public static class Endpoint {

        /**
         * How the keys (tenants) of fair shares are shown: hashed (sha256: and 16 hex digits of the key's SHA-256) or
         * raw.
         */
        private ShowKeys showKeys = ShowKeys.HASHED;

        public ShowKeys getShowKeys() {
            return showKeys;
        }

        public void setShowKeys(ShowKeys showKeys) {
            this.showKeys = showKeys;
        }
    }

    /** How the endpoint shows keys. */
    public enum ShowKeys {

        /** sha256: and the first 16 hex digits of the SHA-256 of the key: told apart and found, not read. */
        HASHED,

        /** As operations carry them. */
        RAW
    }

    /**
     * Where an HTTP request's operations get their class, for the workloads with criticality reserves or fair shares:
     * a header naming the criticality, a header carrying the key. Nothing is read by default.
     */
    public static class RequestClass {

        /** Header whose value, critical, default or sheddable (any case), is the criticality of the request's operations. */
        private @Nullable String criticalityHeader;

        /** Header whose value is the key (tenant) of the request's operations, held to fair shares. */
        private @Nullable String keyHeader;

        /**
         * Whether the key of a request's operations is the name of its authenticated principal, and nothing a client
         * sends; an anonymous request has no key. Cannot be set with key-header.
         */
        private boolean keyFromPrincipal;

        public @Nullable String getCriticalityHeader() {
            return criticalityHeader;
        }

        public void setCriticalityHeader(@Nullable String criticalityHeader) {
            this.criticalityHeader = criticalityHeader;
        }

        public @Nullable String getKeyHeader() {
            return keyHeader;
        }

        public void setKeyHeader(@Nullable String keyHeader) {
            this.keyHeader = keyHeader;
        }

        public boolean isKeyFromPrincipal() {
            return keyFromPrincipal;
        }

        public void setKeyFromPrincipal(boolean keyFromPrincipal) {
            this.keyFromPrincipal = keyFromPrincipal;
        }
    }

    /** How a header the caller sends gives its budget. */
    public enum TimeoutHeaderFormat {
        /** gRPC's grpc-timeout: 1 to 8 digits and a unit, H, M, S, m (milliseconds), u or n, such as 250m. */
        GRPC_TIMEOUT,
        /** A plain count of milliseconds, as Envoy's x-envoy-expected-rq-timeout-ms. */
        MILLISECONDS
    }

    /**
     * One deadline for every database operation of an HTTP request: from the caller's header, or the application's
     * budget for the request's path, whichever is shorter; each operation then gets the least of what is left, its
     * workload's deadline and its own. Nothing is set by default: requests have no deadline.
     */
    public static class RequestDeadline {

        /** Headers that carry the caller's budget, by name, with their format: grpc-timeout or milliseconds. */
        private Map<String, TimeoutHeaderFormat> headers = new LinkedHashMap<>();

        /** The budget of a request whose path no paths entry matches; none by default. */
        private @Nullable Duration budget;

        /** Budgets by path pattern (Spring's PathPattern syntax), the first that matches a request's path winning. */
        private List<PathBudget> paths = new ArrayList<>();

        public Map<String, TimeoutHeaderFormat> getHeaders() {
            return headers;
        }

        public void setHeaders(Map<String, TimeoutHeaderFormat> headers) {
            this.headers = headers;
        }

        public @Nullable Duration getBudget() {
            return budget;
        }

        public void setBudget(@Nullable Duration budget) {
            this.budget = budget;
        }

        public List<PathBudget> getPaths() {
            return paths;
        }

        public void setPaths(List<PathBudget> paths) {
            this.paths = paths;
        }
    }

    /** The budget of the requests whose path matches a pattern. */
    public static class PathBudget {

        /** A path pattern, such as /reports/** (Spring's PathPattern syntax). */
        private @Nullable String pattern;

        /** The budget of a request whose path matches. */
        private @Nullable Duration budget;

        public @Nullable String getPattern() {
            return pattern;
        }

        public void setPattern(@Nullable String pattern) {
            this.pattern = pattern;
        }

        public @Nullable Duration getBudget() {
            return budget;
        }

        public void setBudget(@Nullable Duration budget) {
            this.budget = budget;
        }
    }

    /** What a budget finding at start-up does. */
    public enum BudgetMode {
        /** Log each finding as a warning and start. */
        WARN,
        /** Fail start-up with a report of every finding. */
        FAIL
    }

    /** How a workload's max-concurrent is chosen. */
    public enum LimitMode {
        /** Max-concurrent as configured, changed only by a resize. */
        FIXED,
        /** Learnt from how long admitted operations hold their connections, within limit.min-concurrent and limit.max-concurrent. */
        ADAPTIVE
    }

    /** What the database's saturation does to a workload's B. */
    public enum DatabaseLimitMode {
        /** Nothing. */
        OFF,
        /** Caps it: lowered while the database is saturated or its locks contend, raised back while it is healthy. */
        STEER,
        /** Shows the B each sample's evidence points to; B stays as it is. */
        RECOMMEND
    }

    /** What a connection borrowed outside every gate does. */
    public enum UngatedMode {
        /** Count it, and log a warning once per call site. */
        WARN,
        /** Refuse it with UngatedConnectionException, so that a test suite fails on it; counted and logged as well. */
        FAIL,
        /** Watch no pool. */
        OFF
    }

    /**
     * Connections borrowed outside every gate from the pools the gates admit to: the primary DataSource and each one
     * a workload names with data-source.
     */
    public static class Ungated {

        /** Warn: count and log each call site once. Fail: refuse the connection as well (for test suites). Off: watch nothing. */
        private UngatedMode mode = UngatedMode.WARN;

        /** Callers that run outside the gates by design, besides the recognised infrastructure: package or class names, such as com.example.batch or com.example.CacheWarmer. */
        private List<String> allowedCallers = new ArrayList<>();

        /** Distinct call sites kept per pool; the borrows of further ones are counted together. 1 to 10000. */
        private int maxCallSites = DetectionSettings.DEFAULT_CALL_SITES;

        /** The application's own packages, besides the package of its @SpringBootApplication class: a borrow's call site is its nearest frame in one of them. Package names, such as com.example.shop. */
        private List<String> applicationPackages = new ArrayList<>();

        public UngatedMode getMode() {
            return mode;
        }

        public void setMode(UngatedMode mode) {
            this.mode = mode;
        }

        public List<String> getAllowedCallers() {
            return allowedCallers;
        }

        public void setAllowedCallers(List<String> allowedCallers) {
            this.allowedCallers = allowedCallers;
        }

        public int getMaxCallSites() {
            return maxCallSites;
        }

        public void setMaxCallSites(int maxCallSites) {
            this.maxCallSites = maxCallSites;
        }

        public List<String> getApplicationPackages() {
            return applicationPackages;
        }

        public void setApplicationPackages(List<String> applicationPackages) {
            this.applicationPackages = applicationPackages;
        }
    }

    /**
     * Admission where connections are taken: with a default workload, every connection of a watched pool taken outside
     * an admitted operation is admitted first, by the workload of the unit of work taking it.
     */
    public static class Work {

        /** The workload of every unit of work no rule names. Setting it turns admission where connections are taken on: every connection of the gates' pools then passes a gate. */
        private @Nullable String defaultWorkload;

        /** Rules that name the workload of a unit of work by where it comes from, tried in order; the first that matches decides. */
        private List<WorkRule> rules = new ArrayList<>();

        public @Nullable String getDefaultWorkload() {
            return defaultWorkload;
        }

        public void setDefaultWorkload(@Nullable String defaultWorkload) {
            this.defaultWorkload = defaultWorkload;
        }

        public List<WorkRule> getRules() {
            return rules;
        }

        public void setRules(List<WorkRule> rules) {
            this.rules = rules;
        }
    }

    /** One rule: the workload, and exactly one of where the work comes from. */
    public static class WorkRule {

        /** The workload of the work the rule matches. */
        private @Nullable String workload;

        /** HTTP requests: a method and a path pattern (GET /owners/**), or a path pattern alone for every method. */
        private @Nullable String http;

        /** Scheduled methods: * for every one, or the package or class that declares them. */
        private @Nullable String scheduled;

        /** Work whose stack holds a frame of this package or class. */
        private @Nullable String caller;

        /** Work on the threads of this TaskExecutor or TaskScheduler bean (@Async methods, tasks): its bean name. */
        private @Nullable String executor;

        /** Message listener methods (@KafkaListener, @RabbitListener, @JmsListener, a MessageListener): * for every one, or the package or class that declares them. */
        private @Nullable String listener;

        /** Quartz jobs: * for every one, or the package or class of the job. */
        private @Nullable String quartz;

        /** Spring Batch steps' chunks and tasklets: * for every step, a job's name for its steps, or job.step for one step. */
        private @Nullable String batch;

        public @Nullable String getListener() {
            return listener;
        }

        public void setListener(@Nullable String listener) {
            this.listener = listener;
        }

        public @Nullable String getQuartz() {
            return quartz;
        }

        public void setQuartz(@Nullable String quartz) {
            this.quartz = quartz;
        }

        public @Nullable String getBatch() {
            return batch;
        }

        public void setBatch(@Nullable String batch) {
            this.batch = batch;
        }

        public @Nullable String getExecutor() {
            return executor;
        }

        public void setExecutor(@Nullable String executor) {
            this.executor = executor;
        }

        public @Nullable String getWorkload() {
            return workload;
        }

        public void setWorkload(@Nullable String workload) {
            this.workload = workload;
        }

        public @Nullable String getHttp() {
            return http;
        }

        public void setHttp(@Nullable String http) {
            this.http = http;
        }

        public @Nullable String getScheduled() {
            return scheduled;
        }

        public void setScheduled(@Nullable String scheduled) {
            this.scheduled = scheduled;
        }

        public @Nullable String getCaller() {
            return caller;
        }

        public void setCaller(@Nullable String caller) {
            this.caller = caller;
        }
    }

    /** What an operation that finds its workload full does. */
    public enum WhenFull {

        /** It is refused at once ({@code ADMISSION_FULL}). */
        REFUSE,

        /** It waits for a place, within the workload's queue wait. */
        WAIT
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
        private @Nullable Integer maxInstances;

        /** Connections other clients (batch jobs, operators, other services) may hold; at least 0. */
        private int otherConnections;

        /** Who divides the connection budget among the running instances: none (each keeps its pool) or postgres. */
        private FleetCoordination coordination = FleetCoordination.NONE;

        /** Connections all coordinated instances may use together; at least 1. Default: max_connections − reserved − other-connections. */
        private @Nullable Integer connectionBudget;

        /** How often an instance renews its lease and settles its share (in a fleet of more than five instances, a settled one renews every so many heartbeats as there are instances, and at the next heartbeat after an announced change); positive. */
        private Duration heartbeat = FleetSettings.DEFAULT_HEARTBEAT;

        /** How long a lease lasts unrenewed: a dead instance's share returns after it (after as many times it as there are instances, in a fleet of more than five); at least two heartbeats. */
        private Duration leaseTtl = FleetSettings.DEFAULT_LEASE_TTL;

        /** This instance's weight in the split of the budget; at least 1. */
        private int weight = FleetSettings.DEFAULT_WEIGHT;

        /** Connections an instance keeps without a lease (before its first grant, and when its lease lapsed); 1 to the pool's maximum size, and at most connection-budget when that is set. Default: one per coordinated workload. */
        private @Nullable Integer floor;

        /** Table of the leases, schema-qualified or else in the coordinator's current schema; created on first use. */
        private String table = PostgresFleetCoordinator.DEFAULT_TABLE;

        /** What the instances' shares split: the whole connection budget, or a total that follows the database's signals within it (needs db.bulkhead.database.signals.enabled=true). */
        private FleetTotal total = FleetTotal.BUDGET;

        public @Nullable Integer getMaxInstances() {
            return maxInstances;
        }

        public void setMaxInstances(@Nullable Integer maxInstances) {
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

        public @Nullable Integer getConnectionBudget() {
            return connectionBudget;
        }

        public void setConnectionBudget(@Nullable Integer connectionBudget) {
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

        public @Nullable Integer getFloor() {
            return floor;
        }

        public void setFloor(@Nullable Integer floor) {
            this.floor = floor;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public FleetTotal getTotal() {
            return total;
        }

        public void setTotal(FleetTotal total) {
            this.total = total;
        }
    }

    /** Who divides the fleet's connection budget among the running instances. */
    public enum FleetCoordination {
        /** Nobody: each instance keeps its configured pool and gates (the start-up check still applies). */
        NONE,
        /** Leases in a table of the shared PostgreSQL. */
        POSTGRES
    }

    /** What the coordinated instances' shares split. */
    public enum FleetTotal {
        /** The whole connection budget. */
        BUDGET,
        /**
         * A total within the budget that follows the database's signals, set once a heartbeat by the instance that
         * renews: lowered while the database is saturated or its locks contended, raised while it is healthy and the
         * instances use all of it.
         */
        DATABASE
    }

    /** The settings of one workload; an unset (null) key falls back to the defaults. */
    public static class Workload {

        /** Operations that may run at once, from requesting the connection to its cleanup; 1 to 2147483647. */
        private @Nullable Integer maxConcurrent;

        /** What an operation that finds the workload full does: refuse (the default) answers at once; wait waits for a place within queue-wait, for background work (jobs, tasks, batch chunks) that should wait its turn rather than be lost. A waiting workload has no max-queued. */
        private @Nullable WhenFull whenFull;

        /** Operations admitted beyond max-concurrent that wait for their turn to run; 0 to 2147483647. */
        private @Nullable Integer maxQueued;

        /** Longest an admitted operation waits for its turn to run before it is refused; zero or more. */
        private @Nullable Duration queueWait;

        /** Whether rejections carry a stack trace; filling it in is costly under overload. */
        private @Nullable Boolean captureStackTrace;

        /** Bean name of the DataSource; when set alone, a transaction manager is built for it. Default: the primary transaction manager. */
        private @Nullable String dataSource;

        /** Bean name of the PlatformTransactionManager that runs the admitted transactions. Default: the primary one. */
        private @Nullable String transactionManager;

        /** PostgreSQL statement_timeout of every statement in the admitted transaction (SET LOCAL), whole milliseconds. */
        private @Nullable Duration statementTimeout;

        /** PostgreSQL lock_timeout of every lock wait in the admitted transaction (SET LOCAL), whole milliseconds. */
        private @Nullable Duration lockTimeout;

        /** Budget of the whole operation, from entering the gate to the transaction's end, whole milliseconds. */
        private @Nullable Duration deadline;

        /** The transaction that runs inside the gate. */
        private final Transaction transaction = new Transaction();

        /** Retry-After of the HTTP 503 answering a rejection, sent in whole seconds (rounded up); positive. */
        private @Nullable Duration retryAfter;

        /** Most added at random to each Retry-After, so that refused clients do not return together; whole seconds (rounded up), 0s to 1d. Default: retry-after itself. */
        private @Nullable Duration retryAfterJitter;

        /** How max-concurrent is chosen: fixed, or learnt from how long operations hold their connections. */
        private final Limit limit = new Limit();

        /** How the operations waiting for their turn are served. */
        private final Queue queue = new Queue();

        /** How failed operations are tried again, and the budget that bounds the retries. */
        private final Retry retry = new Retry();

        /** Places lent to and borrowed from the other workloads of the same DataSource. */
        private final Lending lending = new Lending();

        /** Places held back for more critical work, and the order of the waiting operations. */
        private final CriticalityReserves criticality = new CriticalityReserves();

        /** Fair shares of the workload's places between the keys (tenants) of its operations. */
        private final FairShare fairShare = new FairShare();

        public @Nullable Integer getMaxConcurrent() {
            return maxConcurrent;
        }

        public void setMaxConcurrent(@Nullable Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }

        public @Nullable Integer getMaxQueued() {
            return maxQueued;
        }

        public void setMaxQueued(@Nullable Integer maxQueued) {
            this.maxQueued = maxQueued;
        }

        public @Nullable WhenFull getWhenFull() {
            return whenFull;
        }

        public void setWhenFull(@Nullable WhenFull whenFull) {
            this.whenFull = whenFull;
        }

        public @Nullable Duration getQueueWait() {
            return queueWait;
        }

        public void setQueueWait(@Nullable Duration queueWait) {
            this.queueWait = queueWait;
        }

        public @Nullable Boolean getCaptureStackTrace() {
            return captureStackTrace;
        }

        public void setCaptureStackTrace(@Nullable Boolean captureStackTrace) {
            this.captureStackTrace = captureStackTrace;
        }

        public @Nullable String getDataSource() {
            return dataSource;
        }

        public void setDataSource(@Nullable String dataSource) {
            this.dataSource = dataSource;
        }

        public @Nullable String getTransactionManager() {
            return transactionManager;
        }

        public void setTransactionManager(@Nullable String transactionManager) {
            this.transactionManager = transactionManager;
        }

        public @Nullable Duration getStatementTimeout() {
            return statementTimeout;
        }

        public void setStatementTimeout(@Nullable Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
        }

        public @Nullable Duration getLockTimeout() {
            return lockTimeout;
        }

        public void setLockTimeout(@Nullable Duration lockTimeout) {
            this.lockTimeout = lockTimeout;
        }

        public @Nullable Duration getDeadline() {
            return deadline;
        }

        public void setDeadline(@Nullable Duration deadline) {
            this.deadline = deadline;
        }

        public Transaction getTransaction() {
            return transaction;
        }

        public @Nullable Duration getRetryAfter() {
            return retryAfter;
        }

        public void setRetryAfter(@Nullable Duration retryAfter) {
            this.retryAfter = retryAfter;
        }

        public @Nullable Duration getRetryAfterJitter() {
            return retryAfterJitter;
        }

        public void setRetryAfterJitter(@Nullable Duration retryAfterJitter) {
            this.retryAfterJitter = retryAfterJitter;
        }

        public Limit getLimit() {
            return limit;
        }

        public Queue getQueue() {
            return queue;
        }

        public Retry getRetry() {
            return retry;
        }

        public Lending getLending() {
            return lending;
        }

        public CriticalityReserves getCriticality() {
            return criticality;
        }

        public FairShare getFairShare() {
            return fairShare;
        }
    }

    /** How a workload shares places with the other workloads of its DataSource; an unset (null) key falls back to the defaults. */
    public static class Lending {

        /** Most operations run beyond max-concurrent on places the other workloads of the same DataSource leave unused; 0 (none) to 1000000. */
        private @Nullable Integer borrow;

        /** Whether the places of this workload it leaves unused may be borrowed by the other workloads of its DataSource; it takes them back before any new borrow. */
        private @Nullable Boolean lend;

        public @Nullable Integer getBorrow() {
            return borrow;
        }

        public void setBorrow(@Nullable Integer borrow) {
            this.borrow = borrow;
        }

        public @Nullable Boolean getLend() {
            return lend;
        }

        public void setLend(@Nullable Boolean lend) {
            this.lend = lend;
        }
    }

    /**
     * The places of a workload held back for more critical work, and whether the operations of requests in progress
     * wait first; an unset (null) key falls back to the defaults.
     */
    public static class CriticalityReserves {

        /** Share of max-concurrent + max-queued only critical operations may take; at least 0 and below 1. */
        private @Nullable Double criticalReserve;

        /** Share of max-concurrent + max-queued sheddable operations may not take; at least critical-reserve and below 1. Default: critical-reserve. */
        private @Nullable Double sheddableReserve;

        /** Whether a waiting operation of a request that already had one admitted gets the next place before new requests' operations of its criticality, within a bound that keeps those from starving. Default: true when db.bulkhead.work.default-workload is set, else false. */
        private @Nullable Boolean inProgressFirst;

        public @Nullable Double getCriticalReserve() {
            return criticalReserve;
        }

        public void setCriticalReserve(@Nullable Double criticalReserve) {
            this.criticalReserve = criticalReserve;
        }

        public @Nullable Double getSheddableReserve() {
            return sheddableReserve;
        }

        public void setSheddableReserve(@Nullable Double sheddableReserve) {
            this.sheddableReserve = sheddableReserve;
        }

        public @Nullable Boolean getInProgressFirst() {
            return inProgressFirst;
        }

        public void setInProgressFirst(@Nullable Boolean inProgressFirst) {
            this.inProgressFirst = inProgressFirst;
        }
    }

    /** Fair shares between the keys of a workload's operations; an unset (null) key falls back to the defaults. */
    public static class FairShare {

        /** Whether the next free place goes to the key (tenant) with the least weighted recent use, so that each gets its weighted share while others wait and any share left idle is used by the others. */
        private @Nullable Boolean enabled;

        /** How many keys without waiting operations the gate remembers the recent use of, a power of two from 1 to 65536; memory is fixed whatever keys arrive. */
        private @Nullable Integer keySlots;

        /** Weights of keys by key, 1 to 1000; a key not listed weighs 1. */
        private @Nullable Map<String, Integer> weights;

        /** Keys with meters of their own, the busiest; the others are counted together as key=other. 0 to 100. */
        private @Nullable Integer meteredKeys;

        /** The key operations without one are held to a share under, as one flow; 1 to 64 characters. */
        private @Nullable String keylessKey;

        /** The most operations of one key (tenant) running at once; an operation of a key at its cap waits, in its place in the order, while other keys take the free places. At least 1; unset (or 0) for no cap. Needs fair-share.enabled. */
        private @Nullable Integer maxRunningPerKey;

        public @Nullable Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable Integer getKeySlots() {
            return keySlots;
        }

        public void setKeySlots(@Nullable Integer keySlots) {
            this.keySlots = keySlots;
        }

        public @Nullable Map<String, Integer> getWeights() {
            return weights;
        }

        public void setWeights(@Nullable Map<String, Integer> weights) {
            this.weights = weights;
        }

        public @Nullable Integer getMeteredKeys() {
            return meteredKeys;
        }

        public void setMeteredKeys(@Nullable Integer meteredKeys) {
            this.meteredKeys = meteredKeys;
        }

        public @Nullable String getKeylessKey() {
            return keylessKey;
        }

        public void setKeylessKey(@Nullable String keylessKey) {
            this.keylessKey = keylessKey;
        }

        public @Nullable Integer getMaxRunningPerKey() {
            return maxRunningPerKey;
        }

        public void setMaxRunningPerKey(@Nullable Integer maxRunningPerKey) {
            this.maxRunningPerKey = maxRunningPerKey;
        }
    }

    /** How a workload's failed operations are tried again; an unset (null) key falls back to the defaults. */
    public static class Retry {

        /** Attempts @DbBulkhead methods and the workload's template give each operation, the first included; 1 to 10, 1 for no retries. */
        private @Nullable Integer maxAttempts;

        /** Share of the first attempts of the window that may be retried, from 0 to 1. */
        private @Nullable Double percentCanRetry;

        /** Retries granted a second even without first attempts to pay for them; at least 0. */
        private @Nullable Integer minRetriesPerSecond;

        /** Sliding window over which first attempts and retries are counted; 1s to 1h, whole milliseconds. */
        private @Nullable Duration window;

        /** Longest backoff before the first retry, drawn at random below it and doubling for each next one; 1ms to 1h. */
        private @Nullable Duration backoffBase;

        /** Longest backoff before any retry; 1ms to 1h, at least retry.backoff-base. */
        private @Nullable Duration backoffCap;

        public @Nullable Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(@Nullable Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public @Nullable Double getPercentCanRetry() {
            return percentCanRetry;
        }

        public void setPercentCanRetry(@Nullable Double percentCanRetry) {
            this.percentCanRetry = percentCanRetry;
        }

        public @Nullable Integer getMinRetriesPerSecond() {
            return minRetriesPerSecond;
        }

        public void setMinRetriesPerSecond(@Nullable Integer minRetriesPerSecond) {
            this.minRetriesPerSecond = minRetriesPerSecond;
        }

        public @Nullable Duration getWindow() {
            return window;
        }

        public void setWindow(@Nullable Duration window) {
            this.window = window;
        }

        public @Nullable Duration getBackoffBase() {
            return backoffBase;
        }

        public void setBackoffBase(@Nullable Duration backoffBase) {
            this.backoffBase = backoffBase;
        }

        public @Nullable Duration getBackoffCap() {
            return backoffCap;
        }

        public void setBackoffCap(@Nullable Duration backoffCap) {
            this.backoffCap = backoffCap;
        }
    }

    /** How a workload's max-concurrent is chosen; an unset (null) key falls back to the defaults. */
    public static class Limit {

        /** Fixed: max-concurrent as configured. Adaptive: learnt from hold times, starting at max-concurrent. */
        private @Nullable LimitMode mode;

        /** With the adaptive limit, the fewest operations it lets run at once; with limit.database, the lowest cap. At least 1, at most max-concurrent. */
        private @Nullable Integer minConcurrent;

        /** With the adaptive limit, the most operations it lets run at once, counted by the budget check; at least max-concurrent. Default: max-concurrent. With limit.database=recommend, the most B it recommends. */
        private @Nullable Integer maxConcurrent;

        /** Off: the database's saturation does not touch B. Steer: B is capped by what the database's signals allow, lowered while it is saturated or its locks contend, raised back while it is healthy and the workload queues, never below limit.min-concurrent. Recommend: B stays as configured, and the B each sample's evidence points to is shown. Steer and recommend need db.bulkhead.database.signals.enabled=true. */
        private @Nullable DatabaseLimitMode database;

        /** With limit.database, the order in which the database's saturation lowers the workload: sheddable first, then default, then critical. */
        private @Nullable Criticality criticality;

        public @Nullable DatabaseLimitMode getDatabase() {
            return database;
        }

        public void setDatabase(@Nullable DatabaseLimitMode database) {
            this.database = database;
        }

        public @Nullable Criticality getCriticality() {
            return criticality;
        }

        public void setCriticality(@Nullable Criticality criticality) {
            this.criticality = criticality;
        }

        public @Nullable LimitMode getMode() {
            return mode;
        }

        public void setMode(@Nullable LimitMode mode) {
            this.mode = mode;
        }

        public @Nullable Integer getMinConcurrent() {
            return minConcurrent;
        }

        public void setMinConcurrent(@Nullable Integer minConcurrent) {
            this.minConcurrent = minConcurrent;
        }

        public @Nullable Integer getMaxConcurrent() {
            return maxConcurrent;
        }

        public void setMaxConcurrent(@Nullable Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }
    }

    /** How a workload's waiting operations are served; an unset (null) key falls back to the defaults. */
    public static class Queue {

        /** Fifo: arrival order, each for at most queue-wait. Codel: CoDel with adaptive LIFO, newest first and shedding while the queue stands. */
        private @Nullable QueueDiscipline discipline;

        /** With the codel discipline, the wait that every wait of an interval must exceed for the queue to stand; positive, at most queue.interval. */
        private @Nullable Duration targetDelay;

        /** With the codel discipline, how long every wait must exceed queue.target-delay before the queue stands; positive. */
        private @Nullable Duration interval;

        public @Nullable QueueDiscipline getDiscipline() {
            return discipline;
        }

        public void setDiscipline(@Nullable QueueDiscipline discipline) {
            this.discipline = discipline;
        }

        public @Nullable Duration getTargetDelay() {
            return targetDelay;
        }

        public void setTargetDelay(@Nullable Duration targetDelay) {
            this.targetDelay = targetDelay;
        }

        public @Nullable Duration getInterval() {
            return interval;
        }

        public void setInterval(@Nullable Duration interval) {
            this.interval = interval;
        }
    }

    /** The definition of the transaction each admitted operation runs in. */
    public static class Transaction {

        /** Isolation level; DEFAULT keeps the data source's. */
        private @Nullable Isolation isolation;

        /** Whether the transaction is read-only. */
        private @Nullable Boolean readOnly;

        /** Transaction timeout, whole seconds with their unit (5s, 2m), at least 1s; unset keeps the transaction manager's default. */
        private @Nullable Duration timeout;

        public @Nullable Isolation getIsolation() {
            return isolation;
        }

        public void setIsolation(@Nullable Isolation isolation) {
            this.isolation = isolation;
        }

        public @Nullable Boolean getReadOnly() {
            return readOnly;
        }

        public void setReadOnly(@Nullable Boolean readOnly) {
            this.readOnly = readOnly;
        }

        public @Nullable Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable Duration timeout) {
            this.timeout = timeout;
        }
    }
}
