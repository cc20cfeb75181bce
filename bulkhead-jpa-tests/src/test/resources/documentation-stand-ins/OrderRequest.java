/** Stands for the application's own request body. */
record OrderRequest(long productId, int quantity) {
}
