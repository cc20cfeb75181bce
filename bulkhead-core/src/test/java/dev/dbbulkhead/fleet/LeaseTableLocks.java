package dev.dbbulkhead.fleet;

import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Sessions that hold the lease table's locks from the side, for tests of what a renewal waits for. */
final class LeaseTableLocks {

    private LeaseTableLocks() {
    }

    /**
     * A session inside a transaction that holds the lock every writer of {@code table} takes: a settlement waits for
     * it, a keep-alive does not. Added to {@code opened}, for the test to close.
     */
    static Connection writerHolding(TestDatabase database, String table, List<Connection> opened)
            throws SQLException {
        Connection writer = database.connect();
        opened.add(writer);
        writer.setAutoCommit(false);
        try (Statement lock = writer.createStatement()) {
            lock.execute("LOCK TABLE " + table + " IN ROW EXCLUSIVE MODE");
        }
        return writer;
    }
}
