package dev.dbbulkhead.sample.reports;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * The entry of the {@code reports} workload: heavy read-only queries with a small B and no queue, so a flood of
 * reports is refused at once instead of taking the connections {@code orders} needs.
 */
@Service
public class ReportEntry {

    private final JdbcClient jdbc;

    ReportEntry(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Sales per product; deliberately slow ({@code heavyMillis} of server time) to stand for a heavy query. */
    @DbBulkhead("reports")
    public SalesReport sales(int heavyMillis) {
        return new SalesReport(jdbc.sql("""
                        SELECT p.id, p.name, count(o.id), coalesce(sum(o.quantity), 0)
                        FROM product p LEFT JOIN purchase o ON o.product_id = p.id, pg_sleep(:seconds)
                        GROUP BY p.id, p.name ORDER BY p.id""")
                .param("seconds", heavyMillis / 1000.0)
                .query((rs, row) -> new SalesReport.Line(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4)))
                .list());
    }
}
