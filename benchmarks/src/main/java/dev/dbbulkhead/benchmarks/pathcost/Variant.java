package dev.dbbulkhead.benchmarks.pathcost;

/**
 * Which build of the product a fork measured: with {@code --before <jar>}, the starter paths run once from that jar
 * (today's product code, with this same harness) and once from the run's own classpath (the changed product).
 */
enum Variant {
    BEFORE,
    AFTER;

    String label() {
        return name().toLowerCase();
    }
}
