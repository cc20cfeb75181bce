package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.Permit;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.ShardingKey;
import java.sql.Statement;
import java.sql.Struct;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * A connection taken under a permit of its own ({@link PoolAdmission}): the pool's connection in everything, except
 * that closing it gives the permit back, once, after the pool has the connection again — so the place is held from
 * the request for the connection to its return, the transaction on it included. How the work on it ended (a commit, a
 * rollback, statements in auto-commit) is the outcome the gate's listener is told.
 *
 * <p>Used by one thread at a time, as a pool's connection is; closed by the thread that took it, as the permit must
 * be. A close on another thread closes the connection and hands the permit over as {@link Permit#close()} describes:
 * it is given back when the taking thread next enters a gate or has ended, never twice.
 */
final class AdmittedConnection implements Connection {

    private final Connection connection;
    private final Permit permit;
    /** How its last transaction ended; statements in auto-commit count as committed. */
    private ExecutionOutcome outcome = ExecutionOutcome.COMMITTED;
    private boolean released;
    /**
     * Whether work on it may have written: a commit, or a statement prepared in auto-commit, while the connection was
     * not read-only. A connection whose transactions were all read-only (as Spring marks those of
     * {@code @Transactional(readOnly = true)}) wrote nothing a retry of the request would write twice.
     */
    private boolean mayHaveWritten;
    private boolean readOnly;
    /** A pool hands its connections out in auto-commit; Spring turns it off for a transaction and back after. */
    private boolean autoCommit = true;

    AdmittedConnection(Connection connection, Permit permit) {
        this.connection = connection;
        this.permit = permit;
    }

    @Override
    public void close() throws SQLException {
        if (released) {
            connection.close();
            return;
        }
        released = true;
        try {
            connection.close();
        } finally {
            permit.recordOutcome(outcome);
            if (!mayHaveWritten) {
                permit.recordOnlyRead();
            }
            try {
                permit.close();
            } catch (IllegalStateException closedOnAnotherThread) {
                // Handed over, never lost: the permit is given back when its thread enters a gate again or ends.
            }
        }
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        connection.setAutoCommit(autoCommit);
        this.autoCommit = autoCommit;
    }

    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        connection.setReadOnly(readOnly);
        this.readOnly = readOnly;
    }

    /** A statement is being prepared: in auto-commit on a writable connection, it may write at once. */
    private void statementPrepared() {
        if (autoCommit && !readOnly) {
            mayHaveWritten = true;
        }
    }

    @Override
    public void commit() throws SQLException {
        try {
            connection.commit();
        } catch (SQLException | RuntimeException failed) {
            outcome = ExecutionOutcome.UNKNOWN;
            throw failed;
        }
        outcome = ExecutionOutcome.COMMITTED;
        if (!readOnly) {
            mayHaveWritten = true;
        }
    }

    @Override
    public void rollback() throws SQLException {
        outcome = ExecutionOutcome.ROLLED_BACK;
        connection.rollback();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return type.isInstance(connection) ? type.cast(connection) : connection.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || type.isInstance(connection) || connection.isWrapperFor(type);
    }

    @Override
    public String toString() {
        return "AdmittedConnection[" + permit.workload() + ": " + connection + "]";
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return connection.getAutoCommit();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return connection.isClosed();
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return connection.isReadOnly();
    }

    @Override
    public boolean isValid(int arg0) throws SQLException {
        return connection.isValid(arg0);
    }

    @Override
    public int getHoldability() throws SQLException {
        return connection.getHoldability();
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return connection.getNetworkTimeout();
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return connection.getTransactionIsolation();
    }

    @Override
    public String getCatalog() throws SQLException {
        return connection.getCatalog();
    }

    @Override
    public String getClientInfo(String arg0) throws SQLException {
        return connection.getClientInfo(arg0);
    }

    @Override
    public String getSchema() throws SQLException {
        return connection.getSchema();
    }

    @Override
    public String nativeSQL(String arg0) throws SQLException {
        return connection.nativeSQL(arg0);
    }

    @Override
    public Array createArrayOf(String arg0, Object[] arg1) throws SQLException {
        return connection.createArrayOf(arg0, arg1);
    }

    @Override
    public Blob createBlob() throws SQLException {
        return connection.createBlob();
    }

    @Override
    public CallableStatement prepareCall(String arg0) throws SQLException {
        statementPrepared();
        return connection.prepareCall(arg0);
    }

    @Override
    public CallableStatement prepareCall(String arg0, int arg1, int arg2) throws SQLException {
        statementPrepared();
        return connection.prepareCall(arg0, arg1, arg2);
    }

    @Override
    public CallableStatement prepareCall(String arg0, int arg1, int arg2, int arg3) throws SQLException {
        statementPrepared();
        return connection.prepareCall(arg0, arg1, arg2, arg3);
    }

    @Override
    public Clob createClob() throws SQLException {
        return connection.createClob();
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return connection.getMetaData();
    }

    @Override
    public NClob createNClob() throws SQLException {
        return connection.createNClob();
    }

    @Override
    public PreparedStatement prepareStatement(String arg0) throws SQLException {
        statementPrepared();
        return connection.prepareStatement(arg0);
    }

    @Override
    public PreparedStatement prepareStatement(String arg0, int arg1) throws SQLException {
        statementPrepared();
        return connection.prepareStatement(arg0, arg1);
    }

    @Override
    public PreparedStatement prepareStatement(String arg0, int arg1, int arg2) throws SQLException {
        statementPrepared();
        return connection.prepareStatement(arg0, arg1, arg2);
    }

    @Override
    public PreparedStatement prepareStatement(String arg0, int arg1, int arg2, int arg3) throws SQLException {
        statementPrepared();
        return connection.prepareStatement(arg0, arg1, arg2, arg3);
    }

    @Override
    public PreparedStatement prepareStatement(String arg0, int[] arg1) throws SQLException {
        statementPrepared();
        return connection.prepareStatement(arg0, arg1);
    }

    @Override
    public PreparedStatement prepareStatement(String arg0, String[] arg1) throws SQLException {
        statementPrepared();
        return connection.prepareStatement(arg0, arg1);
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return connection.getWarnings();
    }

    @Override
    public SQLXML createSQLXML() throws SQLException {
        return connection.createSQLXML();
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        return connection.setSavepoint();
    }

    @Override
    public Savepoint setSavepoint(String arg0) throws SQLException {
        return connection.setSavepoint(arg0);
    }

    @Override
    public Statement createStatement() throws SQLException {
        statementPrepared();
        return connection.createStatement();
    }

    @Override
    public Statement createStatement(int arg0, int arg1) throws SQLException {
        statementPrepared();
        return connection.createStatement(arg0, arg1);
    }

    @Override
    public Statement createStatement(int arg0, int arg1, int arg2) throws SQLException {
        statementPrepared();
        return connection.createStatement(arg0, arg1, arg2);
    }

    @Override
    public Struct createStruct(String arg0, Object[] arg1) throws SQLException {
        return connection.createStruct(arg0, arg1);
    }

    @Override
    public Map<String, Class<?>> getTypeMap() throws SQLException {
        return connection.getTypeMap();
    }

    @Override
    public Properties getClientInfo() throws SQLException {
        return connection.getClientInfo();
    }

    @Override
    public void abort(Executor arg0) throws SQLException {
        connection.abort(arg0);
    }

    @Override
    public void clearWarnings() throws SQLException {
        connection.clearWarnings();
    }

    @Override
    public void releaseSavepoint(Savepoint arg0) throws SQLException {
        connection.releaseSavepoint(arg0);
    }

    @Override
    public void rollback(Savepoint arg0) throws SQLException {
        connection.rollback(arg0);
    }

    @Override
    public void setCatalog(String arg0) throws SQLException {
        connection.setCatalog(arg0);
    }

    @Override
    public void setClientInfo(String arg0, String arg1) throws SQLClientInfoException {
        connection.setClientInfo(arg0, arg1);
    }

    @Override
    public void setClientInfo(Properties arg0) throws SQLClientInfoException {
        connection.setClientInfo(arg0);
    }

    @Override
    public void setHoldability(int arg0) throws SQLException {
        connection.setHoldability(arg0);
    }

    @Override
    public void setNetworkTimeout(Executor arg0, int arg1) throws SQLException {
        connection.setNetworkTimeout(arg0, arg1);
    }

    @Override
    public void setSchema(String arg0) throws SQLException {
        connection.setSchema(arg0);
    }

    @Override
    public void setTransactionIsolation(int arg0) throws SQLException {
        connection.setTransactionIsolation(arg0);
    }

    @Override
    public void setTypeMap(Map<String, Class<?>> arg0) throws SQLException {
        connection.setTypeMap(arg0);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey arg0, int arg1) throws SQLException {
        return connection.setShardingKeyIfValid(arg0, arg1);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey arg0, ShardingKey arg1, int arg2) throws SQLException {
        return connection.setShardingKeyIfValid(arg0, arg1, arg2);
    }

    @Override
    public void beginRequest() throws SQLException {
        connection.beginRequest();
    }

    @Override
    public void endRequest() throws SQLException {
        connection.endRequest();
    }

    @Override
    public void setShardingKey(ShardingKey arg0) throws SQLException {
        connection.setShardingKey(arg0);
    }

    @Override
    public void setShardingKey(ShardingKey arg0, ShardingKey arg1) throws SQLException {
        connection.setShardingKey(arg0, arg1);
    }
}
