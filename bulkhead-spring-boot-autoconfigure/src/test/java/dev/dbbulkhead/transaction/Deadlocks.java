package dev.dbbulkhead.transaction;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;

/** Two transfers in opposite directions that deadlock on their first attempts, for the tests of retries. */
public final class Deadlocks {

    private Deadlocks() {
    }

    /**
     * Moves nothing between two accounts of {@code table} ({@code id}, {@code balance}), locking {@code from} then
     * {@code to}; on the first two attempts of all waits until the other transfer holds its first row too, so that
     * the two lock each other's second row: a deadlock, of which PostgreSQL rolls one back.
     *
     * @return the rows updated by the second statement: 1
     */
    public static int transfer(JdbcTemplate jdbc, String table, int from, int to, AtomicInteger attempts,
                               CyclicBarrier bothHoldTheirFirstRow) {
        boolean firstAttempt = attempts.incrementAndGet() <= 2;
        jdbc.update("UPDATE " + table + " SET balance = balance - 0 WHERE id = ?", from);
        if (firstAttempt) {
            try {
                bothHoldTheirFirstRow.await(30, TimeUnit.SECONDS);
            } catch (Exception interruptedOrBroken) {
                throw new IllegalStateException(interruptedOrBroken);
            }
        }
        return jdbc.update("UPDATE " + table + " SET balance = balance + 0 WHERE id = ?", to);
    }
}
