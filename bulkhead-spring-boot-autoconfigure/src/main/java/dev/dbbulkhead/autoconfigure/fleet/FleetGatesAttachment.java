package dev.dbbulkhead.autoconfigure.fleet;

import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Attaches the gates to the fleet membership as soon as both exist, whichever is made first: the membership before
 * the database initializers, the registry with the transaction managers. So every check that runs once the beans
 * exist — the start-up connection budget's — sees the gates as the share caps them, in proportion to the pool it
 * sizes, not their configured B over a pool already cut to the grant.
 */
final class FleetGatesAttachment implements BeanPostProcessor {

    private final ConfigurableListableBeanFactory beanFactory;
    private final AtomicReference<@Nullable BulkheadRegistry> registry = new AtomicReference<>();

    FleetGatesAttachment(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof BulkheadRegistry made) {
            registry.compareAndSet(null, made);
            for (String name : beanFactory.getBeanNamesForType(FleetMembership.class, false, false)) {
                if (beanFactory.containsSingleton(name)) {
                    beanFactory.getBean(name, FleetMembership.class).ceilings();
                }
            }
        } else if (bean instanceof FleetMembership membership && registry.get() != null) {
            membership.ceilings();
        }
        return bean;
    }

    /** The registry once it is made; empty before, when the membership asks for it only once the beans exist. */
    Optional<BulkheadRegistry> registry() {
        return Optional.ofNullable(registry.get());
    }
}
