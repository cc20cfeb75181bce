package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's table as a coordinator finds it: its name checked, its DDL, and, once, its creation and the check of its
 * shape. The table is created in the schema given with its name, else in the session's {@code current_schema()},
 * resolved once: every statement then names that table and no other of the same name on the search path. An existing
 * relation of another shape is refused; a table of an older shape is brought up to date.
 */
final class FleetTable {

    private static final Pattern NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    /** Creating the table waits for the fleet's lock like a renewal, but may then take its time. */
    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(30);

    /** The columns of the table and their types, as {@code format_type} names them. */
    private static final Map<String, String> COLUMNS = columns();
    /**
     * The columns of a fleet's total, added to the table by the first member whose total follows the database: a
     * table without them serves the members that split their budget.
     */
    private static final Map<String, String> TOTAL_COLUMNS =
            Map.of("fleet_total", "integer", "fleet_total_at", "timestamp with time zone");
    /** The columns of a table whose fleet's total follows the database. */
    private static final Map<String, String> COLUMNS_WITH_TOTAL = withTotal();

    private FleetTable() {
    }

    /**
     * The table as every statement names it, schema-qualified, the keep-alive's statement on it, built once, whether
     * it has the columns of a total, and the channel its fleet's changes are announced on.
     */
    record Resolved(String name, String keepAlive, boolean totalColumns, String channel) {
    }

    /** Refuses a name that is not a plain identifier, optionally schema-qualified. */
    static String checkedName(@Nullable String table) {
        if (table == null || !NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be an unquoted identifier, optionally schema-qualified"
                    + " (schema.table), was '" + table + "'");
        }
        return table;
    }

    /** The DDL of the table named {@code name}. */
    static String createStatement(String name) {
        return "CREATE TABLE IF NOT EXISTS " + name + " ("
                + "member_id text PRIMARY KEY, "
                + "weight integer NOT NULL, "
                + "demand integer NOT NULL, "
                + "granted integer NOT NULL, "
                + "target integer NOT NULL, "
                + "budget integer NOT NULL, "
                + "joined_at timestamptz NOT NULL, "
                + "renewed_at timestamptz NOT NULL, "
                + "lease_expires_at timestamptz NOT NULL, "
                + "session_name text)";
    }

    /**
     * Creates the table if it is missing and checks its shape, in one transaction bounded like a renewal's lock wait.
     *
     * @param table        the configured name, schema-qualified or not
     * @param followsTotal whether the fleet's total follows the database: the table then gets the total's columns
     * @return its schema-qualified name, with the keep-alive's statement on it
     */
    static Resolved resolve(Connection connection, String table, Duration lockWait, boolean followsTotal)
            throws SQLException {
        return FleetStatements.inTransaction(connection, lockWait, DDL_TIMEOUT, () -> {
            String qualified = qualify(connection, table);
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))");
                 Statement create = connection.createStatement()) {
                // Two members starting together would otherwise race on the catalog and one would fail.
                lock.setString(1, qualified);
                lock.executeQuery().close();
                create.execute(createStatement(qualified));
                Map<String, String> found = columnsOf(connection, qualified);
                if (!found.containsKey("session_name") && found.size() == COLUMNS.size() - 1) {
                    // A table made before members named their sessions: without the column nobody can be fenced.
                    create.execute("ALTER TABLE " + qualified + " ADD COLUMN IF NOT EXISTS session_name text");
                    found = columnsOf(connection, qualified);
                }
                if (followsTotal && found.equals(COLUMNS)) {
                    // A table of a fleet that split its budget until now: its total follows the database from now on.
                    create.execute("ALTER TABLE " + qualified + " ADD COLUMN IF NOT EXISTS fleet_total integer,"
                            + " ADD COLUMN IF NOT EXISTS fleet_total_at timestamptz");
                    found = columnsOf(connection, qualified);
                }
                if (!found.equals(COLUMNS) && !found.equals(COLUMNS_WITH_TOTAL)) {
                    throw new SQLException("table " + qualified + " exists but is not a fleet table: its columns are "
                            + new TreeMap<>(found) + ", a fleet table's are exactly " + new TreeMap<>(COLUMNS)
                            + ", with " + new TreeMap<>(TOTAL_COLUMNS) + " once its total follows the database"
                            + "; drop or rename it, or give the fleet a table of its own");
                }
                boolean totalColumns = found.equals(COLUMNS_WITH_TOTAL);
                return new Resolved(qualified, FleetStatements.keepAliveStatement(qualified, followsTotal),
                        totalColumns, FleetAnnouncements.channelOf(qualified));
            }
        });
    }

    /**
     * The configured name if qualified, else qualified with the schema this session creates tables in: every
     * statement then names that table and no other of the same name on the search path.
     */
    private static String qualify(Connection connection, String table) throws SQLException {
        if (table.contains(".")) {
            return table;
        }
        try (Statement statement = connection.createStatement();
             ResultSet schema = statement.executeQuery("SELECT quote_ident(current_schema())")) {
            schema.next();
            String current = schema.getString(1);
            if (current == null) {
                throw new SQLException("table " + table + " is not schema-qualified and the session has no current"
                        + " schema (no schema of its search_path exists): qualify it as schema.table");
            }
            return current + "." + table;
        }
    }

    /** The columns of {@code qualified} and their types; refuses a relation that is not a plain table. */
    private static Map<String, String> columnsOf(Connection connection, String qualified) throws SQLException {
        Map<String, String> columns = new HashMap<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT c.relkind::text, a.attname::text,"
                + " format_type(a.atttypid, a.atttypmod) FROM pg_class c LEFT JOIN pg_attribute a"
                + " ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped WHERE c.oid = ?::regclass")) {
            query.setString(1, qualified);
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    String kind = result.getString(1);
                    if (!kind.equals("r") && !kind.equals("p")) {
                        throw new SQLException(qualified + " exists but is not a table (relkind '" + kind + "'):"
                                + " give the fleet a table of its own");
                    }
                    if (result.getString(2) != null) {
                        columns.put(result.getString(2), result.getString(3));
                    }
                }
            }
        }
        return columns;
    }

    private static Map<String, String> withTotal() {
        Map<String, String> columns = new HashMap<>(COLUMNS);
        columns.putAll(TOTAL_COLUMNS);
        return Map.copyOf(columns);
    }

    private static Map<String, String> columns() {
        Map<String, String> columns = new LinkedHashMap<>();
        for (String name : List.of("member_id", "session_name")) {
            columns.put(name, "text");
        }
        for (String name : List.of("weight", "demand", "granted", "target", "budget")) {
            columns.put(name, "integer");
        }
        for (String name : List.of("joined_at", "renewed_at", "lease_expires_at")) {
            columns.put(name, "timestamp with time zone");
        }
        return Map.copyOf(columns);
    }
}
