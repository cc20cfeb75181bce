package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import dev.dbbulkhead.jdbc.ungated.PoolAdmission;
import dev.dbbulkhead.jdbc.ungated.StackSampling;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import dev.dbbulkhead.jdbc.ungated.WorkRules;
import dev.dbbulkhead.transaction.DeadlinePoolWait;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The application's pools watched for work that escapes the gates, by DataSource bean name, each with its detector.
 * What the meters, the endpoint and the start-up report read.
 */
public final class WatchedPools {

    private static final Log logger = LogFactory.getLog(WatchedPools.class);

    private final DetectionSettings settings;
    private final boolean watching;
    private final UngatedConnectionListener listener;
    /** Admission where connections are taken, the same rules for every pool watched; null to watch only. */
    private final @Nullable AdmissionSettings admission;
    /** By bean name, so that reports list the pools in one order whatever order the beans were made in. */
    private final Map<String, Watched> pools = new ConcurrentSkipListMap<>();

    /**
     * @param settings  how the detectors read, keep and answer a borrow that no workload's rule named
     * @param watching  false to watch nothing: {@link #watch} then hands every pool back as it is
     * @param listener  told of each new call site of any pool
     * @param admission how every borrow outside an admitted operation is admitted where it is taken; {@code null} to
     *                  watch only
     */
    public WatchedPools(DetectionSettings settings, boolean watching, UngatedConnectionListener listener,
                        @Nullable AdmissionSettings admission) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.watching = watching;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.admission = admission;
    }

    /**
     * What admission where connections are taken needs of the application: the gate of each workload, the default
     * workload and the rules read on the stack.
     *
     * @param gates           the gate of each workload by name, once they open at the end of start-up
     * @param defaultWorkload the workload of what no rule names
     * @param rules           the rules read on a borrow's stack
     * @param jobRefusals     the refused runs of jobs, of every pool
     * @param sampling        which borrows only the default caught have their stack read, when nothing else reads it
     */
    public record AdmissionSettings(StartUpGates gates, String defaultWorkload, WorkRules rules,
                                    JobRefusals jobRefusals, StackSampling sampling) {
    }

    /**
     * Watches {@code pool}, the DataSource bean {@code beanName}; returns what the application should use instead: an
     * object of the pool's own class ({@code HikariDataSource}, or the application's subclass of it), so that the
     * bean keeps its type, whose borrows pass the watch and whose every other method is the pool's. The watch also
     * asks a HikariCP pool for connections within the deadline of the asking thread's permit
     * ({@link DeadlinePoolWait}): the one decoration of the bean, which {@code mode=off} leaves as it is.
     *
     * <p>A pool whose class no subclass can stand in for (final, sealed, without a constructor a subclass could call,
     * with a final method, a JDK proxy) is handed back as it is, unwatched, with a warning that names the bean and
     * why: its type is never changed.
     */
    public DataSource watch(String beanName, DataSource pool) {
        if (!watching || pool instanceof WatchedDataSource || isWatched(pool)) {
            return pool;
        }
        String unfit = WatchedPoolProxy.whyNotSubclassable(pool.getClass());
        if (unfit == null) {
            try {
                return pools.computeIfAbsent(beanName, name -> {
                    AdmissionSettings admitting = admission;
                    PoolAdmission poolAdmission = admitting == null ? null : new PoolAdmission(admitting.gates(),
                            admitting.defaultWorkload(), admitting.rules(), DeadlinePoolWait.atOnceFor(pool),
                            admitting.jobRefusals(), admitting.sampling());
                    WatchedDataSource watch = new WatchedDataSource(pool,
                            new UngatedConnectionDetector(name, settings, listener), DeadlinePoolWait.forPool(pool),
                            poolAdmission);
                    return new Watched(WatchedPoolProxy.proxy(pool, watch), watch);
                }).bean();
            } catch (RuntimeException | LinkageError notMade) {
                unfit = "no subclass of its class could be made (" + notMade + ")";
            }
        }
        logger.warn("DataSource bean '" + beanName + "' (" + pool.getClass().getName() + ") is not watched for"
                + " connections borrowed outside every gate: " + unfit + ", and the watch stands in for a pool as a"
                + " subclass of the pool's class, so that the bean keeps its type. Connections borrowed from it"
                + " outside the gates are neither counted nor refused. Declare the bean with a class that can be"
                + " extended (HikariDataSource, say) to have it watched.");
        return pool;
    }

    /** Admission where the connections of each pool watched are taken, by bean name; empty when it is off. */
    public Map<String, PoolAdmission> admissions() {
        Map<String, PoolAdmission> byPool = new java.util.LinkedHashMap<>();
        pools.forEach((name, watched) -> {
            PoolAdmission admitting = watched.watch().admission();
            if (admitting != null) {
                byPool.put(name, admitting);
            }
        });
        return byPool;
    }

    /** How borrows are admitted where they are taken; {@code null} when they are only watched. */
    public @Nullable AdmissionSettings admissionSettings() {
        return admission;
    }

    /** The detectors of the pools watched, by bean name. */
    public List<UngatedConnectionDetector> detectors() {
        return pools.values().stream().map(watched -> watched.watch().detector()).toList();
    }

    /** Whether {@code dataSource} is one of the pools watched: the bean that stands in for the pool. */
    public boolean isWatched(DataSource dataSource) {
        for (Watched watched : pools.values()) {
            if (watched.bean() == dataSource) {
                return true;
            }
        }
        return false;
    }

    /** {@code warn}, {@code fail} (borrows outside the gates are refused) or {@code off} (nothing watched). */
    public String mode() {
        return !watching ? "off" : settings.refuse() ? "fail" : "warn";
    }

    /** Whether any pool may be watched. */
    public boolean watching() {
        return watching;
    }

    /** The settings the detectors read borrows with. */
    public DetectionSettings settings() {
        return settings;
    }

    /**
     * A pool watched.
     *
     * @param bean  what the application uses: of the pool's class, its borrows through {@code watch}
     * @param watch the watch in front of the pool, with its detector
     */
    private record Watched(DataSource bean, WatchedDataSource watch) {
    }
}
