package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Runs the health endpoint's operations — over HTTP, JMX and the probes' paths alike — outside the gates, marked
 * where they begin: the DataSource health indicator's borrow is recognised without reading its stack, and neither
 * waits for a workload's place nor is refused by one. A probe the gates refused would report the database down when
 * only the application is busy.
 */
public final class HealthEndpointOutsideGates implements OperationInvokerAdvisor {

    /** The rule the health endpoint's borrows are counted under: the indicator's package, as a stack read names it. */
    public static final String RULE = "org.springframework.boot.jdbc.health";

    private static final EndpointId HEALTH = EndpointId.of("health");

    @Override
    public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
                                  OperationInvoker invoker) {
        if (!HEALTH.equals(endpointId)) {
            return invoker;
        }
        return context -> UngatedWork.allow(RULE, () -> invoker.invoke(context));
    }
}
