package dev.dbbulkhead.transaction;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.gate.RequestDeadline;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.retry.RetryBudget;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Like Spring's {@link TransactionTemplate}, with admission first: an operation passes the workload's
 * {@link AdmissionGate}, then a transaction runs the callback inside the admitted region, and the permits
 * are released only after commit or rollback and connection cleanup have returned.
 *
 * <pre>{@code
 * Order order = ordersBulkhead.execute(status -> repository.save(newOrder));
 * }</pre>
 *
 * <p>Inside the callback, a propagation that would suspend the admitted transaction ({@code REQUIRES_NEW},
 * {@code NOT_SUPPORTED}) is refused with {@link BulkheadMisuseException} before it takes a connection.
 * Thread-safe.
 */
public class BulkheadTemplate {

    private final AdmissionGate gate;
    private final PlatformTransactionManager transactionManager;
    private final TransactionDefinition definition;
    private final SuspensionGuard suspensionGuard;
    private final TransactionTimeouts timeouts;
    private final @Nullable BoundConnectionTimeouts boundConnectionTimeouts;
    private final @Nullable DataSource dataSource;
    /** The workload's retries: how many attempts, and the budget; {@code null} when nothing of it retries. */
    private final @Nullable WorkloadRetries retries;
    /** The criticality this template's operations are told to the gate with; {@code null} leaves the thread's. */
    private final @Nullable Criticality criticality;

    /**
     * A template that also applies {@code timeouts} (PostgreSQL statement and lock timeouts, a deadline) to every
     * transaction, on the connection {@code transactionManager} binds for {@code dataSource}.
     *
     * @param gate               admits the operations
     * @param transactionManager runs the transactions
     * @param definition         isolation, read-only flag, timeout and name of the transactions; its
     *                           propagation must be {@code REQUIRED} (the gate guarantees there is no outer
     *                           transaction, so a new one always begins)
     * @param timeouts           applied to every transaction; {@link TransactionTimeouts#NONE} for none
     * @param dataSource         the data source whose connections the transactions use; required unless
     *                           {@code timeouts} is {@link TransactionTimeouts#NONE}, and worth giving anyway: budget
     *                           checks and the actuator endpoint read its pool
     * @throws IllegalArgumentException for a propagation other than {@code REQUIRED}, or timeouts without a data source
     */
    public BulkheadTemplate(AdmissionGate gate, PlatformTransactionManager transactionManager,
                            TransactionDefinition definition, TransactionTimeouts timeouts,
                            @Nullable DataSource dataSource) {
        this(gate, transactionManager, definition, timeouts, dataSource, null, null);
    }

    private BulkheadTemplate(AdmissionGate gate, PlatformTransactionManager transactionManager,
                             TransactionDefinition definition, TransactionTimeouts timeouts,
                             @Nullable DataSource dataSource, @Nullable WorkloadRetries retries,
                             @Nullable Criticality criticality) {
        this.retries = retries;
        this.criticality = criticality;
        this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
        if (!timeouts.isEmpty() && dataSource == null) {
            throw new IllegalArgumentException("Bulkhead '" + gate.workload() + "' sets " + timeouts
                    + " and so needs the data source its transactions use");
        }
        // With a data source, a request deadline shortens the transaction's timeout even without timeouts of the
        // workload's own; with timeouts the data source is there (refused above otherwise).
        this.boundConnectionTimeouts = dataSource == null ? null : new BoundConnectionTimeouts(timeouts, dataSource);
        this.dataSource = dataSource;
        this.gate = Objects.requireNonNull(gate, "gate");
        Objects.requireNonNull(transactionManager, "transactionManager");
        Objects.requireNonNull(definition, "definition");
        if (definition.getPropagationBehavior() != TransactionDefinition.PROPAGATION_REQUIRED) {
            throw new IllegalArgumentException("The transaction of bulkhead '" + gate.workload()
                    + "' must use propagation REQUIRED (a new transaction begins after admission), was "
                    + definition.getPropagationBehavior());
        }
        this.transactionManager = transactionManager;
        DefaultTransactionDefinition named = new DefaultTransactionDefinition(definition);
        if (named.getName() == null) {
            named.setName("bulkhead:" + gate.workload());
        }
        this.definition = named;
        this.suspensionGuard = new SuspensionGuard(gate.workload());
    }

    /** A template whose transactions use the default definition (REQUIRED, default isolation). */
    public BulkheadTemplate(AdmissionGate gate, PlatformTransactionManager transactionManager) {
        this(gate, transactionManager, new DefaultTransactionDefinition(), TransactionTimeouts.NONE, null);
    }

