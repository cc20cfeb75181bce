package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.spring.BulkheadRegistry;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies every bean with a {@code @DbBulkhead} method so that its calls are admitted where
 * {@code db.bulkhead.advisor-order} puts admission among the bean's other advisors (by default last, inside
 * all of them: {@link AdvisorPlacement}), after checking at start-up that each such method can be intercepted, names a
 * configured workload and is not transactional itself. Plain Spring AOP: no AspectJ weaving.
 */
final class DbBulkheadPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    /** Spring's own reading of @Transactional (Spring's and jakarta's), non-public methods included. */
    private final transient TransactionAttributeSource transactionAttributes = new AnnotationTransactionAttributeSource(false);
    private final transient SingletonSupplier<BulkheadRegistry> registry;

    /**
     * @param advisorOrder where admission runs among the bean's other advisors: inside every advisor whose order is
     *                     at most this value, outside the others
     */
    DbBulkheadPostProcessor(ObjectProvider<BulkheadRegistry> registry, int advisorOrder) {
        this.registry = SingletonSupplier.of(registry::getObject);
        DefaultPointcutAdvisor admission = new DefaultPointcutAdvisor(DbBulkheadDeclarations.POINTCUT,
                new DbBulkheadInterceptor(this.registry));
        admission.setOrder(advisorOrder);
        this.advisor = admission;
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
        Object proxy = super.postProcessAfterInitialization(bean, beanName);
        if (proxy instanceof Advised advised && !advised.isFrozen()) {
            AdvisorPlacement.place(advised, advisor);
        }
        return proxy;
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
        BulkheadRegistry workloads = registry.obtain();
        if (workloads.find(workload).isEmpty()) {
            throw BulkheadConfigurationException.unknownWorkload(beanName, beanClass, method, workload, workloads.names());
        }
    }
}
