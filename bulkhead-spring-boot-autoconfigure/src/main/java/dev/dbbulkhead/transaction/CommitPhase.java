package dev.dbbulkhead.transaction;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.jdbc.CommitFailures;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tells, for one admitted transaction, how far its commit got, so that a failure of
 * {@code PlatformTransactionManager.commit} gets an honest verdict. Registered last, just before the commit, it
 * runs after every other {@code beforeCommit} callback ({@code @TransactionalEventListener(BEFORE_COMMIT)}
 * included) and flushes the transaction there: under JPA that is where Hibernate's SQL runs, so an optimistic
 * lock failure or a statement or lock timeout surfaces before the JDBC {@code COMMIT} is sent, as the known
 * rollback it is. Only what fails after this point — the JDBC commit itself — may have an unknown outcome.
 */
final class CommitPhase implements TransactionSynchronization, Ordered {

    private final TransactionStatus status;
    /** Set once every beforeCommit callback and the flush have returned: what fails next is the commit itself. */
    private boolean commitSent;
    private boolean committed;

    private CommitPhase(TransactionStatus status) {
        this.status = status;
    }

    /** Registers the phase of the transaction of {@code status}; call right before committing it. */
    static CommitPhase register(TransactionStatus status) {
        CommitPhase phase = new CommitPhase(status);
        TransactionSynchronizationManager.registerSynchronization(phase);
        return phase;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        // A read-only transaction is not flushed at commit (Spring sets Hibernate's flush mode to MANUAL): neither here.
        if (!readOnly) {
            status.flush();
        }
        commitSent = true;
    }

    @Override
    public void afterCompletion(int completionStatus) {
        committed = completionStatus == STATUS_COMMITTED;
    }

    /** How the transaction ended when its commit call returned normally: committed, or rolled back instead. */
    ExecutionOutcome outcome() {
        return committed ? ExecutionOutcome.COMMITTED : ExecutionOutcome.ROLLED_BACK;
    }

    /**
     * How the transaction ended when its commit call threw {@code commitFailure}: committed when the commit
     * succeeded and a later callback ({@code afterCommit}) failed; rolled back when the failure came before the
     * JDBC commit, or the database refused the commit; unknown otherwise.
     */
    ExecutionOutcome outcomeOf(Throwable commitFailure) {
        if (committed) {
            return ExecutionOutcome.COMMITTED;
        }
        if (!commitSent || commitFailure instanceof UnexpectedRollbackException
                || CommitFailures.isKnownRollback(commitFailure)) {
            return ExecutionOutcome.ROLLED_BACK;
        }
        return ExecutionOutcome.UNKNOWN;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
