package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import dev.dbbulkhead.jdbc.DataSourceDecorator;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A pool watched for work that escapes the gates: every connection borrowed by a thread inside an admitted operation
 * passes straight through, at the cost of one thread-local read; any other is handed to the pool's
 * {@link UngatedConnectionDetector} first, which records it (and, when told to, refuses it). Everything else is the
 * pool's own, and {@link #unwrap} reaches the pool and what it wraps, so that code that looks for the pool's own
 * class ({@code HikariDataSource}, say) through {@code unwrap} finds it.
 */
public final class WatchedDataSource extends DataSourceDecorator {

    private final UngatedConnectionDetector detector;
    /** Admission where connections are taken, or {@code null}: borrows outside the gates are only watched. */
    private final @Nullable PoolAdmission admission;

    /**
     * @param pool     the pool the gates admit to
     * @param detector its record of borrows outside every gate
     */
    public WatchedDataSource(DataSource pool, UngatedConnectionDetector detector) {
        this(pool, detector, ConnectionRequest.PLAIN, null);
    }

    /**
     * @param pool      the pool the gates admit to
     * @param detector  its record of borrows that only the default workload caught, or that run outside the gates
     * @param request   how the pool is asked for a connection once the borrow is admitted or let pass
     * @param admission admission where connections are taken: every borrow outside an admitted operation is admitted
     *                  by the gate of its workload first; {@code null} to watch only
     */
    public WatchedDataSource(DataSource pool, UngatedConnectionDetector detector, ConnectionRequest request,
                             @Nullable PoolAdmission admission) {
        super(pool, request);
        this.detector = Objects.requireNonNull(detector, "detector");
        this.admission = admission;
    }

    /** Admission where this pool's connections are taken, or {@code null} when the pool is only watched. */
    public @Nullable PoolAdmission admission() {
        return admission;
    }

    @Override
    protected Connection borrow(ConnectionRequest how) throws SQLException {
        PoolAdmission admitting = admission;
        return admitting == null || !admitting.gatesOpen() ? super.borrow(how)
                : admitting.borrow(target(), how, detector);
    }

    /** The pool watched. */
    public DataSource pool() {
        return target();
    }

    /** Its record of borrows outside every gate. */
    public UngatedConnectionDetector detector() {
        return detector;
    }

    @Override
    protected void beforeConnection() throws SQLException {
        if (!AdmissionGate.isCurrentThreadAdmitted()) {
            detector.borrowedOutsideGates();
        }
    }

    @Override
    public String toString() {
        return "WatchedDataSource[" + detector.pool() + ": " + target() + "]";
    }
}
