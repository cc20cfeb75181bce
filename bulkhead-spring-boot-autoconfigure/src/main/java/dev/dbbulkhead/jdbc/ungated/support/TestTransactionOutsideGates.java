package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;
import org.springframework.test.context.transaction.TransactionalTestExecutionListener;

/**
 * Marks the transaction the Spring TestContext Framework begins and ends around a {@code @Transactional} test (its
 * {@code @BeforeTransaction} and {@code @AfterTransaction} methods included) as running outside the gates, where it
 * begins: its borrow is recognised without reading the stack, as the test's own fixture rather than the application's
 * work. The test method itself runs unmarked, so what it borrows outside that transaction is admitted as in
 * production. Registered with the framework's default listeners, just before {@link TransactionalTestExecutionListener}.
 */
public final class TestTransactionOutsideGates implements TestExecutionListener, Ordered {

    /** The rule the test transaction's borrows are counted under: the framework's package, as a stack read names it. */
    public static final String RULE = "org.springframework.test.context.transaction";

    private static final String SCOPE = TestTransactionOutsideGates.class.getName() + ".scope";

    @Override
    public int getOrder() {
        return TransactionalTestExecutionListener.ORDER - 1;
    }

    /** Before the test transaction begins. */
    @Override
    public void beforeTestMethod(TestContext testContext) {
        open(testContext);
    }

    /** After it began, right before the test method. */
    @Override
    public void beforeTestExecution(TestContext testContext) {
        close(testContext);
    }

    /** Right after the test method, before the transaction ends. */
    @Override
    public void afterTestExecution(TestContext testContext) {
        open(testContext);
    }

    /** After the transaction ended: the listeners after a test run in reverse order, the transaction's first. */
    @Override
    public void afterTestMethod(TestContext testContext) {
        close(testContext);
    }

    /** Opens the scope unless one is open: a failed callback may skip the one that would have closed it. */
    private static void open(TestContext testContext) {
        if (!testContext.hasAttribute(SCOPE)) {
            testContext.setAttribute(SCOPE, UngatedWork.open(RULE));
        }
    }

    private static void close(TestContext testContext) {
        Object scope = testContext.removeAttribute(SCOPE);
        if (scope instanceof UngatedWork.Scope open) {
            open.close();
        }
    }
}
