package dev.dbbulkhead.annotation;

import dev.dbbulkhead.annotation.DbBulkheadChecks.Candidate;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies every bean with a {@code @DbBulkhead} method so that its calls are admitted where
 * {@code advisorOrder} puts admission among the bean's other advisors (by default last, inside all of
 * them, yet always before a transaction advisor: {@link DbBulkheadAdvisorOrder}), after checking at start-up that
 * each such method can be intercepted, names a configured workload, keeps its work inside the admitted region and,
 * where it is transactional too, declares a transaction the admitted one can be ({@link DbBulkheadChecks}). Plain
 * Spring AOP: no AspectJ weaving.
 */
public final class DbBulkheadPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {

    private static final long serialVersionUID = 1L;

    private final transient SingletonSupplier<DbBulkheadEntries> entries;
    private final transient DbBulkheadChecks checks;
    /** The advisor this post-processor applies, typed as it was built: Spring's own field is nullable. */
    private final transient DefaultPointcutAdvisor admission;

    /**
     * @param entries      how calls run: looked up on first use, as a post-processor is created before other beans
     * @param advisorOrder where admission runs among the bean's other advisors: inside every advisor whose order is
     *                     at most this value, outside the others
     */
    public DbBulkheadPostProcessor(Supplier<DbBulkheadEntries> entries, int advisorOrder) {
        this.entries = SingletonSupplier.of(entries);
        this.checks = new DbBulkheadChecks(this.entries);
        DefaultPointcutAdvisor admission = new DefaultPointcutAdvisor(DbBulkheadDeclarations.POINTCUT,
                new DbBulkheadInterceptor(this.entries));
        admission.setOrder(advisorOrder);
        this.admission = admission;
        this.advisor = admission;
        setProxyTargetClass(true);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> beanClass = AopProxyUtils.ultimateTargetClass(bean);
        // isEligible asks the pointcut about every method once per class and caches the answer, which the proxying
        // below reuses: a bean without @DbBulkhead is walked once, not once here and again there.
        if (isEligible(beanClass)) {
            if (Modifier.isFinal(beanClass.getModifiers()) && !(bean instanceof Advised)) {
                throw DbBulkheadDeclarationException.unproxyableClass(beanName, beanClass);
            }
            List<Candidate> methods = new ArrayList<>();
            ReflectionUtils.doWithMethods(beanClass, method -> methods.add(new Candidate(beanClass, method)),
                    ReflectionUtils.USER_DECLARED_METHODS);
            checks.check(bean, beanName, beanClass, methods, beanFactory());
        } else if (Proxy.isProxyClass(bean.getClass()) && isEligible(bean.getClass())) {
            checks.check(bean, beanName, bean.getClass(), interfaceMethods(bean), beanFactory());
        }
        Object proxy = super.postProcessAfterInitialization(bean, beanName);
        if (proxy instanceof Advised advised && !advised.isFrozen()) {
            DbBulkheadAdvisorOrder.place(advised, admission);
        }
        return proxy;
    }

    /**
     * Creates now the singletons that factory beans make of {@code @DbBulkhead} interfaces, such as Spring Data
     * repositories: nothing else creates one before it is first injected or looked up, and then its declarations
     * would be checked only at its first use, after start-up.
     */
    @Override
    public void afterSingletonsInstantiated() {
        ConfigurableListableBeanFactory factory = beanFactory();
        for (String name : factory.getBeanNamesForType(Object.class, false, false)) {
            if (factory.isFactoryBean(name) && DbBulkheadDeclarations.declaredOn(factory.getType(name, false))) {
                factory.getBean(name);
            }
        }
    }

    /**
     * A JDK proxy whose interfaces carry {@code @DbBulkhead}, such as a Spring Data repository: its target class
     * (the repository implementation) knows nothing of the annotation, and at run time the advisor matches the
     * interfaces' methods against the proxy class. The start-up checks look at them the same way, each method once,
     * leaving out the interfaces Spring adds to every proxy ({@code Advised}...), whose calls the proxy answers itself.
     */
    private static List<Candidate> interfaceMethods(Object proxy) {
        Map<Method, Candidate> methods = new LinkedHashMap<>();
        for (Class<?> proxied : AopProxyUtils.proxiedUserInterfaces(proxy)) {
            for (Method method : proxied.getMethods()) {
                methods.putIfAbsent(method, new Candidate(proxied, method));
            }
        }
        return List.copyOf(methods.values());
    }

    private ConfigurableListableBeanFactory beanFactory() {
        return Objects.requireNonNull(beanFactory, "set by Spring before use");
    }
}
