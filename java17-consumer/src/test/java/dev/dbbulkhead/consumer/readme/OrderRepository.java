package dev.dbbulkhead.consumer.readme;

import java.util.List;

/** An application's repository of orders (a Spring Data one, say), as the README's samples take it as given. */
interface OrderRepository {

    Order save(Order order);

    List<Order> findByProductId(long productId);
}
