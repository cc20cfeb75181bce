package dev.dbbulkhead.budget;

import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code max-instances × connections per instance + other connections ≤ usable connections}, where usable is
 * PostgreSQL's {@code max_connections} less the connections it reserves for superusers and reserved roles: the
 * arithmetic of one database server and the pools of this instance that reach it.
 *
 * @param pools                  the names of this instance's pools on the server
 * @param maxInstances           peak instances at once (autoscaling and rolling-deploy overlap included)
 * @param connectionsPerInstance the sum of the maximum sizes of this instance's pools
 * @param otherConnections       connections other clients may hold
 * @param maxConnections         the server's {@code max_connections}
 * @param superuserReserved      the server's {@code superuser_reserved_connections}
 * @param reserved               the server's {@code reserved_connections} (0 before PostgreSQL 16)
 */
public record FleetBudget(List<String> pools, int maxInstances, int connectionsPerInstance, int otherConnections, int maxConnections,
                          int superuserReserved, int reserved) {

    /** Connections the fleet may open at its peak, in exact arithmetic. */
    public long demand() {
        return (long) maxInstances * connectionsPerInstance + otherConnections;
    }

    /** Connections the server accepts from ordinary roles. */
    public long usable() {
        return (long) maxConnections - superuserReserved - reserved;
    }

    /** Whether the demand fits. */
    public boolean fits() {
        return demand() <= usable();
    }

    /** {@code the server of pool 'main'}, {@code the server of pools 'a', 'b'}. */
    public String server() {
        return "the server of pool" + (pools.size() == 1 ? " " : "s ")
                + pools.stream().map(pool -> "'" + pool + "'").collect(Collectors.joining(", "));
    }

    /** The check written out with its numbers. */
    public String arithmetic() {
        return maxInstances + " instances × " + connectionsPerInstance + " connections + " + otherConnections
                + " other = " + demand() + (fits() ? " ≤ " : " > ") + maxConnections + " max_connections − "
                + superuserReserved + " superuser_reserved_connections − " + reserved + " reserved_connections = "
                + usable() + " usable";
    }
}
