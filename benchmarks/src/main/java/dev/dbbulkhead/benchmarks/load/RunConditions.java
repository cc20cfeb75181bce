package dev.dbbulkhead.benchmarks.load;

import java.lang.management.ManagementFactory;

/** The state of the machine around a measured run, recorded with it because others may share the machine. */
public final class RunConditions {

    private RunConditions() {
    }

    /** The system's load average over the last minute, or -1 where the platform has none. */
    public static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** Clears garbage of earlier runs so that each run's heap peak starts from the same floor. */
    public static void settleHeap() {
        System.gc();
    }
}
