package dev.dbbulkhead.autoconfigure.web.servlet;

import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code db.bulkhead.request-deadline} sets a header, a budget or a path budget: without one no
 * request has a deadline, and no filter need look at any.
 */
final class RequestDeadlineConfigured extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("Request deadline configured");
        BulkheadProperties.RequestDeadline settings = Binder.get(context.getEnvironment())
                .bind("db.bulkhead.request-deadline", BulkheadProperties.RequestDeadline.class)
                .orElseGet(BulkheadProperties.RequestDeadline::new);
        boolean configured = !settings.getHeaders().isEmpty() || settings.getBudget() != null
                || !settings.getPaths().isEmpty();
        return configured ? ConditionOutcome.match(message.because("db.bulkhead.request-deadline is set"))
                : ConditionOutcome.noMatch(message.because("db.bulkhead.request-deadline sets nothing"));
    }
}
