package dev.dbbulkhead.benchmarks.alternatives;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;

/** A minimal Spring context whose only bean is {@link ConcurrencyLimitedCalls}, proxied as in an application. */
public final class SpringResilience implements AutoCloseable {

    private final AnnotationConfigApplicationContext context;
    private final ConcurrencyLimitedCalls calls;

    public SpringResilience() {
        context = new AnnotationConfigApplicationContext(ResilientMethodsConfiguration.class);
        calls = context.getBean(ConcurrencyLimitedCalls.class);
    }

    /** The proxied bean. */
    public ConcurrencyLimitedCalls calls() {
        return calls;
    }

    @Override
    public void close() {
        context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableResilientMethods
    static class ResilientMethodsConfiguration {

        @Bean
        ConcurrencyLimitedCalls concurrencyLimitedCalls() {
            return new ConcurrencyLimitedCalls();
        }
    }
}
