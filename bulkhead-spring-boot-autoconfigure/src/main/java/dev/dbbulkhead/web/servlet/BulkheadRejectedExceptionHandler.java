package dev.dbbulkhead.web.servlet;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import java.util.Map;
import java.util.Objects;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The answer to a {@link BulkheadRejectedException}: HTTP 503, a {@code Retry-After} header in whole seconds (with
 * the workload's jitter, {@link RetryAfter}) and a
 * problem-detail body naming only the workload and the reason: the refused operation did not run, so there is no
 * SQL, connection or stack trace to tell. When earlier operations of the same request had committed, the detail says
 * so — the request is part done and not safe to retry blindly — and the problem counts them in
 * {@value #COMMITTED_BEFORE}. A {@link DeadlineExceededException} (admitted, then out of its deadline, rolled back) gets the
 * same answer with reason {@value #DEADLINE_EXCEEDED}. Given ahead of the application's catch-all exception
 * handlers, wherever the failure surfaced in Spring MVC; an application's own {@code @ExceptionHandler} for
 * rejections or transaction timeouts is used instead. A bean of this type replaces it.
 */
public class BulkheadRejectedExceptionHandler {

    /**
     * The problem's property, present when above zero, that counts the operations of the refused request that had
     * committed before the refusal ({@link BulkheadRejectedException#committedBefore()}).
     */
    public static final String COMMITTED_BEFORE = "committedBefore";

    private static final String NOTHING_DONE = " nothing was done.";

    /** The {@code reason} of the problem answering a {@link DeadlineExceededException}. */
    public static final String DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED";

    private final Map<String, RetryAfter> retryAfterByWorkload;
    private final RetryAfter defaultRetryAfter;

    /**
     * @param retryAfterByWorkload the Retry-After of each configured workload, and its jitter
     * @param defaultRetryAfter    the Retry-After of any other workload
     */
    public BulkheadRejectedExceptionHandler(Map<String, RetryAfter> retryAfterByWorkload,
                                            RetryAfter defaultRetryAfter) {
        this.retryAfterByWorkload = Map.copyOf(retryAfterByWorkload);
        this.defaultRetryAfter = Objects.requireNonNull(defaultRetryAfter, "defaultRetryAfter");
    }

    /** The 503 answer to {@code rejection}: status, {@code Retry-After} and the problem detail. */
    public ResponseEntity<ProblemDetail> rejected(BulkheadRejectedException rejection) {
        // Each rule told apart: the caller's time ran short, or overload refused by which rule.
        String what = switch (rejection.reason()) {
            case INSUFFICIENT_TIME -> "could not finish the operation in what was left of its deadline, less than its"
                    + " operations usually take; nothing was done.";
            case SHED_BY_CRITICALITY -> "is overloaded and keeps its remaining places for more critical work;"
                    + " nothing was done.";
            case OVER_FAIR_SHARE -> "is full and the caller's key was the furthest over its fair share of it;"
                    + " nothing was done.";
            case PUSHED_OUT -> "is full and work that goes first (more critical, or of a request in progress) took"
                    + " this operation's place in its queue; nothing was done.";
            case BORROW_REFUSED -> "is overloaded and the places it may borrow are in use by their owners;"
                    + " nothing was done.";
            case SHUTTING_DOWN -> "is shutting down on this instance and takes no new work; nothing was done.";
            default -> "is overloaded; nothing was done.";
        };
        if (rejection.committedBefore() > 0) {
            return partDone(rejection, what);
        }
        return serviceUnavailable(rejection.workload(), rejection.reason().name(), what);
    }

    /**
     * The answer to a refusal after earlier operations of the request committed: each ran in a transaction of its own,
     * so the request is part done, and a client that retries it whole repeats them. Still 503 with Retry-After (the
     * workload is overloaded), but the detail says so instead of "nothing was done", and the problem counts them.
     */
    private ResponseEntity<ProblemDetail> partDone(BulkheadRejectedException rejection, String what) {
        String refused = what.endsWith(NOTHING_DONE) ? what.substring(0, what.length() - NOTHING_DONE.length()) : what;
        int committed = rejection.committedBefore();
        String detail = "The database workload '" + rejection.workload() + "' " + refused + " this operation did not"
                + " run, but earlier database work of this request was committed (" + committed + " operation"
                + (committed == 1 ? "" : "s") + "); it is not safe to retry this request blindly.";
        long retryAfterSeconds = retryAfterByWorkload.getOrDefault(rejection.workload(), defaultRetryAfter).draw();
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail);
        problem.setProperty("workload", rejection.workload());
        problem.setProperty("reason", rejection.reason().name());
        problem.setProperty(COMMITTED_BEFORE, committed);
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds))
                .body(problem);
    }

    /**
     * An admitted operation that ran out of its deadline: 503 with Retry-After too, as a deadline spent in the queue
     * is ({@code QUEUE_TIMEOUT}). The transaction rolled back, so a retry within a budget is safe, and Retry-After is
     * defined for 503 (not for 504, which names an upstream that failed to answer).
     */
    public ResponseEntity<ProblemDetail> deadlineExceeded(DeadlineExceededException exceeded) {
        return serviceUnavailable(exceeded.workload(), DEADLINE_EXCEEDED,
                "ran out of its deadline; the transaction was rolled back, nothing was written.");
    }

    private ResponseEntity<ProblemDetail> serviceUnavailable(String workload, String reason, String what) {
        long retryAfterSeconds = retryAfterByWorkload.getOrDefault(workload, defaultRetryAfter).draw();
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The database workload '" + workload + "' " + what
                        + " Retry after " + retryAfterSeconds + "s, within a retry budget.");
        problem.setProperty("workload", workload);
        problem.setProperty("reason", reason);
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds))
                .body(problem);
    }
}
