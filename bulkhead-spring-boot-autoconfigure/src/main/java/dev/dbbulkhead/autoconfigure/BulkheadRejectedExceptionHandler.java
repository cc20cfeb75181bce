package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.BulkheadRejectedException;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The answer to a {@link BulkheadRejectedException}: HTTP 503, a {@code Retry-After} header in whole seconds and a
 * problem-detail body naming only the workload and the reason: nothing ran, so there is no SQL, connection or stack
 * trace to tell. Given ahead of the application's catch-all exception handlers, wherever the rejection surfaced in
 * Spring MVC; an application's own {@code @ExceptionHandler} for rejections is used instead. A bean of this type
 * replaces it.
 */
public class BulkheadRejectedExceptionHandler {

    private final Map<String, Long> retryAfterSecondsByWorkload;
    private final long defaultRetryAfterSeconds;

    /**
     * @param retryAfterSecondsByWorkload the Retry-After of each configured workload, in whole seconds
     * @param defaultRetryAfterSeconds    the Retry-After of any other workload
     */
    public BulkheadRejectedExceptionHandler(Map<String, Long> retryAfterSecondsByWorkload,
                                            long defaultRetryAfterSeconds) {
        this.retryAfterSecondsByWorkload = Map.copyOf(retryAfterSecondsByWorkload);
        this.defaultRetryAfterSeconds = defaultRetryAfterSeconds;
    }

    /** The 503 answer to {@code rejection}: status, {@code Retry-After} and the problem detail. */
    public ResponseEntity<ProblemDetail> rejected(BulkheadRejectedException rejection) {
        long retryAfterSeconds = retryAfterSecondsByWorkload.getOrDefault(rejection.workload(),
                defaultRetryAfterSeconds);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The database workload '" + rejection.workload() + "' is overloaded; nothing was done."
                        + " Retry after " + retryAfterSeconds + "s, within a retry budget.");
        problem.setProperty("workload", rejection.workload());
        problem.setProperty("reason", rejection.reason().name());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds))
                .body(problem);
    }
}
