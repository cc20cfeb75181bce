package dev.dbbulkhead.retry;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * One workload's retry budget, shared by every thread that calls it, with the semantics of Finagle's
 * {@code TokenRetryBudget}: over a sliding window, the retries granted never exceed
 * {@code percentCanRetry × first attempts in the window + minRetriesPerSecond × window seconds}. Under overload
 * first attempts keep coming while retries are capped by them, so retries add at most that share to the load
 * however often each caller would retry.
 *
 * <p>The window is a ring of {@value #BUCKETS} buckets of a tenth of the window each, read from a monotonic clock;
 * a bucket leaves the window as a whole, so what is counted spans between nine and ten tenths of the window.
 * Memory stays the same whatever the traffic. {@link #recordFirstAttempt()} takes no lock and allocates nothing;
 * {@link #tryWithdraw()} is lock-free and exact: concurrent withdrawals never grant more than the bound. Nothing
 * here blocks or pins a virtual thread.
 */
public final class RetryBudget {

    /** Buckets in the window: Finagle's ten, so the window slides by a tenth of itself. */
    static final int BUCKETS = 10;

    /** The share is kept in millionths, so that the bound is integer arithmetic with no rounding drift. */
    private static final long MILLIONTHS = 1_000_000;

    private final RetryBudgetConfig config;
    private final LongSupplier nanoClock;
    private final long bucketNanos;
    private final long floor;
    private final long millionthsCanRetry;
    private final FirstAttemptCounts firstAttempts;
    private final AtomicReference<GrantedRetries> granted;

    /** A budget on the JVM's monotonic clock. */
    public RetryBudget(RetryBudgetConfig config) {
        this(config, System::nanoTime);
    }

    /** A budget on {@code nanoClock}, a monotonic reading in nanoseconds with an arbitrary origin. */
    RetryBudget(RetryBudgetConfig config, LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        // Exact: the window is whole milliseconds, and a tenth of a millisecond is whole nanoseconds.
        this.bucketNanos = config.window().toNanos() / BUCKETS;
        this.floor = config.minRetriesPerWindow();
        this.millionthsCanRetry = Math.round(config.percentCanRetry() * MILLIONTHS);
        long startEpoch = epochNow();
        this.firstAttempts = new FirstAttemptCounts(BUCKETS, startEpoch);
        this.granted = new AtomicReference<>(GrantedRetries.none(BUCKETS, startEpoch));
    }

    /** The configuration this budget enforces. */
    public RetryBudgetConfig config() {
        return config;
    }

    /** Deposits one first attempt: every operation calls this once, before its first try, retried or not. */
    public void recordFirstAttempt() {
        firstAttempts.record(epochNow());
    }

    /**
     * Asks for one retry.
     *
     * @return {@code true} when the retry is within the budget, and then it is counted against it; {@code false} when
     *         it is not, and then nothing is consumed: a refused retry leaves the budget as it was
     */
    public boolean tryWithdraw() {
        long now = epochNow();
        for (;;) {
            GrantedRetries before = granted.get();
            GrantedRetries current = before.at(now);
            if (current.total() >= allowedInWindowEndingAt(current.newestEpoch())) {
                return false;
            }
            if (granted.compareAndSet(before, current.plusOne())) {
                return true;
            }
            // Another thread granted a retry or moved the window in between: decide again on what it wrote.
        }
    }

    /**
     * For observation only: deciding on it and then withdrawing is a race, which {@link #tryWithdraw()} is not.
     *
     * @return how many retries {@link #tryWithdraw()} would grant now if nothing else happened; zero when the budget
     *         is spent, never negative (first attempts leaving the window can put the granted retries above what
     *         is still allowed)
     */
    public long balance() {
        GrantedRetries current = granted.get().at(epochNow());
        return Math.max(0, allowedInWindowEndingAt(current.newestEpoch()) - current.total());
    }

    private long allowedInWindowEndingAt(long newestEpoch) {
        // At most ten buckets of 2^32 first attempts times a million: below 2^63, so no overflow.
        return floor + firstAttempts.inWindowEndingAt(newestEpoch) * millionthsCanRetry / MILLIONTHS;
    }

    private long epochNow() {
        return Math.floorDiv(nanoClock.getAsLong(), bucketNanos);
    }
}
