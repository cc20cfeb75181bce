package dev.dbbulkhead.sample.orders;

import java.time.OffsetDateTime;
import java.util.Optional;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The SQL of orders. Joins whatever transaction its caller runs in; it never starts one of its own. */
@Repository
class OrderRepository {

    private static final String COLUMNS = "id, product_id, quantity, created_at";
    private static final RowMapper<Order> ORDER = (rs, row) -> new Order(rs.getLong(1), rs.getLong(2), rs.getInt(3),
            rs.getObject(4, OffsetDateTime.class).toInstant());

    private final JdbcClient jdbc;

    OrderRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Takes {@code quantity} from the product's stock; false when there is not enough. */
    boolean takeStock(long productId, int quantity) {
        return jdbc.sql("UPDATE product SET stock = stock - :quantity WHERE id = :id AND stock >= :quantity")
                .param("quantity", quantity).param("id", productId).update() == 1;
    }

    /** Records the purchase and returns it as stored, in the same round trip. */
    Order insert(long productId, int quantity) {
        return jdbc.sql("INSERT INTO purchase (product_id, quantity) VALUES (:product, :quantity)"
                        + " RETURNING " + COLUMNS)
                .param("product", productId).param("quantity", quantity).query(ORDER).single();
    }

    Optional<Order> find(long id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM purchase WHERE id = :id").param("id", id).query(ORDER).optional();
    }
}
