package dev.dbbulkhead.budget;

import org.jspecify.annotations.Nullable;

/**
 * What the connection budget check is told besides the bulkheads: whether findings stop start-up, and the fleet's
 * shape ({@code db.bulkhead.budget.mode}, {@code db.bulkhead.fleet.max-instances} and
 * {@code db.bulkhead.fleet.other-connections} in a Spring Boot application).
 *
 * @param failOnFindings    whether a report with findings stops start-up, rather than being logged as warnings
 * @param maxInstances      the most instances of the application that run at once, a rolling deployment's overlap
 *                          included; null when the fleet is not described, and then no server is asked
 * @param otherConnections  connections that other clients of the same servers (batch, operations) may hold
 */
public record BudgetSettings(boolean failOnFindings, @Nullable Integer maxInstances, int otherConnections) {
}
