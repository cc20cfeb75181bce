package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import java.sql.SQLException;
import java.util.Date;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Applies {@link TransactionTimeouts} to the connection a Spring transaction bound for a data source: the remaining
 * deadline becomes the transaction's timeout when it is shorter than the transaction's own (so Spring's JDBC
 * support applies it to statements; Hibernate keeps the timeout it was given at begin), and the
 * PostgreSQL timeouts are set with {@code SET LOCAL}. Kept apart so spring-jdbc is needed only when timeouts are set.
 */
final class BoundConnectionTimeouts {

    private final TransactionTimeouts timeouts;
    private final DataSource dataSource;

    BoundConnectionTimeouts(TransactionTimeouts timeouts, DataSource dataSource) {
        this.timeouts = timeouts;
        this.dataSource = dataSource;
    }

    /** Runs as the transaction's first statement, on the transaction's own connection. */
    void apply(Permit permit) {
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)) {
            if (timeouts.isEmpty()) {
                // Only a request's deadline to apply, and a transaction manager that binds no JDBC connection: its
                // own timeout stands, as it did before request deadlines; nothing here may fail the transaction.
                return;
            }
            throw new CannotCreateTransactionException("The transaction of bulkhead '" + permit.workload()
                    + "' holds no connection of its data source " + dataSource
                    + ": its transaction manager must manage that data source");
        }
        long remainingNanos = permit.remainingNanos();
        if (remainingNanos != Permit.NO_DEADLINE) {
            shortenTimeout(holder, TransactionTimeouts.remainingMillis(remainingNanos));
        }
        if (timeouts.isEmpty()) {
            // A deadline alone (a request's) narrows the transaction's timeout, which Spring's JDBC support applies
            // to each statement on any database; SET LOCAL is for workloads whose PostgreSQL timeouts were checked.
            return;
        }
        try {
            timeouts.applyTo(DataSourceUtils.getConnection(dataSource), remainingNanos);
        } catch (SQLException e) {
            throw new CannotCreateTransactionException("Could not apply " + timeouts + " to the transaction of"
                    + " bulkhead '" + permit.workload() + "'", e);
        }
    }

    /**
     * Gives the transaction {@code remainingMillis} unless its own timeout (the definition's, which the transaction
     * manager set on the holder) ends sooner: a deadline narrows a transaction's time, never lengthens it.
     */
    private static void shortenTimeout(ConnectionHolder holder, long remainingMillis) {
        Date ownDeadline = holder.getDeadline();
        if (ownDeadline == null || ownDeadline.getTime() - System.currentTimeMillis() > remainingMillis) {
            holder.setTimeoutInMillis(remainingMillis);
        }
    }
}
