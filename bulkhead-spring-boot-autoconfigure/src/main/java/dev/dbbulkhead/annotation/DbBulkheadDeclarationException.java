package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;

/**
 * A {@code @DbBulkhead} declaration that would admit too late or through no gate: a transactional entry method whose
 * transaction could not be the admitted one, one a proxy cannot intercept, a bean class a proxy cannot subclass, or
 * an entry whose work would outlive the call; several of one bean in one report.
 * Thrown at start-up, as the bean is created; in a Spring Boot application its failure analysis reports what is
 * wrong and what to do about it.
 */
public final class DbBulkheadDeclarationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param description what is wrong, naming the bean and the method
     * @param action      what to do about it
     */
    public DbBulkheadDeclarationException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What to do about it. */
    public String action() {
        return action;
    }

    /** How a report names {@code method} of bean {@code beanName}: its class, its signature and the bean. */
    public static String describe(String beanName, Class<?> beanClass, Method method) {
        return "Method " + beanClass.getName() + "." + signature(method) + " of bean '" + beanName + "'";
    }

    /** {@code method}'s short signature, qualified by the simple name of {@code beanClass}. */
    public static String signature(Class<?> beanClass, Method method) {
        return ClassUtils.getShortName(beanClass) + "." + signature(method);
    }

    static DbBulkheadDeclarationException refusedPropagation(String beanName, Class<?> beanClass, Method method,
                                                             String workload, String propagation, String why) {
        return new DbBulkheadDeclarationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload + "\") and is also"
                        + " transactional with propagation " + propagation + ": the gate begins the method's transaction"
                        + " after admission, and " + propagation + " " + why + ".",
                "Give " + signature(beanClass, method) + " propagation REQUIRED (the default), SUPPORTS or MANDATORY,"
                        + " which join the admitted transaction, or remove @Transactional from it, its class and its"
                        + " interfaces: @DbBulkhead alone runs it in one transaction after admission.");
    }

    static DbBulkheadDeclarationException otherTransactionManager(String beanName, Class<?> beanClass, Method method,
                                                                  String workload, String methodManager,
                                                                  String workloadManager) {
        return new DbBulkheadDeclarationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload + "\") and is also"
                        + " transactional, but Spring would run its transaction in " + methodManager + " while"
                        + " workload '" + workload + "' runs its transactions in " + workloadManager + ": the method's"
                        + " transaction would begin beside the admitted one, on a connection the gate does not count.",
                "Let one transaction manager run both: name the workload's in the method's @Transactional (or its"
                        + " class's), or set 'db.bulkhead.workloads." + workload + ".transaction-manager' to the"
                        + " method's.");
    }

    /**
     * One report for every refused declaration of bean {@code beanName}, in the order given; the only one unchanged.
     *
     * @param refusals at least one
     */
    static DbBulkheadDeclarationException allOf(String beanName, List<DbBulkheadDeclarationException> refusals) {
        if (refusals.size() == 1) {
            return refusals.get(0);
        }
        StringBuilder description = new StringBuilder("Bean '" + beanName + "' has " + refusals.size()
                + " @DbBulkhead declarations that cannot be admitted:");
        StringBuilder action = new StringBuilder();
        for (int i = 0; i < refusals.size(); i++) {
            description.append("\n").append(i + 1).append(". ").append(refusals.get(i).getMessage());
            action.append(i == 0 ? "" : "\n").append(i + 1).append(". ").append(refusals.get(i).action());
        }
        return new DbBulkheadDeclarationException(description.toString(), action.toString());
    }

    static DbBulkheadDeclarationException unreachableEntry(String beanName, Class<?> beanClass, Method method,
                                                             String workload) {
        return new DbBulkheadDeclarationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload + "\"), but it is"
                        + " private, final or static: a proxy cannot intercept it, so its calls would run unadmitted"
                        + " and without a transaction.",
                "Make " + signature(beanClass, method) + " a non-private, non-final instance method, and call it"
                        + " through the bean rather than from inside the same object.");
    }

    static DbBulkheadDeclarationException unreadableKey(String beanName, Class<?> beanClass, Method method,
                                                        String workload, String expression, String why) {
        return new DbBulkheadDeclarationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(value = \"" + workload
                        + "\", key = \"" + expression + "\"), but the key is not a SpEL expression: " + why + ".",
                "Give key an expression over the method's arguments, such as \"#tenantId\" or \"#p0\", or remove"
                        + " it to use the request's key.");
    }

    static DbBulkheadDeclarationException unproxyableClass(String beanName, Class<?> beanClass) {
        String kind = beanClass.isRecord() ? "a record" : "a final class";
        return new DbBulkheadDeclarationException(
                "Bean '" + beanName + "' of type " + beanClass.getName() + " has @DbBulkhead methods, but it is "
                        + kind + ": a class-based proxy cannot subclass it, so none of its calls could be admitted.",
                "Make " + ClassUtils.getShortName(beanClass) + " a non-final class (a record cannot be one: move the"
                        + " @DbBulkhead methods to a class of their own).");
    }

    static DbBulkheadDeclarationException escapingEntry(String beanName, Class<?> beanClass, Method method,
                                                        String workload, DbBulkheadEscapes.Escape escape) {
        return new DbBulkheadDeclarationException(
                describe(beanName, beanClass, method) + " is annotated @DbBulkhead(\"" + workload + "\"), but "
                        + escape.why() + ". Its database work would escape the gate's limit and the transaction.",
                escape.fix());
    }

    private static String signature(Method method) {
        return method.getName() + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