    /**
     * Admits the operation, then runs {@code action} in a new transaction and returns its result after
     * commit and connection cleanup. Both permits are released by this thread after the transaction ended,
     * however it ended.
     *
     * <p>Returns in exactly one of these ways:
     * <ul>
     *   <li>the callback's value, after commit and cleanup;</li>
     *   <li>{@link BulkheadRejectedException} when the gate refuses the operation (full, queue wait expired, or
     *       interrupted while waiting — then the interrupt status is set again); no transaction began;</li>
     *   <li>{@link BulkheadMisuseException} when the thread already holds a bulkhead permit or a transaction
     *       is already active on it; nothing was taken;</li>
     *   <li>the callback's runtime exception or error, after rollback; a failing rollback is attached to it as
     *       suppressed (where {@link TransactionTemplate} would throw the rollback failure instead);</li>
     *   <li>{@link DeadlineExceededException}, after rollback, when a statement timeout or transaction timeout
     *       ended the work (or its flush at commit) once the deadline was spent; the timeout is its cause;</li>
     *   <li>{@link DeadlineExceededException}, before any transaction began, when the deadline ended the wait for a
     *       connection of a HikariCP pool ({@link DeadlinePoolWait}); what the transaction manager threw is its
     *       cause, HikariCP's timeout in its chain;</li>
     *   <li>a {@link TransactionException} when the transaction could not begin otherwise (no connection within the
     *       pool's own timeout, say: the callback did not run);</li>
     *   <li>the exception Spring's commit threw, unchanged, when the transaction rolled back before the JDBC
     *       commit was sent — the flush failed (an {@code ObjectOptimisticLockingFailureException}, a statement or
     *       lock timeout under JPA), or a {@code beforeCommit} callback threw — or when the database refused the
     *       commit (a deferred constraint, a serialization failure): nothing was written;</li>
     *   <li>{@link CommitOutcomeUnknownException} when the JDBC commit itself failed without a verdict (connection
     *       lost, SQLState 40003): the write may have taken effect — never retry it blindly.</li>
     * </ul>
     * The transaction is flushed after the last {@code beforeCommit} callback, so that under JPA the SQL Hibernate
     * defers to the commit runs before the JDBC commit and its failures are known rollbacks; a read-only
     * transaction is not flushed.
     * An interrupt while the callback runs does not stop it; the interrupt status is left as it is.
     *
     * @param action runs synchronously and returns a fully materialised value; must not manage the transaction
     */
    public <T extends @Nullable Object> T execute(TransactionCallback<T> action) throws TransactionException {
        return execute(null, action);
    }

    /**
     * {@link #execute(TransactionCallback)} within a deadline for this call: one budget from entering the gate to
     * the end of the transaction, the smaller of {@code deadline} and the workload's own. The queue wait is taken
     * off it; a budget spent before execution starts is a {@link BulkheadRejectedException} with reason
     * {@code QUEUE_TIMEOUT} that never touches the pool; what remains bounds the wait for a connection of a watched
     * HikariCP pool ({@link DeadlinePoolWait}), becomes the transaction's timeout (Spring applies it to JDBC
     * statements) and caps PostgreSQL's {@code statement_timeout}. Returns and fails the same ways otherwise.
     *
     * @param deadline the budget of this call, positive; {@code null} for the workload's own only
     */
    public <T extends @Nullable Object> T execute(@Nullable Duration deadline, TransactionCallback<T> action)
            throws TransactionException {
        Objects.requireNonNull(action, "action");
        Criticality told = criticality;
        // Only a gate with rules reads the class: the others pay nothing for a criticality they ignore.
        if (told == null || gate.config().admissionRules().isNone()) {
            return executeAsBound(deadline, action);
        }
        OperationClass outer = OperationClass.current().orElse(OperationClass.UNCLASSIFIED);
        OperationClass operationClass = outer.key().map(key -> OperationClass.of(told, key))
                .orElseGet(() -> OperationClass.of(told));
        try (OperationClass.Scope bound = operationClass.bind()) {
            return executeAsBound(deadline, action);
        }
    }

    private <T extends @Nullable Object> T executeAsBound(@Nullable Duration deadline, TransactionCallback<T> action) {
        WorkloadRetries retrying = retries;
        if (retrying == null) {
            return attempt(deadline, action);
        }
        retrying.beforeOperation();
        if (!retrying.retriesByItself()) {
            return attempt(deadline, action);
        }
        // One budget for all the attempts: bound as the deadline of this call, the earlier of it and a request's.
        Duration budget = timeouts.deadlineWith(deadline);
        if (budget == null) {
            return retrying.run(() -> attempt(deadline, action));
        }
        try (RequestDeadline.Scope bound = RequestDeadline.in(budget).bind()) {
            return retrying.run(() -> attempt(deadline, action));
        }
    }

