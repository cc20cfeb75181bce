package dev.dbbulkhead.consumer.readme;

/** An application's order, as the README's samples take it as given. */
record Order(long productId, int quantity) {
}
