package dev.dbbulkhead.annotation;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.core.Ordered;

/**
 * Places an advisor in a proxy's chain by its order, as Spring orders advisors (lower runs first, outside): after
 * the last advisor whose order is at most its own, so that among equal orders it runs innermost — but always before
 * a transaction advisor, whatever its order: admission must come before the transaction begins, which would otherwise
 * hold a connection while it waits at the gate. Advisors already in the chain keep their places relative to each
 * other, whatever put them there.
 */
final class DbBulkheadAdvisorOrder {

    private DbBulkheadAdvisorOrder() {
    }

    /** Moves {@code advisor}, if {@code proxy} has it, to its place among the proxy's other advisors. */
    static void place(Advised proxy, Advisor advisor) {
        if (!proxy.removeAdvisor(advisor)) {
            return;
        }
        int order = orderOf(advisor);
        Advisor[] others = proxy.getAdvisors();
        int position = 0;
        for (int i = 0; i < others.length && !DeclaredTransactions.isTransactional(others[i]); i++) {
            if (orderOf(others[i]) <= order) {
                position = i + 1;
            }
        }
        proxy.addAdvisor(position, advisor);
    }

    private static int orderOf(Advisor advisor) {
        return advisor instanceof Ordered ordered ? ordered.getOrder() : Ordered.LOWEST_PRECEDENCE;
    }
}
