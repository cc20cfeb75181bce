package dev.dbbulkhead.jdbc;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Permit;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Server-side limits of every admitted transaction, on PostgreSQL: {@code statement_timeout} and
 * {@code lock_timeout}, applied with {@code SET LOCAL} as the transaction's first statement so that they end
 * with it and never reach the next borrower of the connection; and a deadline for the whole operation, whose
 * remainder after the queue wait caps the statement timeout. Immutable.
 *
 * <p>Values are validated durations turned into whole milliseconds; SQL is built from those integers only.
 */
public final class TransactionTimeouts {

    /** No server-side limits and no deadline: nothing is sent. */
    public static final TransactionTimeouts NONE = new TransactionTimeouts(null, null, null);

    /** PostgreSQL stores both timeouts as a 32-bit count of milliseconds. */
    private static final long MAX_MILLIS = Integer.MAX_VALUE;
    private static final long NANOS_PER_MILLI = 1_000_000;

    private final @Nullable Duration statementTimeout;
    private final @Nullable Duration lockTimeout;
    private final @Nullable Duration deadline;

    private TransactionTimeouts(@Nullable Duration statementTimeout, @Nullable Duration lockTimeout,
                                @Nullable Duration deadline) {
        this.statementTimeout = statementTimeout;
        this.lockTimeout = lockTimeout;
        this.deadline = deadline;
    }

    /**
     * @param statementTimeout {@code statement_timeout} of every statement, or {@code null} for the server's
     * @param lockTimeout      {@code lock_timeout} of every lock wait, or {@code null} for the server's
     * @param deadline         the whole operation's budget, from entering the gate to the transaction's end,
     *                         or {@code null} for none
     * @throws IllegalArgumentException for a value that is not a whole number of milliseconds from 1 ms to
     *                                  2147483647 ms
     */
    public static TransactionTimeouts of(@Nullable Duration statementTimeout, @Nullable Duration lockTimeout,
                                         @Nullable Duration deadline) {
        return new TransactionTimeouts(
                requireMillis("statementTimeout", statementTimeout),
                requireMillis("lockTimeout", lockTimeout),
                requireMillis("deadline", deadline));
    }

    /**
     * @return {@code value} when it is {@code null} (unset) or a whole number of milliseconds from 1 ms to
     *         2147483647 ms
     * @throws IllegalArgumentException naming {@code name} and the value otherwise
     */
    public static @Nullable Duration requireMillis(String name, @Nullable Duration value) {
        if (value == null) {
            return null;
        }
        if (value.isNegative() || value.isZero() || value.compareTo(Duration.ofMillis(MAX_MILLIS)) > 0
                || value.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException(name + " must be a whole number of milliseconds between 1ms and "
                    + MAX_MILLIS + "ms, was " + value);
        }
        return value;
    }

    /** The configured statement timeout, or {@code null}. */
    public @Nullable Duration statementTimeout() {
        return statementTimeout;
    }

    /** The configured lock timeout, or {@code null}. */
    public @Nullable Duration lockTimeout() {
        return lockTimeout;
    }

    /** The whole operation's budget, or {@code null}. */
    public @Nullable Duration deadline() {
        return deadline;
    }

    /** The smaller of this deadline and {@code perCall}; either may be {@code null} (none). */
    public @Nullable Duration deadlineWith(@Nullable Duration perCall) {
        if (perCall == null) {
            return deadline;
        }
        return deadline == null || perCall.compareTo(deadline) < 0 ? perCall : deadline;
    }

