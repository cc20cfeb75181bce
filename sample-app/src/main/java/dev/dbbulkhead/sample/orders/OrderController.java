package dev.dbbulkhead.sample.orders;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Positive;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** HTTP for orders. A full {@code orders} gate answers 503 with Retry-After (db-bulkhead's own mapping). */
@RestController
class OrderController {

    private final OrderEntry orders;

    OrderController(OrderEntry orders) {
        this.orders = orders;
    }

    record PlaceOrder(@Positive long productId, @Positive int quantity) {
    }

    @PostMapping("/orders")
    ResponseEntity<Order> place(@Valid @RequestBody PlaceOrder request) {
        return ResponseEntity.status(HttpStatus.CREATED).body(orders.place(request.productId(), request.quantity()));
    }

    @GetMapping("/orders/{id}")
    ResponseEntity<Order> find(@PathVariable long id) {
        return ResponseEntity.of(orders.find(id));
    }

    @ExceptionHandler
    ProblemDetail outOfStock(OutOfStockException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
    }
}
