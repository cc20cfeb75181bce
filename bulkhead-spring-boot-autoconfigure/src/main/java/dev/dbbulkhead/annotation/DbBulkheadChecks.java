package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.expression.ParseException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * The start-up checks of one bean's {@code @DbBulkhead} methods: each can be intercepted, names a configured
 * workload, keeps its work inside the admitted region and, where it is transactional too, declares a transaction the
 * admitted one can be. Every refused method of the bean is named in one report.
 */
final class DbBulkheadChecks {

    /** Why each propagation that cannot be the admitted transaction's is refused on a gated method. */
    private static final Map<Integer, String> REFUSED_PROPAGATIONS = Map.of(
            TransactionDefinition.PROPAGATION_REQUIRES_NEW, "would suspend it and begin another, taking a second"
                    + " connection while holding the first",
            TransactionDefinition.PROPAGATION_NOT_SUPPORTED, "would suspend it and run the method outside it while"
                    + " its connection is held",
            TransactionDefinition.PROPAGATION_NEVER, "fails on every call, because that transaction is active",
            TransactionDefinition.PROPAGATION_NESTED, "would make the method a savepoint inside it rather than its"
                    + " transaction (and fails under JpaTransactionManager, which nests no transactions by default)");

    private final Supplier<DbBulkheadEntries> entries;

    DbBulkheadChecks(Supplier<DbBulkheadEntries> entries) {
        this.entries = entries;
    }

    /**
     * A method of the bean, as the report names it.
     *
     * @param declaringType the type the report names: the bean's class, or the interface of a JDK proxy
     */
    record Candidate(Class<?> declaringType, Method method) {
    }

    /**
     * @param bean        the object the advisor will intercept
     * @param targetClass the class the advisor matches the methods against at run time
     * @throws DbBulkheadDeclarationException naming every refused method, when there is one
     * @throws RuntimeException               what {@link DbBulkheadEntries#check} threw first, when no declaration is
     *                                        refused
     */
    void check(Object bean, String beanName, Class<?> targetClass, List<Candidate> candidates,
               ListableBeanFactory beanFactory) {
        List<DbBulkheadDeclarationException> refusals = new ArrayList<>();
        RuntimeException configurationFailure = null;
        // By name, so that a report lists the methods in the same order on every run (reflection promises none).
        List<Candidate> byName = candidates.stream().sorted(Comparator.comparing((Candidate candidate) ->
                candidate.method().getName()).thenComparing(candidate ->
                Arrays.toString(candidate.method().getParameterTypes()))).toList();
        for (Candidate candidate : byName) {
            Method method = candidate.method();
            String workload = DbBulkheadDeclarations.workloadOf(method, targetClass);
            if (workload == null) {
                continue;
            }
            DeclaredTransactions.Declared declared = DeclaredTransactions.of(bean, method, targetClass);
            DbBulkheadDeclarationException refusal = declarationRefusal(beanName, targetClass, candidate, workload,
                    declared);
            if (refusal == null) {
                refusal = keyRefusal(beanName, targetClass, method, workload);
            }
            if (refusal == null) {
                try {
                    entries.get().check(beanName, candidate.declaringType(), method, workload);
                } catch (RuntimeException unknownWorkload) {
                    // The configuration's fault, not the declaration's: reported when no declaration is refused.
                    configurationFailure = configurationFailure != null ? configurationFailure : unknownWorkload;
                    continue;
                }
                refusal = declared == null ? null
                        : transactionManagerRefusal(beanName, candidate, workload, declared, beanFactory);
            }
            if (refusal != null) {
                refusals.add(refusal);
            }
        }
        if (!refusals.isEmpty()) {
            throw DbBulkheadDeclarationException.allOf(beanName, refusals);
        }
        if (configurationFailure != null) {
            throw configurationFailure;
        }
    }

