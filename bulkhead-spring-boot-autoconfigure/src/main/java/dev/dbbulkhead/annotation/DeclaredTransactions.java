package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.TargetSource;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * The transaction that {@code @Transactional} (Spring's or jakarta's) declares for a gated method, read by the
 * transaction interceptor that will run inside the gate, as it will read it when the call reaches it: a bean's own
 * proxy carries Spring's interceptor beside the gate's advisor, and a Spring Data repository carries its own inside
 * the repository proxy, whose attributes include those of the implementation's methods ({@code SimpleJpaRepository}'s
 * {@code save}, {@code findAll}) that no annotation of the interface shows. Where no proxy carries one (transactions
 * woven by AspectJ), the annotations are read as Spring's own proxies read them.
 */
final class DeclaredTransactions {

    /** Spring's own reading of @Transactional (Spring's and jakarta's), non-public methods included. */
    private static final TransactionAttributeSource ANNOTATIONS = new AnnotationTransactionAttributeSource(false);

    /**
     * How Spring's interceptor picks the transaction manager of a call (qualifier, type-level qualifier, its own
     * manager or manager bean name, the default): protected, so reached by reflection rather than copied, and so
     * that the answer is Spring's own on every version.
     */
    static final Method DETERMINE_TRANSACTION_MANAGER = Objects.requireNonNull(ReflectionUtils.findMethod(
                    TransactionAspectSupport.class, "determineTransactionManager", TransactionAttribute.class,
                    Class.class),
            "TransactionAspectSupport.determineTransactionManager(TransactionAttribute, Class)");

    static {
        ReflectionUtils.makeAccessible(DETERMINE_TRANSACTION_MANAGER);
    }

    private DeclaredTransactions() {
    }

    /**
     * A method's declared transaction.
     *
     * @param attribute   what it declares
     * @param interceptor the interceptor that will run it, null where no proxy carries one
     * @param targetClass the class the interceptor reads the attribute against
     */
    record Declared(TransactionAttribute attribute, @Nullable TransactionAspectSupport interceptor,
                    @Nullable Class<?> targetClass) {

        /**
         * The transaction manager Spring runs the declared transaction in, or null when it names none and no
         * interceptor would pick one: then the transaction is the workload's alone.
         *
         * @throws org.springframework.beans.BeansException when Spring cannot pick one (an unknown qualifier, several
         *                                                  managers and none primary)
         */
        @Nullable TransactionManager transactionManager(BeanFactory beanFactory) {
            if (interceptor != null) {
                return (TransactionManager) ReflectionUtils.invokeMethod(DETERMINE_TRANSACTION_MANAGER, interceptor,
                        attribute, targetClass);
            }
            String qualifier = attribute.getQualifier();
            return StringUtils.hasText(qualifier)
                    ? BeanFactoryAnnotationUtils.qualifiedBeanOfType(beanFactory, TransactionManager.class, qualifier)
                    : null;
        }
    }

    /**
     * What calls of {@code method} on {@code bean} (the object the gate's advisor intercepts, a proxy, or a proxy's
     * target) declare, or null when they declare no transaction.
     *
     * @param targetClass the class the gate's advisor matches {@code method} against
     */
    static @Nullable Declared of(Object bean, Method method, @Nullable Class<?> targetClass) {
        boolean intercepted = false;
        Object level = bean;
        while (level instanceof Advised advised) {
            Object target = staticTarget(advised);
            Class<?> levelTarget = target != null ? AopUtils.getTargetClass(target) : advised.getTargetClass();
            for (Advisor advisor : advised.getAdvisors()) {
                if (advisor.getAdvice() instanceof TransactionAspectSupport interceptor
                        && interceptor.getTransactionAttributeSource() != null) {
                    TransactionAttribute attribute = interceptor.getTransactionAttributeSource()
                            .getTransactionAttribute(method, levelTarget);
                    if (attribute != null) {
                        return new Declared(attribute, interceptor, levelTarget);
                    }
                    intercepted = true;
                }
            }
            level = target;
        }
        // An interceptor that declares nothing for the method has the last word: it is what runs.
        TransactionAttribute annotated = intercepted ? null : ANNOTATIONS.getTransactionAttribute(method, targetClass);
        return annotated != null ? new Declared(annotated, null, targetClass) : null;
    }

    /** Whether {@code advisor} begins or joins transactions: admission must come before it. */
    static boolean isTransactional(Advisor advisor) {
        return advisor.getAdvice() instanceof TransactionAspectSupport;
    }

    /** The one object behind {@code advised}, or null when each call may get another (a pooled or prototype source). */
    private static @Nullable Object staticTarget(Advised advised) {
        TargetSource source = advised.getTargetSource();
        if (!source.isStatic()) {
            return null;
        }
        try {
            return source.getTarget();
        } catch (Exception unavailable) {
            return null;
        }
    }
}
