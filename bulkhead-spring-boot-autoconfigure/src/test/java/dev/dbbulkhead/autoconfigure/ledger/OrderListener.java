package dev.dbbulkhead.autoconfigure.ledger;

import java.util.function.IntSupplier;

/** A message listener's method, as a {@code @KafkaListener}, {@code @RabbitListener} or {@code @JmsListener} one is. */
public class OrderListener {

    private final IntSupplier whileHeld;
    /** What {@link #onOrder} saw while it held its connection; -1 before any. */
    public volatile int seen = -1;

    public OrderListener(IntSupplier whileHeld) {
        this.whileHeld = whileHeld;
    }

    public void onOrder(String order) {
        seen = whileHeld.getAsInt();
    }
}
