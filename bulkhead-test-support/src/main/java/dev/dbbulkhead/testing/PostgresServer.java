package dev.dbbulkhead.testing;

/**
 * Where a running PostgreSQL server can be reached, and how it was obtained.
 *
 * @param jdbcUrl  JDBC URL of a database the tests may create schemas in
 * @param username login role
 * @param password password of the role (may be empty)
 * @param origin   which source provided the server, for the test log
 */
public record PostgresServer(String jdbcUrl, String username, String password, Origin origin) {

    /** The source a server came from, in the order the fixture tries them. */
    public enum Origin {
        /** {@link PostgresFixture#JDBC_URL_VARIABLE} named an existing server. */
        ENVIRONMENT,
        /** A Testcontainers PostgreSQL 17 container, because a Docker engine answered. */
        TESTCONTAINERS,
        /** An embedded PostgreSQL 17 process started from Maven-packaged binaries. */
        EMBEDDED
    }

    @Override
    public String toString() {
        // Never print the password.
        return "PostgresServer[" + origin + " " + jdbcUrl + " as " + username + "]";
    }
}