    /** Why the method's key expression cannot give keys, or null when it can (or it has none). */
    private static @Nullable DbBulkheadDeclarationException keyRefusal(String beanName, Class<?> targetClass,
                                                                       Method method, String workload) {
        DbBulkhead declaration = DbBulkheadDeclarations.declarationOf(method, targetClass);
        if (declaration == null) {
            return null;
        }
        try {
            OperationClassifier.parseKey(declaration.key());
            return null;
        } catch (ParseException unreadable) {
            return DbBulkheadDeclarationException.unreadableKey(beanName, targetClass, method, workload,
                    declaration.key(), String.valueOf(unreadable.getMessage()));
        }
    }

    /** Why the method cannot be admitted whatever the configuration says, or null when it can. */
    private static @Nullable DbBulkheadDeclarationException declarationRefusal(
            String beanName, Class<?> targetClass, Candidate candidate, String workload,
            DeclaredTransactions.@Nullable Declared declared) {
        Method method = candidate.method();
        Class<?> declaringType = candidate.declaringType();
        if ((method.getModifiers() & (Modifier.PRIVATE | Modifier.FINAL | Modifier.STATIC)) != 0) {
            return DbBulkheadDeclarationException.unreachableEntry(beanName, declaringType, method, workload);
        }
        DbBulkheadEscapes.Escape escape = DbBulkheadEscapes.of(method, targetClass).orElse(null);
        if (escape != null) {
            return DbBulkheadDeclarationException.escapingEntry(beanName, declaringType, method, workload, escape);
        }
        int propagation = declared == null ? TransactionDefinition.PROPAGATION_REQUIRED
                : declared.attribute().getPropagationBehavior();
        String refused = REFUSED_PROPAGATIONS.get(propagation);
        return refused == null ? null : DbBulkheadDeclarationException.refusedPropagation(beanName, declaringType,
                method, workload, propagationName(propagation), refused);
    }

    /** Why Spring's interceptor would not join the admitted transaction, or null when it would. */
    private @Nullable DbBulkheadDeclarationException transactionManagerRefusal(
            String beanName, Candidate candidate, String workload, DeclaredTransactions.Declared declared,
            ListableBeanFactory beanFactory) {
        PlatformTransactionManager workloadManager = entries.get().transactionManager(workload);
        String methodManager;
        try {
            TransactionManager declaredManager = declared.transactionManager(beanFactory);
            if (declaredManager == null || sameTransactions(declaredManager, workloadManager)) {
                return null;
            }
            methodManager = nameOf(declaredManager, beanFactory);
        } catch (BeansException noSingleManager) {
            methodManager = "a transaction manager it cannot find (" + noSingleManager.getMessage() + ")";
        }
        return DbBulkheadDeclarationException.otherTransactionManager(beanName, candidate.declaringType(),
                candidate.method(), workload, methodManager, nameOf(workloadManager, beanFactory));
    }

    /**
     * Whether a transaction of {@code declared} joins one of {@code workload}: the same manager, or one of the same
     * resource (a workload's own JDBC manager of a data source, and the application's on that data source).
     */
    private static boolean sameTransactions(TransactionManager declared, PlatformTransactionManager workload) {
        return declared == workload || declared instanceof ResourceTransactionManager declaredResource
                && workload instanceof ResourceTransactionManager workloadResource
                && declaredResource.getResourceFactory() == workloadResource.getResourceFactory();
    }

    /** The bean name of {@code manager} in quotes, or its type for one that is no bean (a workload's own). */
    private static String nameOf(TransactionManager manager, ListableBeanFactory beanFactory) {
        return beanFactory.getBeansOfType(TransactionManager.class, false, false).entrySet().stream()
                .filter(bean -> bean.getValue() == manager).map(bean -> "'" + bean.getKey() + "'").findFirst()
                .orElse("a " + manager.getClass().getSimpleName() + " of its own");
    }

    private static String propagationName(int propagation) {
        return Arrays.stream(Propagation.values()).filter(named -> named.value() == propagation)
                .map(Propagation::name).findFirst().orElse(String.valueOf(propagation));
    }
}
