package dev.dbbulkhead.saturation;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/** Reads one sample of a database's signals, on the connection its {@link DatabaseSampler} keeps for it. */
public interface SignalSource {

    /**
     * One sample, read now.
     *
     * @param connection the sampler's own session, in auto-commit, with the sampler's statement timeout set
     * @throws SQLException when the server could not answer; the sampler keeps its last sample
     */
    DatabaseSignals read(Connection connection) throws SQLException;

    /**
     * Readies a new session of the sampler before its first sample: the server should end any statement of it after
     * {@code queryTimeout}. Nothing by default.
     *
     * @throws SQLException when the session cannot be readied; the sampler closes it and tries again later
     */
    default void prepare(Connection session, Duration queryTimeout) throws SQLException {
    }
}
