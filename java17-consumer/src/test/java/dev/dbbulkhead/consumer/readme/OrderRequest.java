package dev.dbbulkhead.consumer.readme;

/** What a client asks to order, as the README's samples take it as given. */
record OrderRequest(long productId, int quantity) {
}
