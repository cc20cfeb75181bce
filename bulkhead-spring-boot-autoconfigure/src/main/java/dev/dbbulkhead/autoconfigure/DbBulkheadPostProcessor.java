package dev.dbbulkhead.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.function.Supplier;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies every bean with a {@code @DbBulkhead} method so that its calls are admitted first (outermost, before
 * any other advice of the bean), after checking at start-up that each such method can be intercepted, names a
 * configured workload and is not transactional itself. Plain Spring AOP: no AspectJ weaving.
 */
final class DbBulkheadPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    /** Spring's own reading of @Transactional (Spring's and jakarta's), non-public methods included. */
    private final transient TransactionAttributeSource transactionAttributes = new AnnotationTransactionAttributeSource(false);
    private final transient SingletonSupplier<DbBulkheadEntries> entries;

    /** @param entries how calls run: looked up on first use, as a post-processor is created before other beans */
    DbBulkheadPostProcessor(Supplier<DbBulkheadEntries> entries) {
        this.entries = SingletonSupplier.of(entries);
        this.advisor = new DefaultPointcutAdvisor(DbBulkheadDeclarations.POINTCUT, new DbBulkheadInterceptor(this.entries));
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> beanClass = AopProxyUtils.ultimateTargetClass(bean);
        // isEligible asks the pointcut about every method once per class and caches the answer, which the proxying
        // below reuses: a bean without @DbBulkhead is walked once, not once here and again there.
        if (isEligible(beanClass)) {
            ReflectionUtils.doWithMethods(beanClass, method -> check(beanName, beanClass, method),
                    ReflectionUtils.USER_DECLARED_METHODS);
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }

    private void check(String beanName, Class<?> beanClass, Method method) {
        String workload = DbBulkheadDeclarations.workloadOf(method, beanClass);
        if (workload == null) {
            return;
        }
        if ((method.getModifiers() & (Modifier.PRIVATE | Modifier.FINAL | Modifier.STATIC)) != 0) {
            throw BulkheadConfigurationException.unreachableEntry(beanName, beanClass, method, workload);
        }
        if (transactionAttributes.getTransactionAttribute(method, beanClass) != null) {
            throw BulkheadConfigurationException.transactionalEntry(beanName, beanClass, method, workload);
        }
        entries.obtain().check(beanName, beanClass, method, workload);
    }
}
