package dev.dbbulkhead.jdbc;

import java.sql.SQLException;
import java.util.Set;

/**
 * Tells a commit the database refused (the transaction is known to be rolled back) from a commit whose outcome
 * is unknown. Only SQLState classes whose meaning is a server-side verdict count as refusals; everything else —
 * a lost connection, a shut-down backend, an exception without SQLState — is unknown, because calling an unknown
 * outcome a rollback invites a blind retry of a write that may have happened.
 */
public final class CommitFailures {

    /** 23: integrity constraint violation (deferred constraints); 40: transaction rollback (serialization, deadlock). */
    private static final Set<String> REFUSED_COMMIT_CLASSES = Set.of("23", "40");

    /** The one state of class 40 that is no verdict: the server cannot say whether the statement completed. */
    private static final String STATEMENT_COMPLETION_UNKNOWN = "40003";

    private CommitFailures() {
    }

    /** Whether {@code commitFailure} (or a cause of it) is the database's refusal of the commit. */
    public static boolean isKnownRollback(Throwable commitFailure) {
        for (Throwable cause = commitFailure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                String state = sql.getSQLState();
                return state != null && state.length() == 5 && REFUSED_COMMIT_CLASSES.contains(state.substring(0, 2))
                        && !STATEMENT_COMPLETION_UNKNOWN.equals(state);
            }
        }
        return false;
    }
}
