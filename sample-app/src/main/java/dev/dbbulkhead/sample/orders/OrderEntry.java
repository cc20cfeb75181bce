package dev.dbbulkhead.sample.orders;

import dev.dbbulkhead.annotation.DbBulkhead;
import java.util.Optional;
import org.springframework.stereotype.Service;

/**
 * The entry of the {@code orders} workload: each public method is admitted by the {@code orders} gate first, and
 * only then runs in one transaction. The bean itself is not {@code @Transactional} — the transaction must begin
 * after admission, never before.
 */
@Service
@DbBulkhead("orders")
public class OrderEntry {

    private final OrderRepository orders;

    OrderEntry(OrderRepository orders) {
        this.orders = orders;
    }

    /**
     * Places an order: takes the stock and records the purchase, or neither.
     *
     * @throws OutOfStockException when the product has too little stock (the transaction rolls back)
     */
    public Order place(long productId, int quantity) {
        if (!orders.takeStock(productId, quantity)) {
            throw new OutOfStockException(productId, quantity);
        }
        return orders.insert(productId, quantity);
    }

    public Optional<Order> find(long id) {
        return orders.find(id);
    }
}
