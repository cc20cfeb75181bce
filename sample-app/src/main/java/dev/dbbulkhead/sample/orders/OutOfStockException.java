package dev.dbbulkhead.sample.orders;

/** The product has less stock than the order asks for. */
public class OutOfStockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    OutOfStockException(long productId, int quantity) {
        super("Product " + productId + " has fewer than " + quantity + " in stock");
    }
}
