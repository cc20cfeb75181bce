package dev.dbbulkhead.saturation.support;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.SaturationPolicy;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The workloads whose B follows the database's signals ({@code limit.database}), and the limit that follows them.
 * The database's limit caps a steered workload's B through the gate's {@link ConcurrencyCeiling}, which what wants B
 * (its configuration, a resize through the endpoint, its latency limit) asks too: the gate runs with the smaller.
 */
public final class DatabaseLimits {

    private final SaturationLimits limits;
    private final Map<String, ConcurrencyCeiling> ceilings;

    private DatabaseLimits(SaturationLimits limits, Map<String, ConcurrencyCeiling> ceilings) {
        this.limits = limits;
        this.ceilings = Map.copyOf(ceilings);
    }

    /**
     * How one workload follows the database ({@code limit.database}).
     *
     * @param workload    its name
     * @param mode        steered or only recommended
     * @param criticality the order in which saturation lowers it
     * @param floor       its lowest cap
     * @param ceiling     the most a recommendation may show
     */
    public record Setting(String workload, SaturationLimits.Mode mode, Criticality criticality, int floor,
                          int ceiling) {
    }

    /**
     * The limits of the workloads of {@code registry} named in {@code settings}.
     *
     * @param serverCpus           the server's processors, 0 when not known
     * @param recommendationWindow how far back the samples behind a recommended B reach
     * @param log                  where the limit writes a change of the database's state and of a recommended B
     */
    public static DatabaseLimits of(BulkheadRegistry registry, List<Setting> settings, int serverCpus,
                                    Duration recommendationWindow, System.Logger log) {
        List<SaturationLimits.Governed> governed = new ArrayList<>();
        Map<String, ConcurrencyCeiling> ceilings = new LinkedHashMap<>();
        for (Setting setting : settings) {
            String name = setting.workload();
            AdmissionGate gate = registry.template(name).gate();
            if (setting.mode() == SaturationLimits.Mode.STEER) {
                ConcurrencyCeiling ceiling = ConcurrencyCeiling.of(gate);
                ceilings.put(name, ceiling);
                governed.add(new SaturationLimits.Governed(name, SaturationLimits.Mode.STEER, setting.criticality(),
                        setting.floor(), ceiling::requested, gate::active, () -> gate.waiting() > 0,
                        ceiling::limitTo));
            } else {
                int ceiling = setting.ceiling();
                governed.add(new SaturationLimits.Governed(name, SaturationLimits.Mode.RECOMMEND,
                        setting.criticality(), setting.floor(), () -> ceiling, gate::active,
                        () -> gate.waiting() > 0, DatabaseLimits::shown));
            }
        }
        return new DatabaseLimits(new SaturationLimits(new SaturationPolicy(serverCpus), governed, log,
                recommendationWindow), ceilings);
    }

    /** A recommendation is only shown: its cap is applied to nothing. */
    private static void shown(int recommended) {
    }

    /** The limit, to feed with samples and to show. */
    public SaturationLimits limits() {
        return limits;
    }

    /** Whether any workload follows the database. */
    public boolean any() {
        return !limits.limits().isEmpty();
    }

    /** The ceiling of a steered workload, through which its B is requested; empty for any other. */
    public Optional<ConcurrencyCeiling> ceiling(String workload) {
        return Optional.ofNullable(ceilings.get(workload));
    }
}
