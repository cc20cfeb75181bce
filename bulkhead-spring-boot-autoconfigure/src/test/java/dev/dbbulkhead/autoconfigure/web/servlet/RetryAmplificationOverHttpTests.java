package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Clients that retry on 503 under a sustained 10× overload, over real HTTP on PostgreSQL: with a retry budget the
 * load they offer stays within 1.2 × their first attempts; without one every refused request comes back until its
 * attempts run out. Workload {@code checkout}: B = 2, Q = 2, a queue wait no test outlasts.
 *
 * <p>The overload comes in rounds, each held still by a latch: four requests take the gate (two run, held inside
 * their transaction; two queue behind them), then 36 more arrive, ten times what the gate serves in the round, and
 * every attempt of theirs, first or retried, meets a full gate. Only then are the four let go. So every count is
 * fixed by the rounds alone, not by timing: there is no backoff between attempts, as when a retry comes back cannot
 * change the answer of a gate that stays full.
 *
 * <p>The budget's arithmetic: {@value #ROUNDS} rounds of {@value #OFFERED_PER_ROUND} first attempts are 400;
 * the default share of 10 % grants 40 retries and a floor of 1 a second over a 20 s window 20 more, so at most 460
 * requests against the 480 that 1.2 × allows. The window slides, so on a machine slow enough for the rounds to take
 * longer than 18 s a second floor could be granted: 480, still within the bound; it would take over 36 s.
 */
