package dev.dbbulkhead.fleet;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL's {@code LISTEN} on a session, and the notifications it has received, read without a round trip.
 *
 * <p>Reading them takes pgJDBC's own API ({@code PGConnection#getNotifications()}, which only looks at what the socket
 * already holds). The core runs with nothing but the JDK on its class path, so that API is reached reflectively, from
 * the class loader of the session's own driver; with another driver a session does not listen, and the coordinator
 * says it cannot tell whether the fleet changed.
 */
final class PostgresNotifications {

    private static final String PG_CONNECTION = "org.postgresql.PGConnection";
    private static final String PG_NOTIFICATION = "org.postgresql.PGNotification";

    /** The driver's methods, found once per driver class: each poll of each member would otherwise look them up. */
    private static volatile @Nullable Api api;

    private PostgresNotifications() {
    }

    /**
     * Listens on {@code channel} (a plain identifier) when the session is pgJDBC's.
     *
     * @return whether the session now listens
     */
    static boolean listen(Connection session, String channel) throws SQLException {
        if (apiOf(session) == null) {
            return false;
        }
        try (Statement statement = session.createStatement()) {
            statement.execute("LISTEN " + channel);
        }
        return true;
    }

    /**
     * The payloads of the notifications the session received since it was last asked that another session sent, in
     * the order they were sent; its own are left out. Never sends anything to the server. The payloads are input from
     * whoever may notify on the channel: the caller bounds what it makes of them.
     *
     * @return empty for a session that is not pgJDBC's
     * @throws SQLException when the session is broken
     */
    static List<String> receivedFromOthers(Connection session) throws SQLException {
        Api found = apiOf(session);
        if (found == null) {
            return List.of();
        }
        Object pgSession = session.unwrap(found.connectionType());
        try {
            Object[] received = (Object[]) found.notifications().invoke(pgSession);
            if (received == null || received.length == 0) {
                return List.of();
            }
            int own = (Integer) found.backendPid().invoke(pgSession);
            List<String> fromOthers = new ArrayList<>();
            for (Object notification : received) {
                if ((Integer) found.senderPid().invoke(notification) != own) {
                    fromOthers.add(String.valueOf(found.payload().invoke(notification)));
                }
            }
            return fromOthers;
        } catch (InvocationTargetException thrown) {
            if (thrown.getCause() instanceof SQLException failure) {
                throw failure;
            }
            throw new SQLException("could not read the session's notifications", thrown.getCause());
        } catch (IllegalAccessException inaccessible) {
            throw new SQLException("could not read the session's notifications", inaccessible);
        }
    }

    private static @Nullable Api apiOf(Connection session) throws SQLException {
        Connection physical = session.unwrap(Connection.class);
        Class<?> driverClass = physical.getClass();
        Api known = api;
        if (known != null && known.driverClass() == driverClass) {
            return known;
        }
        try {
            ClassLoader loader = driverClass.getClassLoader();
            Class<?> connectionType = Class.forName(PG_CONNECTION, false, loader);
            if (!connectionType.isInstance(physical)) {
                return null;
            }
            Class<?> notificationType = Class.forName(PG_NOTIFICATION, false, loader);
            Api found = new Api(driverClass, connectionType, connectionType.getMethod("getNotifications"),
                    connectionType.getMethod("getBackendPID"), notificationType.getMethod("getPID"),
                    notificationType.getMethod("getParameter"));
            api = found;
            return found;
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError notPgJdbc) {
            return null;
        }
    }

    private record Api(Class<?> driverClass, Class<?> connectionType, Method notifications, Method backendPid,
                       Method senderPid, Method payload) {
    }
}
