package dev.dbbulkhead.metrics;

import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.WorkloadRetries;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToDoubleFunction;

/**
 * The retries of each workload that has a retry budget, tagged {@code workload}: {@value #RETRIES}, tagged
 * {@code outcome} {@code granted} or {@code refused} (by the budget), and {@value #BALANCE}, the retries the budget
 * would grant now. Function meters that read the workload's counts, so that a retry records nothing on the meters'
 * account.
 */
public final class RetryMeterBinder implements MeterBinder {

    /** Counter of the retries of safe failures asked of the workload's budget, by outcome. */
    public static final String RETRIES = "db.bulkhead.retries";
    /** Gauge of the retries the workload's budget would grant now. */
    public static final String BALANCE = "db.bulkhead.retry.balance";

    private final BulkheadRegistry workloads;

    /** @param workloads the workloads whose retries are counted */
    public RetryMeterBinder(BulkheadRegistry workloads) {
        this.workloads = workloads;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String name : workloads.names()) {
            workloads.template(name).retries().ifPresent(retries -> bind(registry, name, retries));
        }
    }

    private static void bind(MeterRegistry registry, String workload, WorkloadRetries retries) {
        retries(registry, workload, retries, "granted", WorkloadRetries::granted);
        retries(registry, workload, retries, "refused", WorkloadRetries::refused);
        Gauge.builder(BALANCE, retries, each -> each.budget().balance())
                .tag("workload", workload)
                .description("Retries the workload's retry budget would grant now")
                .register(registry);
    }

    private static void retries(MeterRegistry registry, String workload, WorkloadRetries retries, String outcome,
                                ToDoubleFunction<WorkloadRetries> count) {
        FunctionCounter.builder(RETRIES, retries, count)
                .tag("workload", workload)
                .tag("outcome", outcome)
                .description("Retries of failures safe to retry asked of the workload's retry budget, by whether"
                        + " it granted them")
                .register(registry);
    }
}
