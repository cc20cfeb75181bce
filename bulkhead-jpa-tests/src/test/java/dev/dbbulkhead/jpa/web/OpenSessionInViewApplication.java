package dev.dbbulkhead.jpa.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.jpa.shop.PurchaseOrder;
import dev.dbbulkhead.jpa.shop.PurchaseOrderRepository;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.hibernate.Hibernate;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A web application on Spring Data JPA whose controller returns entities with lazy associations, which Jackson
 * walks after the admitted method has returned. Workloads: {@code catalogue} B=2 (Q=64, waiting up to 10s),
 * {@code shop} B=1, so Σ B = 3 on a pool of 10. Subclasses set {@code spring.jpa.open-in-view}.
 */
@SpringBootTest(classes = {JpaTestApplication.class, OpenSessionInViewApplication.Catalogue.class,
        OpenSessionInViewApplication.Orders.class, OpenSessionInViewApplication.Pause.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.workloads.catalogue.max-concurrent=2",
                "db.bulkhead.workloads.catalogue.max-queued=64", "db.bulkhead.workloads.catalogue.queue-wait=10s",
                "db.bulkhead.workloads.shop.max-concurrent=1",
                "management.endpoints.web.exposure.include=dbbulkheads"})
// Declared here although @SpringBootTest declares it too: Boot's test scan filter then takes this for a test class
// and leaves its nested beans out of every other test's component scan.
@ExtendWith(SpringExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
abstract class OpenSessionInViewApplication {

    /** Σ B of the workloads on the one pool. */
    static final int GATED = 3;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    final HttpClient http = HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor()).build();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    Catalogue catalogue;

    @Autowired
    Pause pause;

    @Autowired
    DataSource dataSource;

    /**
     * The pool's active connections while a request, its admitted method returned and its permit back, is held
     * before its response is written; the request then completes with the whole order.
     */
    int activeConnectionsWhileARequestIsHeldAfterItsPermitIsBack() throws Exception {
        long id = catalogue.place("ada", "book", 2);
        AtomicReference<HttpResponse<String>> answer = new AtomicReference<>();
        Thread request = Thread.ofVirtual().start(() -> {
            try {
                answer.set(get("/orders/" + id + "/held"));
            } catch (IOException | InterruptedException failed) {
                throw new IllegalStateException(failed);
            }
        });
        pause.reached.await();
        assertThat(registry.template("catalogue").gate().active()).as("permits in use").isZero();
        int active = pool().getActiveConnections();
        pause.resume.countDown();
        request.join();
        assertThat(answer.get().statusCode()).isEqualTo(200);
        assertThat(answer.get().body()).contains("\"name\":\"ada\"", "\"product\":\"book\"");
        return active;
    }

    /** The start-up budget check's findings, as the {@code dbbulkheads} endpoint shows them. */
    JsonNode budgetFindings() throws IOException, InterruptedException {
        return JsonMapper.builder().build().readTree(get("/actuator/dbbulkheads").body()).get("budget").get("findings");
    }

    HikariPoolMXBean pool() {
        return DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class, HikariDataSource.class).getHikariPoolMXBean();
    }

    URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The admitted entries: a non-transactional service, as docs/reference/concepts.md asks. */
    @Service
    static class Catalogue {

        private final CustomerRepository customers;
        private final PurchaseOrderRepository orders;

        Catalogue(CustomerRepository customers, PurchaseOrderRepository orders) {
            this.customers = customers;
            this.orders = orders;
        }

        @DbBulkhead("catalogue")
        public long place(String customerName, String product, int quantity) {
            Customer customer = customers.save(new Customer(customerName));
            return orders.save(new PurchaseOrder(customer).addLine(product, quantity)).getId();
        }

        /** The order as it is loaded: customer and lines stay lazy until someone walks them. */
        @DbBulkhead("catalogue")
        public PurchaseOrder order(long id) {
            return orders.findById(id).orElseThrow();
        }

        /** The order with what the response shows loaded inside the admitted transaction. */
        @DbBulkhead("catalogue")
        public PurchaseOrder orderForTheResponse(long id) {
            PurchaseOrder order = orders.findById(id).orElseThrow();
            Hibernate.initialize(order.getCustomer());
            Hibernate.initialize(order.getLines());
            return order;
        }
    }

    @RestController
    static class Orders {

        private final Catalogue catalogue;
        private final Pause pause;

        Orders(Catalogue catalogue, Pause pause) {
            this.catalogue = catalogue;
            this.pause = pause;
        }

        /** Jackson walks the lazy customer and lines after the admitted method returned. */
        @GetMapping("/orders/{id}")
        PurchaseOrder order(@PathVariable long id) {
            return catalogue.order(id);
        }

        @GetMapping("/orders/{id}/for-the-response")
        PurchaseOrder orderForTheResponse(@PathVariable long id) {
            return catalogue.orderForTheResponse(id);
        }

        /** As above, then held after the admitted method returned, as a slow client or a long rendering holds it. */
        @GetMapping("/orders/{id}/held")
        PurchaseOrder held(@PathVariable long id) throws InterruptedException {
            PurchaseOrder order = catalogue.orderForTheResponse(id);
            pause.hold();
            return order;
        }
    }

    /** Holds one request after its admitted method returned, until the test lets it go on. */
    @Component
    static class Pause {

        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        void hold() throws InterruptedException {
            reached.countDown();
            resume.await();
        }
    }
}
