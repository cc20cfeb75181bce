package dev.dbbulkhead.autoconfigure.web.servlet;

import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code db.bulkhead.work.rules} holds an HTTP rule: without one no request names its workload, and no
 * filter need look at any. (A rule without a default workload fails start-up where the rules are read.)
 */
final class HttpWorkRulesConfigured extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("HTTP work rules configured");
        BulkheadProperties.Work work = Binder.get(context.getEnvironment())
                .bind("db.bulkhead.work", BulkheadProperties.Work.class).orElseGet(BulkheadProperties.Work::new);
        boolean configured = work.getRules().stream().anyMatch(rule -> rule.getHttp() != null);
        return configured ? ConditionOutcome.match(message.because("db.bulkhead.work.rules holds an http rule"))
                : ConditionOutcome.noMatch(message.because("db.bulkhead.work.rules holds no http rule"));
    }
}
