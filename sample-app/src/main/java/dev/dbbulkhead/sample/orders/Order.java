package dev.dbbulkhead.sample.orders;

import java.time.Instant;

/** A placed order. */
public record Order(long id, long productId, int quantity, Instant createdAt) {
}
