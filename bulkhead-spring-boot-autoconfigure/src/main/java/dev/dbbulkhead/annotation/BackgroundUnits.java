package dev.dbbulkhead.annotation;

import dev.dbbulkhead.gate.RequestCommits;
import java.lang.annotation.Annotation;
import java.util.List;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.util.ClassUtils;

/**
 * Each run of background work is a unit of work, as the starter's filter makes each HTTP request one: a scheduled
 * method's run ({@code @Scheduled}), an {@code @Async} method's task, a message listener method's message
 * ({@code @KafkaListener}, {@code @RabbitListener}, {@code @JmsListener}). Once its first operation was admitted, its
 * later ones are those of a unit in progress: they go before units not yet admitted, and a graceful shutdown lets them
 * finish instead of refusing them as new work. A run that begins inside a unit already tracked on its thread — a
 * scheduled method called from a request — is part of that unit.
 */
final class BackgroundUnits implements MethodInterceptor {

    /** The annotations of listener methods, by class name: none of their frameworks need be on the class path. */
    private static final List<String> LISTENERS = List.of("org.springframework.kafka.annotation.KafkaListener",
            "org.springframework.amqp.rabbit.annotation.RabbitListener",
            "org.springframework.jms.annotation.JmsListener");

    /** The methods whose calls begin a unit of background work: annotated on the method, or on its class for @Async. */
    static final Pointcut POINTCUT = pointcut(BackgroundUnits.class.getClassLoader());

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        if (RequestCommits.isTracked()) {
            return invocation.proceed();
        }
        try (RequestCommits.Scope unit = RequestCommits.track()) {
            return invocation.proceed();
        }
    }

    static Pointcut pointcut(@Nullable ClassLoader classLoader) {
        ComposablePointcut runs = new ComposablePointcut(methodsAnnotated(
                org.springframework.scheduling.annotation.Scheduled.class))
                .union(methodsAnnotated(org.springframework.scheduling.annotation.Schedules.class))
                .union(methodsAnnotated(org.springframework.scheduling.annotation.Async.class))
                .union(new AnnotationMatchingPointcut(org.springframework.scheduling.annotation.Async.class, true));
        for (String listener : LISTENERS) {
            if (ClassUtils.isPresent(listener, classLoader)) {
                runs.union(methodsAnnotated(annotation(listener, classLoader)));
            }
        }
        return runs;
    }

    private static Pointcut methodsAnnotated(Class<? extends Annotation> annotation) {
        return new AnnotationMatchingPointcut(null, annotation, true);
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Annotation> annotation(String name, @Nullable ClassLoader classLoader) {
        return (Class<? extends Annotation>) ClassUtils.resolveClassName(name, classLoader);
    }
}
