package dev.dbbulkhead.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A data source around a real one whose next JDBC commit can be made to fail the way a driver reports a commit
 * whose outcome it cannot tell: the transaction is rolled back on the server, then {@code commit()} throws an
 * {@link SQLException} of the chosen SQLState. Everything else, {@code unwrap} included, reaches the real pool.
 */
public final class CommitFaults {

    private final AtomicReference<@Nullable String> nextCommitFailure = new AtomicReference<>();
    private final DataSource dataSource;

    /** Wraps {@code target}; nothing fails until {@link #failNextCommit(String)} is called. */
    public CommitFaults(DataSource target) {
        this.dataSource = proxy(DataSource.class, target, (method, args) -> {
            Object result = method.invoke(target, args);
            return result instanceof Connection connection ? failingCommit(connection) : result;
        });
    }

    /** The data source to hand to the code under test. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Makes the next commit of any connection of {@link #dataSource()} fail with {@code sqlState}. */
    public void failNextCommit(String sqlState) {
        nextCommitFailure.set(sqlState);
    }

    private Connection failingCommit(Connection connection) {
        return proxy(Connection.class, connection, (method, args) -> {
            if (method.getName().equals("commit") && method.getParameterCount() == 0) {
                String sqlState = nextCommitFailure.getAndSet(null);
                if (sqlState != null) {
                    connection.rollback();
                    throw new SQLException("Commit failed (injected): the driver cannot tell how it ended", sqlState);
                }
            }
            return method.invoke(connection, args);
        });
    }

    private interface Call {
        Object invoke(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return call.invoke(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(CommitFaults.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