    private <T extends @Nullable Object> T attempt(@Nullable Duration deadline, TransactionCallback<T> action) {
        if (AdmissionGate.currentThreadHoldsBorrowPlace()) {
            return joined(action);
        }
        try (Permit permit = timeouts.admit(gate, deadline)) {
            return inTransaction(permit, action);
        }
    }

    /**
     * Runs {@code action} as part of the operation the current thread is in: a connection admitted where it was taken
     * is out, under its place, and usually an active transaction on it (a repository annotated {@code @DbBulkhead}
     * called from a {@code @Transactional} service). The operation was admitted once, where its connection was taken;
     * a second admission would wait for a place while holding one, so the action runs in the transaction there
     * ({@code REQUIRED} joins it), or in a new one on the connection the thread takes as part of its operation.
     */
    private <T extends @Nullable Object> T joined(TransactionCallback<T> action) {
        return new TransactionTemplate(transactionManager, definition).execute(action);
    }

    /**
     * What {@link TransactionTemplate#execute} does, except on a failed rollback: the callback's exception
     * stays the one thrown and the rollback failure is attached to it as suppressed, so the cause of the
     * failure is never replaced by a symptom of the broken connection.
     */
    private <T extends @Nullable Object> T inTransaction(Permit permit, TransactionCallback<T> action) {
        TransactionStatus status;
        try {
            status = transactionManager.getTransaction(definition);
        } catch (RuntimeException noTransaction) {
            SpentDeadlines.rethrowIfPoolWaitEnded(permit, noTransaction);
            throw noTransaction;
        }
        permit.transactionBegan();
        if (definition.isReadOnly()) {
            permit.recordOnlyRead();
        }
        BoundConnectionTimeouts bound = boundConnectionTimeouts;
        if (bound != null && (!timeouts.isEmpty() || permit.remainingNanos() != Permit.NO_DEADLINE)) {
            applyTimeouts(bound, permit, status);
        }
        T result;
        try {
            TransactionSynchronizationManager.registerSynchronization(suspensionGuard);
            result = action.doInTransaction(status);
        } catch (Throwable failure) {
            rollBackAfter(failure, status);
            permit.transactionEnded(failure);
            permit.recordOutcome(ExecutionOutcome.ROLLED_BACK);
            SpentDeadlines.rethrowIfSpent(permit, failure);
            throw failure;
        }
        CommitPhase phase = CommitPhase.register(status);
        try {
            // Rolls back instead when the callback marked the transaction rollback-only.
            transactionManager.commit(status);
        } catch (Throwable commitFailure) {
            permit.transactionEnded(commitFailure);
            ExecutionOutcome outcome = phase.outcomeOf(commitFailure);
            permit.recordOutcome(outcome);
            if (outcome == ExecutionOutcome.UNKNOWN) {
                throw new CommitOutcomeUnknownException(gate.workload(), commitFailure);
            }
            if (outcome == ExecutionOutcome.ROLLED_BACK) {
                SpentDeadlines.rethrowIfSpent(permit, commitFailure);
            }
            throw commitFailure;
        }
        permit.transactionEnded(null);
        permit.recordOutcome(phase.outcome());
        return result;
    }

    /** The transaction's first statement; a failure here is a failed setup, not a rollback of work. */
    private void applyTimeouts(BoundConnectionTimeouts bound, Permit permit, TransactionStatus status) {
        try {
            bound.apply(permit);
        } catch (Throwable setupFailure) {
            rollBackAfter(setupFailure, status);
            permit.transactionEnded(setupFailure);
            throw setupFailure;
        }
    }

    private void rollBackAfter(Throwable failure, TransactionStatus status) {
        try {
            transactionManager.rollback(status);
        } catch (Throwable rollbackFailure) {
            if (rollbackFailure != failure) {
                failure.addSuppressed(rollbackFailure);
            }
        }
    }

    /** {@link #execute} for a callback without a result; returns and fails the same ways. */
    public void executeWithoutResult(Consumer<TransactionStatus> action)
            throws TransactionException {
        Objects.requireNonNull(action, "action");
        execute(status -> {
            action.accept(status);
            return null;
        });
    }

    /**
     * Changes B and Q of this workload at run time, without blocking: growing takes effect at once; shrinking never
     * waits and never interrupts running operations — new admissions obey the new limits while those drain. B is
     * requested from the gate's {@link ConcurrencyCeiling}, its one owner: a fleet share or the database's limit
     * capping it still holds.
     *
     * @throws IllegalArgumentException for a B below 1, a Q below 0, or a B + Q past {@link Integer#MAX_VALUE};
     *                                  the limits stay as they were
     * @see ConcurrencyCeiling#resize(Integer, Integer)
     */
    public void resize(int maxConcurrent, int maxQueued) {
        ConcurrencyCeiling.of(gate).resize(maxConcurrent, maxQueued);
    }

