package dev.dbbulkhead.annotation;

import dev.dbbulkhead.gate.OperationClass;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.MethodClassKey;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.interceptor.DefaultTransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Admits a {@code @DbBulkhead} call through its workload's gate and runs the method in the admitted transaction
 * (or, with the gates turned off, only in the workload's transaction; see {@link DbBulkheadEntries}). The
 * transaction is the workload's, refined by the method's {@code @DbBulkhead(readOnly)} and its own
 * {@code @Transactional} ({@link AdmittedDefinitions}), whose interceptor, running inside this one, joins it. The
 * method's rollback rules decide, {@code @Transactional}'s defaults without one: a runtime exception or error rolls
 * back, any other throwable commits. Either way the method's own result or throwable reaches the caller unchanged.
 */
final class DbBulkheadInterceptor implements MethodInterceptor {

    /** {@code @Transactional}'s default rollback rules, for a method that declares none. */
    private static final TransactionAttribute DEFAULT_RULES = new DefaultTransactionAttribute();

    private final Supplier<DbBulkheadEntries> entries;
    /**
     * The entry of each method, for the target class it was first called on: looked up by the method alone, so that
     * a call allocates no key. A method called on several target classes (one interface method, several beans) finds
     * the others' entries in {@link #entriesByMethodAndClass}.
     */
    private final Map<Method, Entry> entriesByMethod = new ConcurrentHashMap<>();
    private final Map<MethodClassKey, Entry> entriesByMethodAndClass = new ConcurrentHashMap<>();

    DbBulkheadInterceptor(Supplier<DbBulkheadEntries> entries) {
        this.entries = entries;
    }

    /**
     * How calls of one method on one target class run: in which transactions, and which of its throwables roll them
     * back.
     */
    private record Entry(@Nullable Class<?> targetClass, TransactionOperations transactions,
                         TransactionAttribute rules, boolean retried, @Nullable OperationClassifier classifier) {
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Entry entry = entryOf(invocation);
        OperationClassifier classifier = entry.classifier();
        if (classifier == null) {
            return run(entry, invocation);
        }
        // Bound around the admission (and every retry's), on the calling thread, and unbound however the call ends.
        try (OperationClass.Scope bound = classifier.bind(invocation)) {
            return run(entry, invocation);
        }
    }

    private @Nullable Object run(Entry entry, MethodInvocation invocation) throws Throwable {
        AdmittedCall call = new AdmittedCall(invocation, entry.rules(), entry.retried());
        Object result;
        try {
            result = entry.transactions().execute(call);
        } catch (RuntimeException | Error endFailure) {
            Throwable thrown = call.throwable;
            if (thrown == null) {
                throw endFailure;
            }
            // The method's own throwable stays first where the transaction was to roll back for it anyway.
            if (call.rolledBack) {
                thrown.addSuppressed(endFailure);
                throw thrown;
            }
            endFailure.addSuppressed(thrown);
            throw endFailure;
        }
        if (call.throwable != null) {
            throw call.throwable;
        }
        return result;
    }

    private Entry entryOf(MethodInvocation invocation) {
        // The class the pointcut matched the call against: the target's own, which for a target that is itself a JDK
        // proxy (a Spring Data repository) is the proxy class, whose interfaces carry the annotations.
        Class<?> targetClass = invocation.getThis() != null ? invocation.getThis().getClass() : null;
        Method method = invocation.getMethod();
        Entry entry = entriesByMethod.get(method);
        if (entry != null && entry.targetClass() == targetClass) {
            return entry;
        }
        Entry ofClass = entriesByMethodAndClass.computeIfAbsent(new MethodClassKey(method, targetClass),
                key -> entry(invocation, targetClass));
        entriesByMethod.putIfAbsent(method, ofClass);
        return ofClass;
    }

    private Entry entry(MethodInvocation invocation, @Nullable Class<?> targetClass) {
        Method method = invocation.getMethod();
        DbBulkhead declaration = Objects.requireNonNull(DbBulkheadDeclarations.declarationOf(method, targetClass),
                "the @DbBulkhead of a method the pointcut matched");
        // The chain this call goes through: this advisor's proxy, whose advisors and targets hold the transaction
        // interceptor that will run inside the gate.
        Object intercepted = invocation instanceof ProxyMethodInvocation proxied ? proxied.getProxy()
                : invocation.getThis();
        DeclaredTransactions.Declared declared = intercepted == null ? null
                : DeclaredTransactions.of(intercepted, method, targetClass);
        DbBulkheadEntries ways = entries.get();
        String workload = declaration.value();
        TransactionDefinition definition = AdmittedDefinitions.of(ways.transactionDefinition(workload),
                declared != null ? declared.attribute() : null, declaration.readOnly());
        return new Entry(targetClass, ways.transactions(workload, definition),
                declared != null ? declared.attribute() : DEFAULT_RULES, ways.retries(workload),
                ways.classifies(workload) ? OperationClassifier.of(declaration) : null);
    }

    /**
     * One call run as the admitted transaction's callback, keeping the throwable the callback could not throw and
     * whether it rolled the call back: one object per call, the callback and its outcome together.
     */
    private static final class AdmittedCall implements TransactionCallback<@Nullable Object> {

        private final MethodInvocation invocation;
        private final TransactionAttribute rules;
        /**
         * For a workload that retries: the invocation as it was before the first attempt proceeded, cloned again for
         * each retry, since an invocation that has proceeded once would skip the rest of the advice chain.
         */
        private final @Nullable ProxyMethodInvocation beforeFirstAttempt;
        private int attempts;
        private @Nullable Throwable throwable;
        private boolean rolledBack;

        AdmittedCall(MethodInvocation invocation, TransactionAttribute rules, boolean retried) {
            this.invocation = invocation;
            this.rules = rules;
            this.beforeFirstAttempt = retried && invocation instanceof ProxyMethodInvocation proxied
                    ? (ProxyMethodInvocation) proxied.invocableClone() : null;
        }

        private @Nullable Object proceed() throws Throwable {
            ProxyMethodInvocation pristine = beforeFirstAttempt;
            if (attempts++ == 0 || pristine == null) {
                return invocation.proceed();
            }
            return pristine.invocableClone().proceed();
        }

        @Override
        public @Nullable Object doInTransaction(TransactionStatus status) {
            try {
                return proceed();
            } catch (RuntimeException | Error unchecked) {
                if (rules.rollbackOn(unchecked)) {
                    throw unchecked;
                }
                throwable = unchecked;
                return null;
            } catch (Throwable checked) {
                // A TransactionCallback cannot throw it: keep it, let the transaction end by the rules, rethrow after.
                throwable = checked;
                if (rules.rollbackOn(checked)) {
                    rolledBack = true;
                    status.setRollbackOnly();
                }
                return null;
            }
        }
    }
}
