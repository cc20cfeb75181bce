package dev.dbbulkhead.sample.reports;

import java.util.List;

/** Units sold per product. */
public record SalesReport(List<Line> lines) {

    /** One product's sales. */
    public record Line(long productId, String name, long orders, long units) {
    }
}
