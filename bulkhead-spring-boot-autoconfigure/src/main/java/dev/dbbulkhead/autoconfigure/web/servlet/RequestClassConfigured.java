package dev.dbbulkhead.autoconfigure.web.servlet;

import dev.dbbulkhead.web.servlet.BulkheadKeyResolver;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/**
 * Matches when something gives requests a class: a criticality header, a key header, keys from the principal or a
 * {@link BulkheadKeyResolver} bean. Without one no request is classified, and no filter need look at any.
 */
final class RequestClassConfigured extends AnyNestedCondition {

    RequestClassConfigured() {
        super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnProperty(prefix = "db.bulkhead.request-class", name = "criticality-header")
    static final class CriticalityHeader {
    }

    @ConditionalOnProperty(prefix = "db.bulkhead.request-class", name = "key-header")
    static final class KeyHeader {
    }

    @ConditionalOnProperty(prefix = "db.bulkhead.request-class", name = "key-from-principal", havingValue = "true")
    static final class KeyFromPrincipal {
    }

    @ConditionalOnBean(BulkheadKeyResolver.class)
    static final class KeyResolver {
    }
}
