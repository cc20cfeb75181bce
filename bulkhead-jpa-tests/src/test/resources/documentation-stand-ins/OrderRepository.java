import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

/** Stands for the application's own Spring Data repository. */
interface OrderRepository extends JpaRepository<Order, Long> {

    List<Order> findByProductId(long productId);
}
