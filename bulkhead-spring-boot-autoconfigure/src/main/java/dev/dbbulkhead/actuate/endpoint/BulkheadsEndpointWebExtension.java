package dev.dbbulkhead.actuate.endpoint;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint.WorkloadDescriptor;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@code dbbulkheads} endpoint over HTTP: resizing an unknown workload answers 404, as reading one does (a
 * write operation's empty answer would otherwise be a 204 that looks like success).
 */
@EndpointWebExtension(endpoint = BulkheadsEndpoint.class)
public class BulkheadsEndpointWebExtension {

    private final BulkheadsEndpoint endpoint;

    public BulkheadsEndpointWebExtension(BulkheadsEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** {@link BulkheadsEndpoint#resize}, with HTTP 404 for an unknown workload. */
    @WriteOperation
    public WebEndpointResponse<WorkloadDescriptor> resize(@Selector String name, @Nullable Integer maxConcurrent,
                                                @Nullable Integer maxQueued) {
        WorkloadDescriptor resized = endpoint.resize(name, maxConcurrent, maxQueued);
        return resized == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
                : new WebEndpointResponse<>(resized);
    }
}
