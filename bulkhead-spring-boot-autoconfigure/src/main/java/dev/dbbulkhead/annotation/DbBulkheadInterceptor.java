package dev.dbbulkhead.annotation;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodClassKey;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Admits a {@code @DbBulkhead} call through its workload's gate and runs the method in the admitted transaction
 * (or, with the gates turned off, only in the workload's transaction; see {@link DbBulkheadEntries}), with
 * {@code @Transactional}'s default rollback rules: a runtime exception or error rolls back, any other throwable commits. Either way the method's own result or throwable reaches the caller
 * unchanged.
 */
final class DbBulkheadInterceptor implements MethodInterceptor {

    private final Supplier<DbBulkheadEntries> entries;
    private final Map<MethodClassKey, TransactionOperations> transactions = new ConcurrentHashMap<>();

    DbBulkheadInterceptor(Supplier<DbBulkheadEntries> entries) {
        this.entries = entries;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        // The class the pointcut matched the call against: the target's own, which for a target that is itself a JDK
        // proxy (a Spring Data repository) is the proxy class, whose interfaces carry the annotations.
        Class<?> targetClass = invocation.getThis() != null ? invocation.getThis().getClass() : null;
        TransactionOperations template = transactions.computeIfAbsent(
                new MethodClassKey(invocation.getMethod(), targetClass),
                key -> entries.get().transactions(Objects.requireNonNull(
                        DbBulkheadDeclarations.workloadOf(invocation.getMethod(), targetClass),
                        "the workload of a method the pointcut matched")));
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
        private @Nullable Throwable throwable;
    }
}