    /**
     * The {@code SET LOCAL} statement for a transaction with {@code remainingNanos} of its budget left
     * ({@link Permit#NO_DEADLINE} when it has none), or {@code null} when nothing is to be set.
     * The statement timeout is the smaller of the configured one and the remaining budget, from 1 ms to
     * PostgreSQL's largest, 2147483647 ms: a remainder past that range is the largest timeout, never a wrapped one.
     */
    @Nullable String setLocalStatement(long remainingNanos) {
        long statementMillis = statementTimeout == null ? MAX_MILLIS + 1 : statementTimeout.toMillis();
        if (remainingNanos != Permit.NO_DEADLINE) {
            statementMillis = Math.min(statementMillis, Math.min(MAX_MILLIS, remainingMillis(remainingNanos)));
        }
        StringBuilder sql = new StringBuilder();
        if (statementMillis <= MAX_MILLIS) {
            sql.append("SET LOCAL statement_timeout = ").append(statementMillis);
        }
        if (lockTimeout != null) {
            sql.append(sql.isEmpty() ? "" : "; ").append("SET LOCAL lock_timeout = ").append(lockTimeout.toMillis());
        }
        return sql.isEmpty() ? null : sql.toString();
    }

    /**
     * A remaining budget in whole milliseconds, rounded up and at least 1: a budget that is spent or nearly spent
     * still becomes a limit that ends the next statement, never "no limit". Exact for every {@code long}: rounding up
     * never overflows, so the longest budget stays the longest limit.
     */
    public static long remainingMillis(long remainingNanos) {
        if (remainingNanos <= 0) {
            return 1;
        }
        long wholeMillis = remainingNanos / NANOS_PER_MILLI;
        return remainingNanos % NANOS_PER_MILLI == 0 ? wholeMillis : wholeMillis + 1;
    }

    /**
     * Admits an operation through {@code gate} within the smaller of this deadline and {@code perCall}, or
     * without a budget when neither is set; returns and fails as {@link AdmissionGate#acquireWithin} does.
     */
    public Permit admit(AdmissionGate gate, @Nullable Duration perCall) {
        Duration budget = deadlineWith(perCall);
        return budget == null ? gate.acquire() : gate.acquireWithin(budget);
    }

    /**
     * Applies the limits as the first statement of the transaction open on {@code connection}.
     *
     * @throws SQLFeatureNotSupportedException when limits are set and the database is not PostgreSQL (the
     *                                         database's own refusal of {@code SET LOCAL} is its cause)
     */
    public void applyTo(Connection connection, long remainingNanos) throws SQLException {
        String sql = setLocalStatement(remainingNanos);
        if (sql == null) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException refused) {
            // Asked only once the statement failed, to explain it: never on the path of every transaction.
            String product = databaseProductOr(refused, connection);
            if (product != null && !"PostgreSQL".equals(product)) {
                throw new SQLFeatureNotSupportedException("statement-timeout, lock-timeout and deadline are applied"
                        + " with PostgreSQL's SET LOCAL; this database is " + product, refused);
            }
            throw refused;
        }
    }

    /**
     * The database product of {@code connection}, or {@code null} when even that cannot be asked — a connection
     * that broke, which the pool may have closed already: that failure is attached to {@code failure} as
     * suppressed, and {@code failure} stays the one the caller sees.
     */
    private static @Nullable String databaseProductOr(SQLException failure, Connection connection) {
        try {
            return connection.getMetaData().getDatabaseProductName();
        } catch (SQLException | RuntimeException unanswered) {
            failure.addSuppressed(unanswered);
            return null;
        }
    }

    /** Whether anything would be sent to the database. */
    public boolean isEmpty() {
        return statementTimeout == null && lockTimeout == null && deadline == null;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof TransactionTimeouts that
                && Objects.equals(statementTimeout, that.statementTimeout)
                && Objects.equals(lockTimeout, that.lockTimeout)
                && Objects.equals(deadline, that.deadline);
    }

    @Override
    public int hashCode() {
        return Objects.hash(statementTimeout, lockTimeout, deadline);
    }

    @Override
    public String toString() {
        return "TransactionTimeouts[statementTimeout=" + statementTimeout + ", lockTimeout=" + lockTimeout
                + ", deadline=" + deadline + "]";
    }
}
