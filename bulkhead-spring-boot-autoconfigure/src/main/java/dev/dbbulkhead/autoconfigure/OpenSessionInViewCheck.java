package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.budget.BudgetFinding;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds open-session-in-view ({@code spring.jpa.open-in-view}, on by default in a Spring MVC application with JPA):
 * the request's EntityManager keeps the JDBC connection it got in the admitted transaction until the response is
 * written, after the commit gave the permit back, and lazy loads while the response is written take connections
 * that no gate bounds. Named by class name: applications without JPA need none of it.
 */
final class OpenSessionInViewCheck {

    private static final List<String> HOLDERS = List.of(
            "org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor",
            "org.springframework.orm.jpa.support.OpenEntityManagerInViewFilter");

    private OpenSessionInViewCheck() {
    }

    /** One finding naming the beans that hold sessions open for a whole request; none without such beans. */
    static List<BudgetFinding> findings(ListableBeanFactory beans) {
        List<String> holders = new ArrayList<>();
        ClassLoader classLoader = OpenSessionInViewCheck.class.getClassLoader();
        for (String type : HOLDERS) {
            if (ClassUtils.isPresent(type, classLoader)) {
                holders.addAll(List.of(beans.getBeanNamesForType(ClassUtils.resolveClassName(type, classLoader),
                        false, false)));
            }
        }
        if (holders.isEmpty()) {
            return List.of();
        }
        return List.of(new BudgetFinding(BudgetFinding.Kind.OPEN_SESSION_IN_VIEW, "open-session-in-view is on (bean "
                + String.join(", ", holders) + "): each web request's EntityManager keeps its JDBC connection from"
                + " the admitted transaction until the response is written, after the commit gave the permit back,"
                + " and lazy loads while a view renders or the body is serialised take connections outside every"
                + " gate: the pool can have more connections active than the sum of max-concurrent. Set"
                + " spring.jpa.open-in-view=false and load what the response needs inside the @DbBulkhead method"
                + " (a fetch join, an entity graph or a DTO)."));
    }
}
