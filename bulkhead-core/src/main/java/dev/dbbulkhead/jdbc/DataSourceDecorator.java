package dev.dbbulkhead.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that looks at every request for a connection before it hands it to the one it decorates, and is
 * that one in everything else: its log writer, login timeout and logger, and {@link #unwrap} reaching it and what it
 * wraps, so that code looking for the pool's own class (a {@code HikariDataSource}, say) through {@code unwrap} finds
 * it. Subclasses say what the look is; a {@link ConnectionRequest} says how the target is asked.
 */
public abstract class DataSourceDecorator implements DataSource {

    private final DataSource target;
    private final ConnectionRequest request;

    /**
     * @param target  the data source the connections come from
     * @param request how {@link #getConnection()} asks it, once {@link #beforeConnection()} has let the request pass
     */
    protected DataSourceDecorator(DataSource target, ConnectionRequest request) {
        this.target = Objects.requireNonNull(target, "target");
        this.request = Objects.requireNonNull(request, "request");
    }

    /** The data source the connections come from. */
    protected final DataSource target() {
        return target;
    }

    /**
     * Runs on the requesting thread before each connection is asked for; a connection is asked for only if this
     * returns normally.
     *
     * @throws SQLException to refuse the connection
     */
    protected abstract void beforeConnection() throws SQLException;

    /**
     * Returns the connection {@link #borrow} takes with this decorator's {@link ConnectionRequest}: by default
     * {@link #beforeConnection()}, then the request; throws what either throws.
     */
    @Override
    public final Connection getConnection() throws SQLException {
        return borrow(request);
    }

    @Override
    public final Connection getConnection(String username, String password) throws SQLException {
        return borrow(target -> target.getConnection(username, password));
    }

    /**
     * Takes a connection of the target the way {@code how} asks for it: {@link #beforeConnection()} first, then the
     * request. A subclass that must hold something for as long as the connection is out (a permit) overrides this.
     *
     * @param how how the target is asked: this decorator's {@link ConnectionRequest}, or a request with credentials
     */
    protected Connection borrow(ConnectionRequest how) throws SQLException {
        beforeConnection();
        return how.connect(target);
    }

    @Override
    public final <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return type.isInstance(target) ? type.cast(target) : target.unwrap(type);
    }

    @Override
    public final boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || type.isInstance(target) || target.isWrapperFor(type);
    }

    @Override
    public final PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public final void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public final void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public final int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public final Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }
}