@SpringBootTest(classes = RetryAmplificationOverHttpTests.HeldCheckout.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.workloads.checkout.max-concurrent=2", "db.bulkhead.workloads.checkout.max-queued=2",
                "db.bulkhead.workloads.checkout.queue-wait=1h"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RetryAmplificationOverHttpTests {

    static final int RUNNING = 2;
    static final int QUEUED = 2;
    static final int SERVED_PER_ROUND = RUNNING + QUEUED;
    static final int OFFERED_PER_ROUND = 10 * SERVED_PER_ROUND;
    static final int ROUNDS = 10;
    static final int MAX_ATTEMPTS = 3;

    /** The budget of the clients: the default share, with a floor small against 400 first attempts. */
    static final RetryBudgetConfig BUDGET = RetryBudgetConfig.builder().minRetriesPerSecond(1)
            .window(Duration.ofSeconds(20)).build();

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    HeldCheckout.Checkout checkout;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Test
    void withARetryBudgetTheOfferedLoadStaysWithinOnePointTwoTimesTheFirstAttempts() throws Exception {
        RetryBudget budget = new RetryBudget(BUDGET);
        Tally tally = overload(new Retries(budget::recordFirstAttempt, budget::tryWithdraw));

        assertThat(tally.firstAttempts.sum()).isEqualTo(ROUNDS * OFFERED_PER_ROUND);
        assertThat(tally.sent.sum()).as("requests sent, against 1.2 × %d first attempts", tally.firstAttempts.sum())
                .isLessThanOrEqualTo(tally.firstAttempts.sum() * 12 / 10);
        assertThat(tally.retries()).as("the floor at least: the budget granted retries, it did not only refuse")
                .isGreaterThanOrEqualTo(BUDGET.minRetriesPerWindow());
        assertServedAndCounted(tally);
    }

    @Test
    void withoutARetryBudgetEveryRefusedRequestIsSentAsOftenAsItsAttemptsAllow() throws Exception {
        Tally tally = overload(new Retries(() -> { }, () -> true));

        long refusedRequests = ROUNDS * (OFFERED_PER_ROUND - SERVED_PER_ROUND);
        assertThat(tally.firstAttempts.sum()).isEqualTo(ROUNDS * OFFERED_PER_ROUND);
        assertThat(tally.sent.sum()).as("every refused request sent %d times", MAX_ATTEMPTS)
                .isEqualTo(ROUNDS * SERVED_PER_ROUND + refusedRequests * MAX_ATTEMPTS);
        assertThat(tally.sent.sum()).as("2.8 × the first attempts, more than 1.2 × allows")
                .isGreaterThan(tally.firstAttempts.sum() * 12 / 10);
        assertServedAndCounted(tally);
    }

    private void assertServedAndCounted(Tally tally) {
        assertThat(tally.unexpected).isEmpty();
        assertThat(tally.served.sum()).as("the gate served B + Q a round").isEqualTo(ROUNDS * SERVED_PER_ROUND);
        assertThat(tally.sent.sum()).as("every request sent is one the server saw").isEqualTo(tally.arrived);
        assertThat(tally.sent.sum()).isEqualTo(tally.served.sum() + tally.refused.sum());
    }

    /** {@value #ROUNDS} rounds of overload, each client retrying on 503 as {@code retries} lets it. */
    private Tally overload(Retries retries) throws Exception {
        Tally tally = new Tally();
        long arrivedBefore = checkout.arrived.sum();
        AdmissionGate gate = registry.template("checkout").gate();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int round = 0; round < ROUNDS; round++) {
                Hold hold = checkout.newHold();
                List<Future<?>> served = start(clients, SERVED_PER_ROUND, retries, tally);
                hold.running.await();
                Await.until(QUEUED + " queued behind the held", () -> gate.waiting() == QUEUED);

                finish(start(clients, OFFERED_PER_ROUND - SERVED_PER_ROUND, retries, tally));
                hold.release.countDown();
                finish(served);
            }
        }
        tally.arrived = checkout.arrived.sum() - arrivedBefore;
        return tally;
    }

    private List<Future<?>> start(ExecutorService clients, int count, Retries retries, Tally tally) {
        List<Future<?>> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            started.add(clients.submit(() -> request(retries, tally)));
        }
        return started;
    }

    private static void finish(List<Future<?>> clients) throws Exception {
        for (Future<?> client : clients) {
            client.get();
        }
    }

    /** One client's request: sent, and on a 503 sent again while attempts are left and {@code retries} allows. */
    private Void request(Retries retries, Tally tally) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/checkout")).GET().build();
        tally.firstAttempts.increment();
        retries.firstAttempt().run();
        for (int attempt = 1; ; attempt++) {
            tally.sent.increment();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                tally.served.increment();
                return null;
            }
            if (response.statusCode() != 503 || response.headers().firstValue("Retry-After").isEmpty()) {
                tally.unexpected.add(response.statusCode() + " " + response.body());
                return null;
            }
            tally.refused.increment();
            if (attempt == MAX_ATTEMPTS || !retries.mayRetry().getAsBoolean()) {
                return null;
            }
        }
    }

    /**
     * What a client does around its attempts: with a budget, deposits and withdrawals; without, nothing.
     *
     * @param firstAttempt run once per request, before its first attempt
     * @param mayRetry     asked before each retry; {@code false} gives the request up
     */
    record Retries(Runnable firstAttempt, BooleanSupplier mayRetry) {
    }

    /** The clients' counts, summed over the run. */
    static final class Tally {

        final LongAdder firstAttempts = new LongAdder();
        final LongAdder sent = new LongAdder();
        final LongAdder served = new LongAdder();
        final LongAdder refused = new LongAdder();
        final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
        /** Requests the server saw, counted there. */
        long arrived;

        long retries() {
            return sent.sum() - firstAttempts.sum();
        }
    }

    /** One round's latches: the operations running in it, and their release. */
    static final class Hold {

        final CountDownLatch running = new CountDownLatch(RUNNING);
        final CountDownLatch release = new CountDownLatch(1);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(HeldCheckout.Checkout.class)
    static class HeldCheckout {

        /** An operation that holds its permit, inside its transaction, until its round's hold is released. */
        @RestController
        static class Checkout {

            private final BulkheadRegistry registry;
            private final JdbcTemplate jdbc;
            final LongAdder arrived = new LongAdder();
            private volatile Hold hold = new Hold();

            Checkout(BulkheadRegistry registry, JdbcTemplate jdbc) {
                this.registry = registry;
                this.jdbc = jdbc;
            }

            /** A new round: its requests hold their permits until it is released. */
            Hold newHold() {
                Hold next = new Hold();
                hold = next;
                return next;
            }

            @GetMapping("/checkout")
            Integer checkout() {
                arrived.increment();
                return registry.template("checkout").execute(status -> {
                    Integer answer = jdbc.queryForObject("SELECT 42", Integer.class);
                    Hold current = hold;
                    current.running.countDown();
                    try {
                        current.release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("Interrupted while held", e);
                    }
                    return answer;
                });
            }
        }
    }
}
