package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.spring.BulkheadRegistry;
import dev.dbbulkhead.spring.BulkheadTemplate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.core.MethodClassKey;

/**
 * Admits a {@code @DbBulkhead} call through its workload's {@link BulkheadTemplate} and runs the method in the
 * admitted transaction, with {@code @Transactional}'s default rollback rules: a runtime exception or error
 * rolls back, any other throwable commits. Either way the method's own result or throwable reaches the caller
 * unchanged.
 */
final class DbBulkheadInterceptor implements MethodInterceptor {

    private final Supplier<BulkheadRegistry> registry;
    private final Map<MethodClassKey, BulkheadTemplate> templates = new ConcurrentHashMap<>();

    DbBulkheadInterceptor(Supplier<BulkheadRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        // The class the pointcut matched the call against: the target's own, which for a target that is itself a JDK
        // proxy (a Spring Data repository) is the proxy class, whose interfaces carry the annotations.
        Class<?> targetClass = invocation.getThis() != null ? invocation.getThis().getClass() : null;
        BulkheadTemplate template = templates.computeIfAbsent(new MethodClassKey(invocation.getMethod(), targetClass),
                key -> registry.get().template(DbBulkheadDeclarations.workloadOf(invocation.getMethod(), targetClass)));
        CheckedOutcome checked = new CheckedOutcome();
        Object result;
        try {
            result = template.execute(status -> {
                try {
                    return invocation.proceed();
                } catch (RuntimeException | Error rollsBack) {
                    throw rollsBack;
                } catch (Throwable commits) {
                    // A TransactionCallback cannot throw it; keep it, let the transaction commit, rethrow after.
                    checked.throwable = commits;
                    return null;
                }
            });
        } catch (RuntimeException | Error commitFailure) {
            if (checked.throwable != null) {
                commitFailure.addSuppressed(checked.throwable);
            }
            throw commitFailure;
        }
        if (checked.throwable != null) {
            throw checked.throwable;
        }
        return result;
    }

    /** The checked throwable of one call, carried out of the transaction callback. */
    private static final class CheckedOutcome {
        private Throwable throwable;
    }
}
