package dev.dbbulkhead.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many threads on one budget, started together by a barrier: the retries granted never exceed the bound, and the
 * accounting is exact (granted plus balance is what the bound allows). The clock stands still, so the bound is known.
 */
class RetryBudgetConcurrencyTests {

    private static final int THREADS = 16;

    private final AtomicLong nanos = new AtomicLong();

    private RetryBudget budget(double percentCanRetry, int minRetriesPerSecond) {
        return new RetryBudget(RetryBudgetConfig.builder().percentCanRetry(percentCanRetry)
                .minRetriesPerSecond(minRetriesPerSecond).build(), nanos::get);
    }

    private static long runTogether(List<Callable<Long>> tasks) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (Callable<Long> task : tasks) {
                results.add(threads.submit(task));
            }
            long sum = 0;
            for (Future<Long> result : results) {
                sum += result.get();
            }
            return sum;
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void threadsWithdrawingTogetherAreGrantedExactlyTheBound() throws Exception {
        RetryBudget budget = budget(0.2, 10);
        for (int attempt = 0; attempt < 10_000; attempt++) {
            budget.recordFirstAttempt();
        }
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Callable<Long>> withdrawers = new ArrayList<>();
        for (int thread = 0; thread < THREADS; thread++) {
            withdrawers.add(() -> {
                start.await();
                long granted = 0;
                for (int ask = 0; ask < 1_000; ask++) {
                    if (budget.tryWithdraw()) {
                        granted++;
                    }
                }
                return granted;
            });
        }

        long granted = runTogether(withdrawers);

        assertThat(granted).as("100 from the floor and 20 %% of 10,000 first attempts, of 16,000 asked")
                .isEqualTo(2_100);
        assertThat(budget.balance()).isZero();
    }

    @Test
    void threadsDepositingAndWithdrawingAtOnceNeverExceedTheBound() throws Exception {
        RetryBudget budget = budget(0.2, 1);
        int depositors = THREADS / 2;
        int firstAttemptsEach = 20_000;
        CyclicBarrier start = new CyclicBarrier(THREADS);
        CountDownLatch depositsDone = new CountDownLatch(depositors);
        List<Callable<Long>> tasks = new ArrayList<>();
        for (int thread = 0; thread < depositors; thread++) {
            tasks.add(() -> {
                start.await();
                for (int attempt = 0; attempt < firstAttemptsEach; attempt++) {
                    budget.recordFirstAttempt();
                }
                depositsDone.countDown();
                return 0L;
            });
        }
        for (int thread = depositors; thread < THREADS; thread++) {
            tasks.add(() -> {
                start.await();
                long granted = 0;
                // Ask while first attempts arrive, then once more after the last of them: each refusal at the end
                // proves the budget spent, not merely behind.
                boolean lastRound;
                do {
                    lastRound = depositsDone.getCount() == 0;
                    while (budget.tryWithdraw()) {
                        granted++;
                    }
                } while (!lastRound);
                return granted;
            });
        }

        long granted = runTogether(tasks);

        long bound = 10 + depositors * firstAttemptsEach / 5;
        assertThat(granted).isLessThanOrEqualTo(bound);
        assertThat(granted + budget.balance()).as("nothing lost, nothing invented").isEqualTo(bound);
        assertThat(budget.balance()).isZero();
    }
}
