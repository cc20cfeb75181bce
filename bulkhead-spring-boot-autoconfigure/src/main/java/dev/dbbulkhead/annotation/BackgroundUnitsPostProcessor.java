package dev.dbbulkhead.annotation;

import java.lang.reflect.Modifier;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * Proxies every bean with a scheduled, {@code @Async} or message listener method so that each run of it is a unit of
 * work ({@link BackgroundUnits}). Runs before the post-processors that find such methods ({@code @Scheduled}'s,
 * the listener containers', all ordered last), so that they call the proxy; its advisor runs inside {@code @Async}'s —
 * on the executor's thread, where the task runs — and outside every other, a transaction's included: a unit begins
 * before its first operation. A final class cannot be proxied and is left as it is: its runs are still admitted where
 * their connections are taken, each operation as a unit of its own.
 */
public final class BackgroundUnitsPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    /** Ahead of the post-processors that find scheduled and listener methods, which Spring orders last. */
    private static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1;

    /** Among a proxy's advisors: just inside {@code @Async}'s, which is ordered first. */
    private static final int ADVISOR_ORDER = Ordered.HIGHEST_PRECEDENCE + 1;

    private final transient DefaultPointcutAdvisor units;

    /** Proxies with the target class, as Spring's own {@code @Async} support may: a bean needs no interface. */
    public BackgroundUnitsPostProcessor() {
        DefaultPointcutAdvisor units = new DefaultPointcutAdvisor(BackgroundUnits.POINTCUT, new BackgroundUnits());
        units.setOrder(ADVISOR_ORDER);
        this.units = units;
        this.advisor = units;
        setProxyTargetClass(true);
        setOrder(ORDER);
    }

    @Override
    protected boolean isEligible(Object bean, String beanName) {
        return (bean instanceof Advised || !Modifier.isFinal(AopProxyUtils.ultimateTargetClass(bean).getModifiers()))
                && super.isEligible(bean, beanName);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Object proxy = super.postProcessAfterInitialization(bean, beanName);
        if (proxy instanceof Advised advised && !advised.isFrozen()) {
            DbBulkheadAdvisorOrder.place(advised, units);
        }
        return proxy;
    }
}
