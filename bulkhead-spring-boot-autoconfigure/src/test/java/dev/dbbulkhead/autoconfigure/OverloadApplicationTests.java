package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.autoconfigure.BulkheadTestApplication.Hold;
import dev.dbbulkhead.autoconfigure.BulkheadTestApplication.Overload;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Overload of {@code @DbBulkhead} methods from many virtual threads, with the admitted work held on a latch so
 * that every admission decision is taken while the permits are held: the split of outcomes is exact.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class OverloadApplicationTests extends ApplicationTestSupport {

    private static final int CALLERS = 500;

    @Autowired
    Overload overload;

    @Autowired
    BulkheadRegistry registry;

    @Test
    void fiveHundredCallsOnReportsAdmitExactlyTwoAndRejectTheRestAtOnceWithoutAConnectionOrATransaction()
            throws InterruptedException {
        Hold hold = new Hold(2);
        int transactionsBefore = transactions.begun();

        Storm storm = new Storm(CALLERS - 2);
        storm.start(CALLERS, () -> overload.reports(hold));
        hold.entered.await();
        storm.rejected.await();

        assertThat(activeConnections()).as("connections lent while the rejections happened").isEqualTo(2);
        assertThat(transactions.begun() - transactionsBefore).as("transactions begun").isEqualTo(2);
        hold.release.countDown();
        storm.finish();

        assertThat(storm.unexpected).isEmpty();
        assertThat(storm.succeeded).hasValue(2);
        assertThat(storm.reasons).containsExactly(Map.entry(RejectionReason.ADMISSION_FULL, CALLERS - 2));
        assertThat(hold.mostRunning).hasValue(2);
        assertThat(transactions.begun() - transactionsBefore).isEqualTo(2);
        assertThat(activeConnections()).isZero();
    }

    @Test
    void fiveHundredCallsOnAQueueingWorkloadRunBQueueQAndRejectTheRestAndTheQueuedRunLater()
            throws InterruptedException {
        Hold hold = new Hold(8);
        int transactionsBefore = transactions.begun();

        Storm storm = new Storm(CALLERS - 8 - 16);
        storm.start(CALLERS, () -> overload.queued(hold));
        hold.entered.await();
        storm.rejected.await();

        assertThat(registry.template("queued").gate().waiting()).as("admitted and waiting").isEqualTo(16);
        assertThat(activeConnections()).isEqualTo(8);
        assertThat(transactions.begun() - transactionsBefore).isEqualTo(8);
        hold.release.countDown();
        storm.finish();

        assertThat(storm.unexpected).isEmpty();
        assertThat(storm.succeeded).hasValue(8 + 16);
        assertThat(storm.reasons).containsExactly(Map.entry(RejectionReason.ADMISSION_FULL, CALLERS - 8 - 16));
        assertThat(hold.mostRunning).hasValue(8);
        assertThat(transactions.begun() - transactionsBefore).isEqualTo(8 + 16);
    }

    @Test
    void ordersQueuesSixteenBehindEightRunningAndEachTimesOutAfterItsQueueWait() throws InterruptedException {
        Hold hold = new Hold(8);
        int transactionsBefore = transactions.begun();
        Storm running = new Storm(0);
        running.start(8, () -> overload.orders(hold));
        hold.entered.await();

        Storm queued = new Storm(16);
        queued.start(16, () -> overload.orders(hold));
        queued.rejected.await();

        assertThat(activeConnections()).isEqualTo(8);
        assertThat(transactions.begun() - transactionsBefore).isEqualTo(8);
        hold.release.countDown();
        running.finish();
        queued.finish();

        assertThat(running.unexpected).isEmpty();
        assertThat(queued.unexpected).isEmpty();
        assertThat(running.succeeded).hasValue(8);
        assertThat(queued.reasons).containsExactly(Map.entry(RejectionReason.QUEUE_TIMEOUT, 16));
    }

    /** Calls from virtual threads, sorted by how they ended. */
    private static final class Storm {

        final CountDownLatch rejected;
        final AtomicInteger succeeded = new AtomicInteger();
        final Map<RejectionReason, Integer> reasons = new EnumMap<>(RejectionReason.class);
        final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        private final Queue<RejectionReason> rejections = new ConcurrentLinkedQueue<>();
        private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

        Storm(int expectedRejections) {
            this.rejected = new CountDownLatch(expectedRejections);
        }

        void start(int callers, Call call) {
            for (int i = 0; i < callers; i++) {
                threads.submit(() -> {
                    try {
                        call.run();
                        succeeded.incrementAndGet();
                    } catch (BulkheadRejectedException rejection) {
                        rejections.add(rejection.reason());
                        rejected.countDown();
                    } catch (Throwable failure) {
                        unexpected.add(failure);
                        // Counted so that the test fails on its assertions instead of waiting forever.
                        rejected.countDown();
                    }
                });
            }
        }

        /** Waits for every call to end. */
        void finish() {
            threads.close();
            rejections.forEach(reason -> reasons.merge(reason, 1, Integer::sum));
        }
    }

    @FunctionalInterface
    private interface Call {
        Object run() throws Exception;
    }
}
