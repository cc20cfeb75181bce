package dev.dbbulkhead.jdbc.side;

import javax.sql.DataSource;

/**
 * A data source the starter put inside one application pool, bound to that pool alone (the fleet share's bound on
 * the connections it opens): a side pool copied from that pool opens its connections from the URL instead
 * ({@link SideConnections}).
 */
public interface PoolBoundDataSource extends DataSource {
}
