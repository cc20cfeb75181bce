package dev.dbbulkhead.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * How a {@link DataSourceDecorator} asks the data source it decorates for a connection: {@link #PLAIN}ly, or in a way
 * of a pool's own (within a bound, say) that a module knowing the pool supplies, so that the decorator stays the one
 * in front of the pool.
 */
@FunctionalInterface
public interface ConnectionRequest {

    /** Asks {@code target.getConnection()}, nothing else. */
    ConnectionRequest PLAIN = DataSource::getConnection;

    /**
     * Asks {@code target} for a connection, on the requesting thread.
     *
     * @return the connection {@code target} handed out, owned by the caller from then on
     * @throws SQLException what {@code target} threw, or a failure of this request's own that it documents
     */
    Connection connect(DataSource target) throws SQLException;
}
