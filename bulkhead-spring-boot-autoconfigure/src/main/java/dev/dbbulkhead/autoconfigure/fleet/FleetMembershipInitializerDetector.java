package dev.dbbulkhead.autoconfigure.fleet;

import dev.dbbulkhead.fleet.support.FleetMembership;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Makes the fleet membership the first of the application's database initializers, so that it joins the fleet
 * before schema initialisation, migrations (Flyway, Liquibase) and the JPA bootstrap borrow from the pool, and before
 * any bean that depends on database initialisation ({@code JdbcTemplate}, the {@code EntityManagerFactory}) exists:
 * what start-up opens is then within the member's grant, not beside the budget.
 */
final class FleetMembershipInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(FleetMembership.class);
    }

    /** First: each later detector's initializers depend on the earlier ones'. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
