package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;
import org.springframework.test.context.jdbc.SqlScriptsTestExecutionListener;
import org.springframework.test.context.transaction.TransactionalTestExecutionListener;

/**
 * Marks the fixture the Spring TestContext Framework sets up and tears down around a test — the transaction it begins
 * and ends around a {@code @Transactional} test, its {@code @BeforeTransaction} and {@code @AfterTransaction} methods,
 * and the {@code @Sql} scripts it runs — as running outside the gates, where it begins: its borrows are recognised
 * without reading the stack, as the test's own fixture rather than the application's work. Two listeners, registered
 * with the framework's default ones, hold the mark around those listeners' callbacks and nothing else: {@link Before}
 * just before {@link TransactionalTestExecutionListener}, {@link After} just after
 * {@link SqlScriptsTestExecutionListener} (the callbacks after a test run in reverse order). The test method, its
 * {@code @BeforeEach} and {@code @AfterEach} methods and every other listener run unmarked, so what they borrow is
 * admitted as in production.
 */
public final class TestTransactionOutsideGates {

    /**
     * The rule the fixture's borrows are counted under: the package of the framework's transaction, as a stack read
     * names the transaction's borrow.
     */
    public static final String RULE = "org.springframework.test.context.transaction";

    private static final String SCOPE = TestTransactionOutsideGates.class.getName() + ".scope";

    private TestTransactionOutsideGates() {
    }

    /** Opens the mark before the test transaction begins, and closes it once the transaction ended. */
    public static final class Before implements TestExecutionListener, Ordered {

        @Override
        public int getOrder() {
            return TransactionalTestExecutionListener.ORDER - 1;
        }

        @Override
        public void beforeTestMethod(TestContext testContext) {
            open(testContext);
        }

        @Override
        public void afterTestMethod(TestContext testContext) {
            close(testContext);
        }
    }

    /** Closes the mark once the test transaction began and the scripts ran; opens it again before they run after it. */
    public static final class After implements TestExecutionListener, Ordered {

        @Override
        public int getOrder() {
            return SqlScriptsTestExecutionListener.ORDER + 1;
        }

        @Override
        public void beforeTestMethod(TestContext testContext) {
            close(testContext);
        }

        @Override
        public void afterTestMethod(TestContext testContext) {
            open(testContext);
        }
    }

    /** Opens the mark unless it is open: a failed callback may have skipped the one that would have closed it. */
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
