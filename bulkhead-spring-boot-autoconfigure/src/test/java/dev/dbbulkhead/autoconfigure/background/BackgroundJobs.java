package dev.dbbulkhead.autoconfigure.background;

import dev.dbbulkhead.gate.RequestCommits;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jms.annotation.JmsListener;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Background work as applications write it, in a package of its own: each class is proxied, so what a test reads is
 * told through a {@link Probe} bean, never through a field of the proxy.
 */
public final class BackgroundJobs {

    private BackgroundJobs() {
    }

    /** What the jobs saw, and the latches that hold them. */
    public static final class Probe {

        public final CompletableFuture<Boolean> scheduledRunTracked = new CompletableFuture<>();
        public final CountDownLatch firstOperationDone = new CountDownLatch(1);
        public final CountDownLatch mayTakeSecond = new CountDownLatch(1);
        public final CompletableFuture<Integer> secondOperation = new CompletableFuture<>();
    }

    /** A job the scheduler runs once, at start-up, that only says whether its run is a unit of work. */
    public static class StartUpJob {

        private final Probe probe;

        public StartUpJob(Probe probe) {
            this.probe = probe;
        }

        @Scheduled(fixedDelay = 1, timeUnit = TimeUnit.DAYS)
        public void run() {
            probe.scheduledRunTracked.complete(RequestCommits.isTracked());
        }
    }

    /** A job the scheduler runs once, at start-up: two operations, with a pause between them that the test ends. */
    public static class TwoStepJob {

        private final Probe probe;
        private final JdbcTemplate jdbc;

        public TwoStepJob(Probe probe, JdbcTemplate jdbc) {
            this.probe = probe;
            this.jdbc = jdbc;
        }

        @Scheduled(fixedDelay = 1, timeUnit = TimeUnit.DAYS)
        public void archive() {
            try {
                jdbc.queryForObject("SELECT 1", Integer.class);
                probe.firstOperationDone.countDown();
                probe.mayTakeSecond.await();
                probe.secondOperation.complete(jdbc.queryForObject("SELECT 2", Integer.class));
            } catch (Throwable failure) {
                probe.secondOperation.completeExceptionally(failure);
            }
        }
    }

    /** Work called directly, never by a scheduler: its scheduled method has a disabled trigger. */
    public static class Reports {

        @Scheduled(cron = Scheduled.CRON_DISABLED)
        public int commitsSeen() {
            return RequestCommits.isTracked() ? RequestCommits.count() : -1;
        }

        @Async
        public CompletableFuture<String> mailed() {
            return CompletableFuture.completedFuture(Thread.currentThread().getName() + " " + RequestCommits.isTracked());
        }

        @JmsListener(destination = "orders")
        public boolean onOrder(String order) {
            return RequestCommits.isTracked();
        }

        public boolean plain() {
            return RequestCommits.isTracked();
        }
    }

    /** Background work that is transactional as well. */
    public static class TransactionalReports {

        @Async
        @Transactional
        public CompletableFuture<Boolean> mailed() {
            return CompletableFuture.completedFuture(RequestCommits.isTracked()
                    && TransactionSynchronizationManager.isActualTransactionActive());
        }

        @Scheduled(cron = Scheduled.CRON_DISABLED)
        @Transactional
        public boolean reconciled() {
            return RequestCommits.isTracked() && TransactionSynchronizationManager.isActualTransactionActive();
        }
    }

    /** A Quartz job that says whether its run is a unit of work, in its job data's {@code seen}. */
    public static class TrackedQuartzJob implements org.quartz.Job {

        @Override
        @SuppressWarnings("unchecked")
        public void execute(org.quartz.JobExecutionContext context) {
            ((CompletableFuture<Boolean>) context.getMergedJobDataMap().get("seen"))
                    .complete(RequestCommits.isTracked());
        }
    }

    /** A final class cannot be proxied: left as it is. */
    public static final class FinalJob {

        @Scheduled(cron = Scheduled.CRON_DISABLED)
        public boolean run() {
            return RequestCommits.isTracked();
        }
    }
}
