package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** The {@link AmbientTransactionProbe}s on the class path, loaded once. */
final class AmbientTransactions {

    private static final AmbientTransactionProbe[] PROBES = load();

    private AmbientTransactions() {
    }

    static boolean activeOnCurrentThread() {
        for (AmbientTransactionProbe probe : PROBES) {
            if (probe.transactionActive()) {
                return true;
            }
        }
        return false;
    }

    private static AmbientTransactionProbe[] load() {
        List<AmbientTransactionProbe> probes = new ArrayList<>();
        Iterator<AmbientTransactionProbe> providers = ServiceLoader
                .load(AmbientTransactionProbe.class, AmbientTransactionProbe.class.getClassLoader())
                .iterator();
        while (true) {
            try {
                if (!providers.hasNext()) {
                    break;
                }
                probes.add(providers.next());
            } catch (ServiceConfigurationError | LinkageError frameworkAbsent) {
                // The probe's framework (for example spring-tx) is not on the class path: nothing to probe.
            }
        }
        return probes.toArray(AmbientTransactionProbe[]::new);
    }
}
