package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Date;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Applies {@link TransactionTimeouts} to the connection a Spring transaction bound for a data source: the remaining
 * deadline becomes the transaction's timeout when it is shorter than the transaction's own (so Spring's JDBC
 * support applies it to statements), and the PostgreSQL timeouts are set with {@code SET LOCAL}, the remaining
 * deadline capping {@code statement_timeout} — on PostgreSQL also for a request's deadline alone, the one limit
 * that reaches Hibernate's statements after begin. Kept apart so spring-jdbc is needed only when timeouts are set.
 */
final class BoundConnectionTimeouts {

    private final TransactionTimeouts timeouts;
    private final DataSource dataSource;
    /** Whether the data source is PostgreSQL; {@code null} until a request deadline first needed to know. */
    private volatile @Nullable Boolean postgres;

    BoundConnectionTimeouts(TransactionTimeouts timeouts, DataSource dataSource) {
        this.timeouts = timeouts;
        this.dataSource = dataSource;
    }

    /** Runs as the transaction's first statement, on the transaction's own connection. */
    void apply(Permit permit) {
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder)) {
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
            shortenTimeouts(TransactionTimeouts.remainingMillis(remainingNanos));
        }
        try {
            Connection connection = DataSourceUtils.getConnection(dataSource);
            if (timeouts.isEmpty() && (remainingNanos == Permit.NO_DEADLINE || !isPostgres(connection))) {
                // A deadline alone (a request's) narrows the transaction's timeout, which Spring's JDBC support
                // applies to each statement on any database. On PostgreSQL it caps statement_timeout as well: under
                // JPA, Hibernate keeps the timeout it was given at begin, in whole seconds, so only the cap ends its
                // statements with what is left.
                return;
            }
            timeouts.applyTo(connection, remainingNanos);
        } catch (SQLException e) {
            throw new CannotCreateTransactionException("Could not apply " + timeouts + " to the transaction of"
                    + " bulkhead '" + permit.workload() + "'", e);
        }
    }

    /** Whether the data source is PostgreSQL, asked of its first connection only (a driver constant, no round trip). */
    private boolean isPostgres(Connection connection) throws SQLException {
        Boolean known = postgres;
        if (known == null) {
            known = "PostgreSQL".equals(connection.getMetaData().getDatabaseProductName());
            postgres = known;
        }
        return known;
    }

    /**
     * Gives the transaction {@code remainingMillis} unless its own timeout (the definition's, which the transaction
     * manager set on its holders) ends sooner: a deadline narrows a transaction's time, never lengthens it. Every
     * holder the transaction bound is narrowed, not only the JDBC connection's: under JPA, Spring applies the
     * timeout of the {@code EntityManagerHolder} to each query it creates. All of them are this transaction's: the
     * gate admitted it with no transaction active.
     */
    private static void shortenTimeouts(long remainingMillis) {
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
            if (resource instanceof ResourceHolderSupport holder) {
                Date ownDeadline = holder.getDeadline();
                if (ownDeadline == null || ownDeadline.getTime() - System.currentTimeMillis() > remainingMillis) {
                    holder.setTimeoutInMillis(remainingMillis);
                }
            }
        }
    }
}
