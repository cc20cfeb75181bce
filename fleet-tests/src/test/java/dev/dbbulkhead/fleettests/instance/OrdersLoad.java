package dev.dbbulkhead.fleettests.instance;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The instance's load: callers running {@code SELECT pg_sleep(work)} through the {@code orders} workload's
 * {@link BulkheadTemplate} in a closed loop. Starts after the fleet membership and stops before it (the default
 * phase, above the membership's), so that a clean shutdown gives back a share no caller still uses. Every few
 * seconds it logs what it did, which the instance's log keeps for a reader of a failed run.
 */
@Component
class OrdersLoad implements SmartLifecycle {

    private static final Logger logger = LoggerFactory.getLogger(OrdersLoad.class);
    private static final long REPORT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long STOP_WAIT_MILLIS = 5_000;

    private final BulkheadTemplate orders;
    private final JdbcTemplate jdbc;
    private final LoadSettings settings;
    private final String work;
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> lastFailure = new AtomicReference<>("none");
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    OrdersLoad(BulkheadRegistry registry, JdbcTemplate jdbc, LoadSettings settings) {
        this.orders = registry.template("orders");
        this.jdbc = jdbc;
        this.settings = settings;
        this.work = "SELECT pg_sleep(" + settings.work().toMillis() / 1000.0 + ")";
    }

    @Override
    public void start() {
        running = true;
        for (int i = 0; i < settings.callers(); i++) {
            threads.add(Thread.ofVirtual().name("orders-load-" + i).start(this::callInALoop));
        }
        threads.add(Thread.ofVirtual().name("orders-load-report").start(this::reportInALoop));
    }

    @Override
    public void stop() {
        running = false;
        for (Thread thread : threads) {
            LockSupport.unpark(thread);
            try {
                thread.join(STOP_WAIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        report();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void callInALoop() {
        while (running) {
            try {
                orders.executeWithoutResult(status -> jdbc.execute(work));
                committed.incrementAndGet();
            } catch (BulkheadRejectedException rejected) {
                refused.incrementAndGet();
                LockSupport.parkNanos(settings.backOff().toNanos());
            } catch (RuntimeException failure) {
                // The database restarting or out of reach: counted, and the caller tries again after its back-off.
                failed.incrementAndGet();
                lastFailure.set(failure.toString());
                LockSupport.parkNanos(settings.backOff().toNanos());
            }
        }
    }

    private void reportInALoop() {
        while (running) {
            LockSupport.parkNanos(REPORT_NANOS);
            report();
        }
    }

    private void report() {
        logger.info("orders load: {} committed, {} refused by the gate, {} failed (last failure: {})",
                committed.get(), refused.get(), failed.get(), lastFailure.get());
    }
}