    /**
     * A template of the same workload — the same gate, so the same permits, and the same transaction manager,
     * timeouts and data source — whose transactions use {@code definition}: an operation that only reads, or needs
     * another isolation or timeout, without a workload of its own. A definition without a name gets this one's.
     *
     * <pre>{@code
     * DefaultTransactionDefinition readOnly = new DefaultTransactionDefinition();
     * readOnly.setReadOnly(true);
     * List<Order> open = ordersBulkhead.withTransactionDefinition(readOnly).execute(status -> repository.findOpen());
     * }</pre>
     *
     * @throws IllegalArgumentException for a propagation other than {@code REQUIRED}
     */
    public BulkheadTemplate withTransactionDefinition(TransactionDefinition definition) {
        Objects.requireNonNull(definition, "definition");
        DefaultTransactionDefinition named = new DefaultTransactionDefinition(definition);
        if (named.getName() == null) {
            named.setName(Objects.requireNonNull(this.definition.getName(), "named by the constructor"));
        }
        return new BulkheadTemplate(gate, transactionManager, named, timeouts, dataSource, retries, criticality);
    }

    /**
     * A template of the same workload that tries a failed operation again, up to {@code maxAttempts} attempts in all,
     * when the failure is safe to retry — a serialization failure (SQLState 40001), a deadlock (40P01), a refusal of
     * the gate other than an interrupt — and {@code budget} grants the retry: retries cannot amplify an overload
     * beyond the budget's share of first attempts. Never after {@link CommitOutcomeUnknownException}. Each retry is a
     * new admitted operation after a jittered backoff (no permit is held meanwhile), all attempts within one deadline:
     * the smaller of the workload's, the call's and the request's. The callback must be safe to run again: it runs
     * once per attempt, each time in a new transaction.
     *
     * @param budget shared by every template of the workload that retries, so that one budget bounds them all
     * @throws IllegalArgumentException for fewer than 1 attempt
     */
    public BulkheadTemplate withRetries(int maxAttempts, RetryBudget budget) {
        return withRetries(new WorkloadRetries(maxAttempts, budget));
    }

    /**
     * {@link #withRetries(int, RetryBudget)} with the attempts and budget of {@code retries}, which other retriers of
     * the workload (Spring's {@code @Retryable}, spring-retry) may ask too; with one attempt the template does not
     * retry by itself, but counts its first attempts for them once they ask.
     */
    public BulkheadTemplate withRetries(WorkloadRetries retries) {
        Objects.requireNonNull(retries, "retries");
        return new BulkheadTemplate(gate, transactionManager, definition, timeouts, dataSource, retries, criticality);
    }

    /**
     * A template of the same workload whose operations are of {@code criticality}, for a workload with criticality
     * reserves: {@link Criticality#SHEDDABLE} work (a batch, a prefetch) is refused first under contention,
     * {@link Criticality#CRITICAL} work may take the places held back for it. It wins over the criticality the
     * request gives ({@code OperationClass} bound by the request's filter); the request's key stays. A workload
     * without rules ignores it.
     *
     * <pre>{@code
     * BulkheadTemplate batch = ordersBulkhead.withCriticality(Criticality.SHEDDABLE);
     * batch.executeWithoutResult(status -> repository.archiveOlderThan(cutoff));
     * }</pre>
     */
    public BulkheadTemplate withCriticality(Criticality criticality) {
        Objects.requireNonNull(criticality, "criticality");
        return new BulkheadTemplate(gate, transactionManager, definition, timeouts, dataSource, retries, criticality);
    }

    /** The criticality this template's operations are of, when it was given one ({@link #withCriticality}). */
    public Optional<Criticality> criticality() {
        return Optional.ofNullable(criticality);
    }

    /** The workload's retries, when this template was given them. */
    public Optional<WorkloadRetries> retries() {
        return Optional.ofNullable(retries);
    }

    /** The workload name. */
    public String workload() {
        return gate.workload();
    }

    /** The gate that admits this template's operations. */
    public AdmissionGate gate() {
        return gate;
    }

    /** The PostgreSQL timeouts and the deadline applied to every transaction. */
    public TransactionTimeouts timeouts() {
        return timeouts;
    }

    /** The data source whose connections the transactions use, when it was given. */
    public Optional<DataSource> dataSource() {
        return Optional.ofNullable(dataSource);
    }

    /** The transaction manager that runs this template's transactions. */
    public PlatformTransactionManager transactionManager() {
        return transactionManager;
    }

    /** The definition of the transactions this template begins. */
    public TransactionDefinition transactionDefinition() {
        return definition;
    }

    @Override
    public String toString() {
        return "BulkheadTemplate[" + gate + "]";
    }
}
