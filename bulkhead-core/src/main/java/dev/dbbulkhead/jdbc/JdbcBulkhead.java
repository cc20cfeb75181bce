package dev.dbbulkhead.jdbc;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.Permit;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A bulkhead for plain JDBC: admits an operation through its {@link AdmissionGate}, then runs it as one
 * transaction on a connection of the {@link DataSource}. No framework needed.
 *
 * <pre>{@code
 * JdbcBulkhead orders = new JdbcBulkhead("orders", dataSource, 16, 32, Duration.ofMillis(50));
 * long id = orders.transaction(connection -> insertOrder(connection, request));
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class JdbcBulkhead {

    private final AdmissionGate gate;
    private final DataSource dataSource;
    private final TransactionTimeouts timeouts;

    /**
     * @param workload      the workload name, as reported in rejections
     * @param dataSource    where connections come from (usually a pool)
     * @param maxConcurrent B, at least 1
     * @param maxQueued     Q, at least 0
     * @param queueWait     the longest an admitted operation waits for an execution permit; zero or positive
     * @throws IllegalArgumentException for values out of range, naming the value
     */
    public JdbcBulkhead(String workload, DataSource dataSource, int maxConcurrent, int maxQueued,
                        Duration queueWait) {
        this(new AdmissionGate(workload, GateConfig.builder()
                .maxConcurrent(maxConcurrent)
                .maxQueued(maxQueued)
                .queueWait(queueWait)
                .build()), dataSource);
    }

    /** A bulkhead that admits through {@code gate} and takes connections from {@code dataSource}. */
    public JdbcBulkhead(AdmissionGate gate, DataSource dataSource) {
        this(gate, dataSource, TransactionTimeouts.NONE);
    }

    /**
     * A bulkhead that admits through {@code gate}, takes connections from {@code dataSource} and applies
     * {@code timeouts} (PostgreSQL statement and lock timeouts, a deadline) to every transaction.
     */
    public JdbcBulkhead(AdmissionGate gate, DataSource dataSource, TransactionTimeouts timeouts) {
        this.gate = Objects.requireNonNull(gate, "gate");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
    }

    /**
     * Admits the operation, then runs {@code work} in one transaction: takes a connection, turns auto-commit
     * off, runs the work, commits and closes the connection — and only then returns the work's value.
     * Both permits are released by this thread after the connection is closed, however the call ends.
     * A connection lent with auto-commit on is handed back with it on, after a commit or a rollback alike, for
     * pools that do not reset it; only when the rollback itself failed is it left off, because turning it on
     * would commit what the rollback did not undo.
     *
     * <p>Returns in exactly one of these ways:
     * <ul>
     *   <li>the work's value, after commit and connection close;</li>
     *   <li>{@link BulkheadRejectedException} when the gate refuses the operation (full, queue wait expired,
     *       or interrupted while waiting — then the interrupt status is set again); no connection was taken;</li>
     *   <li>{@link BulkheadMisuseException} when the thread already holds a bulkhead permit or is inside an
     *       active transaction; nothing was taken;</li>
     *   <li>the pool's exception when no connection could be had; the work did not run;</li>
     *   <li>the exception of the work, of the transaction's setup, or the database's refusal of the commit (a
     *       deferred constraint, a serialization failure), after a rollback was tried; a failing rollback, restoring
     *       of auto-commit or close is attached to it as suppressed; nothing was written;</li>
     *   <li>{@link CommitOutcomeUnknownException} when the commit failed without a verdict (connection lost):
     *       the write may have taken effect — never retry it blindly;</li>
     *   <li>the exception of the connection's close (or of restoring auto-commit) after a successful commit:
     *       the write then took effect although the caller sees a failure — never retry writes blindly.</li>
     * </ul>
     * An interrupt while the work runs does not stop it: the operation keeps its permits until its own
     * cleanup ends, and the interrupt status is left as the driver leaves it.
     *
     * @param work the transaction's work; see {@link SqlWork} for what it must not do
     * @return the work's value
     * @throws SQLException from the pool, the work, the commit or the close, as described above
     */
    public <T extends @Nullable Object> T transaction(SqlWork<T> work) throws SQLException {
        return transaction(null, work);
    }

    /**
     * {@link #transaction(SqlWork)} within a deadline for this call: one budget from entering the gate to the
     * end of the transaction, the smaller of {@code deadline} and the bulkhead's own. The queue wait is taken
     * off it; a budget spent before execution starts is a {@link BulkheadRejectedException} with reason
     * {@code QUEUE_TIMEOUT} that never touches the pool; what remains caps PostgreSQL's
     * {@code statement_timeout} of the transaction (a statement over it fails with SQLState 57014). Returns and
     * fails the same ways otherwise.
     *
     * @param deadline the budget of this call, positive; {@code null} for the bulkhead's own only
     */
    public <T extends @Nullable Object> T transaction(@Nullable Duration deadline, SqlWork<T> work)
            throws SQLException {
        Objects.requireNonNull(work, "work");
        try (Permit permit = timeouts.admit(gate, deadline)) {
            return inTransaction(permit, work);
        }
    }

    private <T extends @Nullable Object> T inTransaction(Permit permit, SqlWork<T> work) throws SQLException {
        Connection connection = dataSource.getConnection();
        boolean autoCommitWasOn = false;
        boolean transactionOpen = false;
        T result;
        try {
            autoCommitWasOn = connection.getAutoCommit();
            if (autoCommitWasOn) {
                connection.setAutoCommit(false);
            }
            transactionOpen = true;
            permit.transactionBegan();
            timeouts.applyTo(connection, permit.remainingNanos());
            result = commit(permit, connection, work);
        } catch (Throwable failure) {
            boolean ended = !transactionOpen || rollBackAfter(failure, connection);
            permit.transactionEnded(failure);
            if (autoCommitWasOn && ended) {
                restoreAutoCommitAfter(failure, connection);
            }
            closeAfter(failure, connection);
            throw failure;
        }
        try {
            if (autoCommitWasOn) {
                // Hand the connection back as it was lent, for pools that do not reset it themselves.
                connection.setAutoCommit(true);
            }
        } catch (Throwable restoreFailure) {
            closeAfter(restoreFailure, connection);
            throw restoreFailure;
        }
        connection.close();
        return result;
    }

    /**
     * Runs the work and commits, recording the outcome; on failure the caller rolls back. A failure of the timeouts'
     * {@code SET LOCAL} before it is a failed setup and keeps the outcome {@link ExecutionOutcome#FAILED}.
     */
    private <T extends @Nullable Object> T commit(Permit permit, Connection connection, SqlWork<T> work)
            throws SQLException {
        T result;
        try {
            result = work.run(connection);
        } catch (Throwable failure) {
            permit.recordOutcome(ExecutionOutcome.ROLLED_BACK);
            throw failure;
        }
        try {
            connection.commit();
        } catch (Throwable commitFailure) {
            if (CommitFailures.isKnownRollback(commitFailure)) {
                permit.recordOutcome(ExecutionOutcome.ROLLED_BACK);
                throw commitFailure;
            }
            permit.recordOutcome(ExecutionOutcome.UNKNOWN);
            throw new CommitOutcomeUnknownException(gate.workload(), commitFailure);
        }
        permit.recordOutcome(ExecutionOutcome.COMMITTED);
        permit.transactionEnded(null);
        return result;
    }

    /** @return whether the rollback succeeded, so that no transaction is open on the connection any more */
    private static boolean rollBackAfter(Throwable failure, Connection connection) {
        try {
            connection.rollback();
            return true;
        } catch (Throwable rollbackFailure) {
            suppress(failure, rollbackFailure);
            return false;
        }
    }

    /**
     * On a failure path, hands the connection back with auto-commit on, as it was lent, for pools that do not reset
     * it themselves: best effort, a failure is attached to {@code failure}. Called only once no transaction is open
     * (turning auto-commit on commits an open one), so a connection whose rollback failed is closed as it is.
     */
    private static void restoreAutoCommitAfter(Throwable failure, Connection connection) {
        try {
            connection.setAutoCommit(true);
        } catch (Throwable restoreFailure) {
            suppress(failure, restoreFailure);
        }
    }

    private static void closeAfter(Throwable failure, Connection connection) {
        try {
            connection.close();
        } catch (Throwable closeFailure) {
            suppress(failure, closeFailure);
        }
    }

    private static void suppress(Throwable failure, Throwable cleanupFailure) {
        // A driver may rethrow the very exception it threw before; a throwable cannot suppress itself.
        if (cleanupFailure != failure) {
            failure.addSuppressed(cleanupFailure);
        }
    }

    /** The gate that admits this bulkhead's operations. */
    public AdmissionGate gate() {
        return gate;
    }

    @Override
    public String toString() {
        return "JdbcBulkhead[" + gate + "]";
    }
}
