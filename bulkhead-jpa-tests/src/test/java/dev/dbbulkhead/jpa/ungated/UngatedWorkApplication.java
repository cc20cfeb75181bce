package dev.dbbulkhead.jpa.ungated;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.convert.converter.Converter;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A clinic adopted as the README advises, a class-level {@code @DbBulkhead("clinic")} on its controllers, with the
 * three ways PetClinic's work escaped the gate: a {@code @ModelAttribute} loader and a {@link Converter} that MVC
 * calls before the gated handler, and a controller left without a gate; and a gated controller beside them. Each
 * path is asked {@value #REQUESTS} times at once over HTTP. Subclasses choose the data access and the mode.
 */
@ActiveProfiles("ungated")
// Declared here although @SpringBootTest declares it too: Boot's test scan filter then takes this for a test class
// and leaves its nested beans out of every other test's component scan.
@ExtendWith({SpringExtension.class, OutputCaptureExtension.class})
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
abstract class UngatedWorkApplication {

    /** Concurrent requests per path: twice B, so the gated ones queue; 32 in flight on a pool of 40. */
    static final int REQUESTS = 8;

    /** The paths, and the call site that borrows outside the gate on each; none for the gated one. */
    static final Map<String, String> PATHS = new LinkedHashMap<>();

    static {
        PATHS.put("/owners/%d", OwnerController.class.getName() + ".loadOwner(");
        PATHS.put("/pets/%d", OwnerRefConverter.class.getName() + ".convert(");
        PATHS.put("/visits/%d", VisitController.class.getName() + ".visits(");
        PATHS.put("/gated/%d", null);
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    private final HttpClient http = HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    OwnerNames owners;

    long ownerId;

    /** The owner the requests ask for, created inside the gate so that setting up is not reported. */
    @BeforeEach
    void createOwner() {
        ownerId = registry.template("clinic").execute(status -> owners.create("ada"));
    }

    /** Asks every path {@value #REQUESTS} times, all requests released at once; the statuses by path. */
    Map<String, List<Integer>> askEveryPathAtOnce() throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        Map<String, List<Integer>> statuses = new LinkedHashMap<>();
        List<Thread> clients = new ArrayList<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        for (String path : PATHS.keySet()) {
            List<Integer> answers = Collections.synchronizedList(new ArrayList<>());
            statuses.put(path, answers);
            URI uri = URI.create("http://localhost:" + port + path.formatted(ownerId));
            for (int i = 0; i < REQUESTS; i++) {
                clients.add(Thread.ofVirtual().start(() -> {
                    try {
                        start.await();
                        answers.add(http.send(HttpRequest.newBuilder(uri).GET().build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode());
                    } catch (IOException | InterruptedException e) {
                        failure.set(e);
                    }
                }));
            }
        }
        start.countDown();
        for (Thread client : clients) {
            client.join();
        }
        assertThat(failure.get()).isNull();
        return statuses;
    }

    /** The {@code ungated} section of the {@code dbbulkheads} endpoint. */
    JsonNode ungatedSection() throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/dbbulkheads")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return JsonMapper.builder().build().readTree(answer.body()).get("ungated");
    }

    /** The primary pool's entry of the endpoint's {@code ungated} section. */
    static JsonNode primaryPool(JsonNode ungated) {
        assertThat(ungated).as("the endpoint's ungated section").isNotNull();
        assertThat(ungated.get("pools").has("dataSource")).as("the primary pool is watched: " + ungated).isTrue();
        return ungated.get("pools").get("dataSource");
    }

    /** The call sites of the primary pool as the endpoint lists them: site → connections. */
    static Map<String, Long> callSites(JsonNode ungated) {
        Map<String, Long> sites = new LinkedHashMap<>();
        primaryPool(ungated).get("callSites")
                .forEach(site -> sites.put(site.get("site").asString(), site.get("connections").asLong()));
        return sites;
    }

    /** The clinic on Spring Data JPA with Boot's defaults (open-session-in-view on), served on a random port. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @SpringBootTest(classes = {JpaTestApplication.class, JpaOwnerNames.class, OwnerController.class,
            OwnerRefConverter.class, PetController.class, VisitController.class, GatedController.class},
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
    @interface OnJpa {
    }

    /** The clinic on plain JDBC and the {@code DataSourceTransactionManager}, served on a random port. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @SpringBootTest(classes = {JdbcClinic.class, JdbcOwnerNames.class, OwnerController.class,
            OwnerRefConverter.class, PetController.class, VisitController.class, GatedController.class},
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {"spring.sql.init.mode=always", "spring.sql.init.schema-locations=classpath:ungated/schema.sql"})
    @interface OnJdbc {
    }

    /**
     * The clinic without JPA: Spring Boot then gives it a {@code DataSourceTransactionManager}, and its schema comes from
     * Spring Boot's SQL initialisation. Listed by the tests that use it, never found by a component scan.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = {"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
            "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration"})
    static class JdbcClinic {
    }

    /** The owners on Spring Data JPA: its transactions run on the {@code JpaTransactionManager}. */
    @Service
    static class JpaOwnerNames implements OwnerNames {

        private final CustomerRepository customers;

        JpaOwnerNames(CustomerRepository customers) {
            this.customers = customers;
        }

        @Override
        @Transactional
        public long create(String name) {
            return customers.save(new Customer(name)).getId();
        }

        @Override
        @Transactional(readOnly = true)
        public String nameOf(long id) {
            return customers.findById(id).orElseThrow().getName();
        }
    }

    /** The owners on plain JDBC: its transactions run on the {@code DataSourceTransactionManager}. */
    @Service
    static class JdbcOwnerNames implements OwnerNames {

        private final JdbcClient jdbc;

        JdbcOwnerNames(JdbcClient jdbc) {
            this.jdbc = jdbc;
        }

        @Override
        @Transactional
        public long create(String name) {
            return jdbc.sql("INSERT INTO ungated_owner (name) VALUES (?) RETURNING id").param(name)
                    .query(Long.class).single();
        }

        @Override
        @Transactional(readOnly = true)
        public String nameOf(long id) {
            return jdbc.sql("SELECT name FROM ungated_owner WHERE id = ?").param(id).query(String.class).single();
        }
    }

    /** The owner's page: MVC loads the owner before the gated handler runs, as PetClinic's controllers do. */
    @RestController
    @DbBulkhead("clinic")
    static class OwnerController {

        private final OwnerNames owners;

        OwnerController(OwnerNames owners) {
            this.owners = owners;
        }

        @ModelAttribute("ownerName")
        public String loadOwner(@PathVariable long ownerId) {
            return owners.nameOf(ownerId);
        }

        @GetMapping("/owners/{ownerId}")
        public String show(@ModelAttribute("ownerName") String ownerName, @PathVariable long ownerId) {
            return ownerName + "=" + owners.nameOf(ownerId);
        }
    }

    /** An owner bound from the path by {@link OwnerRefConverter}, before the handler runs. */
    record OwnerRef(long id, String name) {
    }

    /** Loads the owner a path names, as PetClinic's formatter of pet types does. */
    @Component
    static class OwnerRefConverter implements Converter<String, OwnerRef> {

        private final OwnerNames owners;

        OwnerRefConverter(OwnerNames owners) {
            this.owners = owners;
        }

        @Override
        public OwnerRef convert(String id) {
            long owner = Long.parseLong(id);
            return new OwnerRef(owner, owners.nameOf(owner));
        }
    }

    @RestController
    @DbBulkhead("clinic")
    static class PetController {

        @GetMapping("/pets/{owner}")
        public String pets(@PathVariable OwnerRef owner) {
            return owner.name();
        }
    }

    /** A controller nobody gated. */
    @RestController
    static class VisitController {

        private final OwnerNames owners;

        VisitController(OwnerNames owners) {
            this.owners = owners;
        }

        @GetMapping("/visits/{ownerId}")
        String visits(@PathVariable long ownerId) {
            return owners.nameOf(ownerId);
        }
    }

    /** A gated controller whose only database work is inside its handler. */
    @RestController
    @DbBulkhead("clinic")
    static class GatedController {

        private final OwnerNames owners;

        GatedController(OwnerNames owners) {
            this.owners = owners;
        }

        @GetMapping("/gated/{ownerId}")
        public String gated(@PathVariable long ownerId) {
            return owners.nameOf(ownerId);
        }
    }
}
