package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.gate.AdmissionGate;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A pool watched for work that escapes the gates: every connection borrowed by a thread inside an admitted operation
 * passes straight through, at the cost of one thread-local read; any other is handed to the pool's
 * {@link UngatedConnectionDetector} first, which records it (and, when told to, refuses it). Everything else is the
 * pool's own, and {@link #unwrap} reaches the pool and what it wraps, so that code that looks for the pool's own
 * class ({@code HikariDataSource}, say) through {@code unwrap} finds it.
 */
public final class WatchedDataSource implements DataSource {

    private final DataSource pool;
    private final UngatedConnectionDetector detector;

    /**
     * @param pool     the pool the gates admit to
     * @param detector its record of borrows outside every gate
     */
    public WatchedDataSource(DataSource pool, UngatedConnectionDetector detector) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.detector = Objects.requireNonNull(detector, "detector");
    }

    /** The pool watched. */
    public DataSource pool() {
        return pool;
    }

    /** Its record of borrows outside every gate. */
    public UngatedConnectionDetector detector() {
        return detector;
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (!AdmissionGate.isCurrentThreadAdmitted()) {
            detector.borrowedOutsideGates();
        }
        return pool.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        if (!AdmissionGate.isCurrentThreadAdmitted()) {
            detector.borrowedOutsideGates();
        }
        return pool.getConnection(username, password);
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return type.isInstance(pool) ? type.cast(pool) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || type.isInstance(pool) || pool.isWrapperFor(type);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public String toString() {
        return "WatchedDataSource[" + detector.pool() + ": " + pool + "]";
    }
}
