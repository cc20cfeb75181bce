package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;

/**
 * A {@code @DbBulkhead} declaration that would admit too late or through no gate: a transactional entry method, one
 * a proxy cannot intercept, a bean class a proxy cannot subclass, or an entry whose work would outlive the call.
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

    static DbBulkheadDeclarationException transactionalEntry(String beanName, Class<?> beanClass, Method method,
                                                             String workload) {
        String where = describe(beanName, beanClass, method);
        return new DbBulkheadDeclarationException(
                where + " is annotated @DbBulkhead(\"" + workload + "\") and is also transactional (@Transactional"
                        + " on the method, its class or an interface it implements). Its transaction would begin"
                        + " before admission and hold a connection while it waits at the gate.",
                "Remove @Transactional from " + signature(beanClass, method) + ", its class and its interfaces: @DbBulkhead already runs the method in a transaction"
                        + " after admission. Transactional code it calls belongs in another bean.");
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
